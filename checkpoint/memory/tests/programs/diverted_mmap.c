/* Memory test program: the executable's GOT entry for mmap rewritten to point at libc's own mmap,
 * as UCX's memory hooks in their relocation mode do (they point it at a function of theirs that
 * calls libc's): from then on the memory layer no longer sees the program's mappings, so the next
 * checkpoint must be refused with one line. Each iteration maps a page, writes to it and passes the
 * call boundary; the diversion happens at iteration 2 (after the restore point).
 * Usage: diverted_mmap [iterations] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern int yk_memtest_boundary(void) __attribute__((weak));

static int first_object(struct dl_phdr_info* info, size_t size, void* arg) {
  (void)size;
  *(struct dl_phdr_info*)arg = *info;
  return 1;
}

static void divert_mmap(void) {
  struct dl_phdr_info exe;
  dl_iterate_phdr(first_object, &exe);
  const ElfW(Dyn)* dyn = NULL;
  for (int i = 0; i < exe.dlpi_phnum; ++i)
    if (exe.dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn)*)(exe.dlpi_addr + exe.dlpi_phdr[i].p_vaddr);
  const ElfW(Sym)* symtab = NULL;
  const char* strtab = NULL;
  const ElfW(Rela)* plt = NULL;
  size_t plt_bytes = 0;
  for (; dyn && dyn->d_tag != DT_NULL; ++dyn) {
    ElfW(Addr) v = dyn->d_un.d_ptr < exe.dlpi_addr ? dyn->d_un.d_ptr + exe.dlpi_addr : dyn->d_un.d_ptr;
    if (dyn->d_tag == DT_SYMTAB) symtab = (const ElfW(Sym)*)v;
    if (dyn->d_tag == DT_STRTAB) strtab = (const char*)v;
    if (dyn->d_tag == DT_JMPREL) plt = (const ElfW(Rela)*)v;
    if (dyn->d_tag == DT_PLTRELSZ) plt_bytes = dyn->d_un.d_val;
  }
  void* libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
  void* libc_mmap = libc ? dlsym(libc, "mmap") : NULL;
  if (!symtab || !strtab || !plt || !libc_mmap) abort();
  for (size_t i = 0; i < plt_bytes / sizeof *plt; ++i) {
    if (strcmp(strtab + symtab[ELF64_R_SYM(plt[i].r_info)].st_name, "mmap") != 0) continue;
    uintptr_t slot = exe.dlpi_addr + plt[i].r_offset;
    if (mprotect((void*)(slot & ~(uintptr_t)4095), 4096, PROT_READ | PROT_WRITE) != 0) abort();
    *(void**)slot = libc_mmap;
    printf("mmap diverted to libc's\n");
    return;
  }
  abort();
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 6;
  printf("diverted_mmap: %d iterations\n", n);
  for (int i = 1; i <= n; ++i) {
    if (yk_memtest_boundary) yk_memtest_boundary();
    if (i == 2) divert_mmap();
    char* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return 1;
    snprintf(page, 4096, "iteration %d", i);
    printf("%s\n", page);
  }
  return 0;
}
