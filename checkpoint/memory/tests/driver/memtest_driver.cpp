// Test driver preloaded into the non-MPI test programs (libyk_memtest.so): stands in for the
// shim. The programs call yk_memtest_boundary() once per iteration, as an MPI program calls MPI;
// that is the call boundary where checkpoints happen.
//   YK_MEMTEST_CKPT_AT=K     checkpoint at the K-th boundary call (counted across restarts)
//   YK_MEMTEST_CKPT_FILE=F   into F
//   YK_MEMTEST_CONTINUE=1    keep running after the checkpoint (default: _exit(0) right after
//                            it, like a job killed once its epoch committed)
//   YADOKARI_RESTORE=F       restore from F when main starts
//   YK_MEMTEST_RESTORE_LATE=1  restore at the first boundary call instead, as the shim does
//                            after MPI_Init: the program's code before it runs again
// Like the shim around an MPI call, the driver brackets its work with yk_mem_enter_library().
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "checkpoint/memory/memory.h"

namespace {

// Counted boundary calls: carried, so a restarted process continues the count.
unsigned long g_calls;

// Read at load time: the environment the application sees after a restore is the old one.
long g_ckpt_at = -1;
const char* g_ckpt_file;
bool g_continue;
const char* g_restore;
bool g_restore_late;

void restore() {
  yk_mem_restore_file(g_restore);  // returns only on failure; the message is printed
  _exit(70);
}

// The restore point, in every incarnation (memory.h, yk_mem_restore_point): main's start, or with
// YK_MEMTEST_RESTORE_LATE=1 the first boundary, like MPI_Init in the product.
bool g_at_restore_point;
void restore_point() {
  if (g_at_restore_point) return;
  g_at_restore_point = true;
  yk_mem_restore_point();
}

void restore_at_main() {
  if (g_restore_late) return;
  restore_point();
  if (g_restore) restore();
}

__attribute__((constructor)) void init() {
  yk_mem_carry(&g_calls, sizeof g_calls, "memtest boundary count");
  if (const char* at = std::getenv("YK_MEMTEST_CKPT_AT")) g_ckpt_at = std::atol(at);
  g_ckpt_file = std::getenv("YK_MEMTEST_CKPT_FILE");
  const char* cont = std::getenv("YK_MEMTEST_CONTINUE");
  g_continue = cont && *cont == '1';
  const char* restore = std::getenv("YADOKARI_RESTORE");
  if (restore && *restore) g_restore = restore;
  const char* late = std::getenv("YK_MEMTEST_RESTORE_LATE");
  g_restore_late = late && *late == '1';
  yk_mem_set_main_hook(restore_at_main);
}

int boundary() {
  restore_point();
  if (g_restore && g_restore_late) restore();
  ++g_calls;
  if (static_cast<long>(g_calls) != g_ckpt_at || !g_ckpt_file) return 0;
  int r = yk_mem_checkpoint_file(g_ckpt_file);
  if (r == YK_MEM_ERROR) _exit(71);
  if (r == YK_MEM_CHECKPOINTED && !g_continue) _exit(0);
  if (r == YK_MEM_RESTARTED) {
    // Inside the bracket getenv answers from the live environment: it must be the fresh
    // process's (only that one has the restore variable), not the restored one.
    g_restore = nullptr;  // the fresh process's setting; done with it
    bool live = std::getenv("YADOKARI_RESTORE") != nullptr;
    if (!live) {
      std::fprintf(stderr, "memtest: libc's environment was overwritten by the restore\n");
      _exit(72);
    }
  }
  return r;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int yk_memtest_boundary(void) {
  yk_mem_enter_library();
  int r = boundary();
  yk_mem_leave_library();
  return r;
}
