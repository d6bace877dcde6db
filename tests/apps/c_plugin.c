/* A plugin loaded with dlopen after MPI_Init and used before and after the pause point
 * (tests/apps/README.md; checkpoint/memory/README.md, "Libraries loaded after start"). The plugin
 * (plugin.c) and its dependency (plugin_dep.c) keep state in .data, .bss, the heap and static TLS;
 * after a restart they must be back at the same addresses with that state: the handle kept from
 * before the pause point still works with dlsym (a symbol never looked up before) and dlvsym (a
 * versioned libc symbol, found through the plugin's dependencies), function pointers fetched
 * before it still work, dl_iterate_phdr still lists the plugin where dladdr puts
 * it, and dlclose of the old handle succeeds. The plugin is opened twice before the pause point:
 * after it, the first dlclose must leave it loaded (it is used after it) and the second unload it,
 * as in an uninterrupted run. Rank 0 prints; every rank writes its own file.
 * YK_APP_MAP_BEFORE_INIT=<MiB> maps that much (PROT_NONE) before MPI_Init: everything mapped later
 * (the MPI library's memory) lands that much lower, as in a run with another layout; the
 * .shifted tests give it to the restart only, where the plugin's first address must still be free. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tests/apps/pause_point.h"

static int count_plugin(struct dl_phdr_info* info, size_t size, void* arg) {
  (void)size;
  const char* slash = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
  if (slash && strcmp(slash + 1, "libyk_plugin.so") == 0) *(ElfW(Addr)*)arg = info->dlpi_addr;
  return 0;
}

int main(int argc, char** argv) {
  const char* shift = getenv("YK_APP_MAP_BEFORE_INIT");
  if (shift && mmap(NULL, (size_t)atol(shift) << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) ==
                   MAP_FAILED) {
    perror("c_plugin: mmap");
    return 1;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* A bare name, found through the executable's RUNPATH. */
  void* plugin = dlopen("libyk_plugin.so", RTLD_NOW);
  if (!plugin) {
    fprintf(stderr, "c_plugin: dlopen: %s\n", dlerror());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  void* again = dlopen("libyk_plugin.so", RTLD_NOW); /* a second reference: two dlcloses to unload */
  long (*step)(long) = (long (*)(long))dlsym(plugin, "yk_plugin_step");
  char name[64];
  snprintf(name, sizeof name, "plugin.%d.txt", rank);
  FILE* out = fopen(name, "w");
  if (!again || !step || !out) MPI_Abort(MPI_COMM_WORLD, 1);
  long value = rank + 1;
  for (int iteration = 0; iteration < 20; ++iteration) {
    if (iteration == 10) yk_app_pause_point(MPI_COMM_WORLD);
    long mine = step(value + iteration), sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    value = sum % 100003;
    fprintf(out, "iteration %d: %ld %ld\n", iteration, mine, sum);
    if (rank == 0) printf("iteration %d: sum %ld\n", iteration, sum);
  }
  long (*digest)(void) = (long (*)(void))dlsym(plugin, "yk_plugin_digest");
  void* versioned = dlvsym(plugin, "strlen", "GLIBC_2.2.5");
  const int same_versioned = versioned && versioned == dlvsym(RTLD_DEFAULT, "strlen", "GLIBC_2.2.5");
  fprintf(out, "dlvsym through the kept handle: %s\n", same_versioned ? "libc's" : "wrong");
  if (rank == 0) printf("dlvsym through the kept handle: %s\n", same_versioned ? "libc's" : "wrong");
  Dl_info where;
  ElfW(Addr) listed = 0;
  dl_iterate_phdr(count_plugin, &listed);
  const int found =
      digest && dladdr((void*)digest, &where) && where.dli_fbase && listed && (ElfW(Addr))where.dli_fbase == listed;
  fprintf(out, "digest %ld, plugin listed where dladdr finds it: %s\n", digest ? digest() : -1L, found ? "yes" : "no");
  const int closed_again = dlclose(again);
  long (*digest_after)(void) = (long (*)(void))dlsym(plugin, "yk_plugin_digest"); /* unloaded: a dangling handle */
  const long used_after = digest_after ? digest_after() : -1L;
  const int closed = dlclose(plugin);
  void* left = dlopen("libyk_plugin.so", RTLD_NOW | RTLD_NOLOAD);
  fprintf(out, "dlclose: %d, then %d; used between them: %ld; loaded after both: %s\n", closed_again, closed,
          used_after, left ? "yes" : "no");
  if (rank == 0)
    printf("plugin listed: %s, dlclose: %d then %d, loaded after both: %s\n", found ? "yes" : "no", closed_again,
           closed, left ? "yes" : "no");
  fclose(out);
  MPI_Finalize();
  return 0;
}
