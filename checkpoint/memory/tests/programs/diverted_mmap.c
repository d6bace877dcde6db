/* Memory test program: the executable's GOT entry for mmap rewritten to point at libc's own mmap,
 * as UCX's memory hooks in their relocation mode do (divert_got.h): from then on the memory layer
 * no longer sees the program's mappings, so the next checkpoint must be refused with one line. Each
 * iteration maps a page, writes to it and passes the call boundary; the diversion happens at
 * iteration 2 (after the restore point). In "library" mode the pages are mapped, and the GOT entry
 * diverted, by a library linked with the program (diverted_lib.c) instead.
 * Usage: diverted_mmap [iterations] [library] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "checkpoint/memory/tests/programs/divert_got.h"

extern int yk_memtest_boundary(void) __attribute__((weak));
void* yk_diverted_lib_map(size_t len);
void yk_diverted_lib_divert(void);

static int first_object(struct dl_phdr_info* info, size_t size, void* arg) {
  (void)size;
  *(struct dl_phdr_info*)arg = *info;
  return 1;
}

static void divert_mmap(void) {
  struct dl_phdr_info exe;
  dl_iterate_phdr(first_object, &exe);
  yk_divert_mmap_of(&exe);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 6;
  const int in_library = argc > 2 && strcmp(argv[2], "library") == 0;
  printf("diverted_mmap: %d iterations\n", n);
  for (int i = 1; i <= n; ++i) {
    if (yk_memtest_boundary) yk_memtest_boundary();
    if (i == 2) {
      if (in_library)
        yk_diverted_lib_divert();
      else
        divert_mmap();
      printf("mmap diverted to libc's\n");
    }
    char* page = in_library ? yk_diverted_lib_map(4096)
                            : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return 1;
    snprintf(page, 4096, "iteration %d", i);
    printf("%s\n", page);
  }
  return 0;
}
