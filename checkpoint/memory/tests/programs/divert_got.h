/* Rewrites an object's GOT entry for mmap to point at libc's own mmap, as UCX's memory hooks in
 * their relocation mode do (they point it at a function of theirs that calls libc's): from then on
 * the memory layer no longer sees that object's mappings. Used by diverted_mmap.c for the
 * executable and by diverted_lib.c for a library linked with it. */
#ifndef YK_DIVERT_GOT_H
#define YK_DIVERT_GOT_H

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void yk_divert_mmap_of(const struct dl_phdr_info* object) {
  const ElfW(Dyn)* dyn = NULL;
  for (int i = 0; i < object->dlpi_phnum; ++i)
    if (object->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = (const ElfW(Dyn)*)(object->dlpi_addr + object->dlpi_phdr[i].p_vaddr);
  const ElfW(Sym)* symtab = NULL;
  const char* strtab = NULL;
  const ElfW(Rela)* plt = NULL;
  size_t plt_bytes = 0;
  for (; dyn && dyn->d_tag != DT_NULL; ++dyn) {
    ElfW(Addr) v = dyn->d_un.d_ptr < object->dlpi_addr ? dyn->d_un.d_ptr + object->dlpi_addr : dyn->d_un.d_ptr;
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
    uintptr_t slot = object->dlpi_addr + plt[i].r_offset;
    if (mprotect((void*)(slot & ~(uintptr_t)4095), 4096, PROT_READ | PROT_WRITE) != 0) abort();
    *(void**)slot = libc_mmap;
    return;
  }
  abort();
}

#endif
