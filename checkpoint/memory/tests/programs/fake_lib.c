/* Stands in for an MPI library in the memory tests. The executable uses yk_fake_world by address
 * (as an MPI program uses ompi_mpi_comm_world), so the linker copy-relocates it into the
 * executable's .bss; the library sets it up at load time in every process. A restore that wrote
 * the old process's bytes over it (docs/architecture.md, pitfall 3) is caught by
 * yk_fake_check(). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "checkpoint/memory/tests/programs/fake_lib.h"

struct yk_fake_world yk_fake_world;
static long g_owner;

__attribute__((constructor)) static void init(void) {
#ifdef YK_FAKE_REBUILT
  g_owner = (long)getpid() * 7919 + 2;
#else
  g_owner = (long)getpid() * 7919 + 1;
#endif
  yk_fake_world.owner = g_owner;
}

void yk_fake_check(struct yk_fake_world* world) {
  if (world != &yk_fake_world || world->owner != g_owner) {
    fprintf(stderr, "fake library: its copy-relocated object was overwritten\n");
    abort();
  }
  world->calls++;
}
