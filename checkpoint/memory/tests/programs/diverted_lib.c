/* A library linked with diverted_mmap.c (its "library" mode): it maps the program's pages itself,
 * and diverts its own GOT entry for mmap past the memory layer (divert_got.h). The layer carries
 * this library's data (it is the application's, checkpoint/memory/README.md, "Libraries linked with
 * the application"), so it must refuse the checkpoint, as for the executable. */
#define _GNU_SOURCE
#include <stddef.h>

#include "checkpoint/memory/tests/programs/divert_got.h"

void* yk_diverted_lib_map(size_t len) {
  return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static int find_self(struct dl_phdr_info* info, size_t size, void* arg) {
  (void)size;
  struct dl_phdr_info* self = arg;
  if (info->dlpi_addr != self->dlpi_addr) return 0;
  *self = *info;
  return 1;
}

void yk_diverted_lib_divert(void) {
  Dl_info where;
  if (!dladdr((void*)yk_diverted_lib_map, &where)) abort();
  struct dl_phdr_info self = {.dlpi_addr = (ElfW(Addr))where.dli_fbase};
  if (!dl_iterate_phdr(find_self, &self)) abort();
  yk_divert_mmap_of(&self);
}
