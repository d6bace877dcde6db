/* yadokari memory layer: C API used by the shim (and by the non-MPI test driver).
 * See checkpoint/memory/README.md for the design and for what is not carried. */
#ifndef YADOKARI_MEMORY_H
#define YADOKARI_MEMORY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return values of yk_mem_checkpoint*(): the first return, after the image was written, and the
 * second return, in a fresh process, after yk_mem_restore*() jumped back into the saved context. */
#define YK_MEM_CHECKPOINTED 0
#define YK_MEM_RESTARTED 1
#define YK_MEM_ERROR (-1)

/* 1 when the layer is active in this process (ASLR off, fixed regions mapped), else 0; when 0,
 * allocations all go to glibc and checkpoints are refused. YADOKARI_MEMORY=off disables it. */
int yk_mem_enabled(void);

/* Whether the layer turns itself on when YADOKARI_MEMORY is unset ("on"/"off" force it). The
 * library's weak default says yes; an embedding library may define its own (called at load
 * time, from a constructor: it must not depend on anything initialised later). */
int yk_mem_wanted_by_default(void);

/* Bracket every call into a library whose state is not ours (every MPI call): allocations made
 * meanwhile go to glibc, never to the application arena (docs/architecture.md, pitfall 7).
 * Nestable, per thread. */
void yk_mem_enter_library(void);
void yk_mem_leave_library(void);

/* Call before main (e.g. from a constructor) in a process that will restore an image later:
 * until the restore, allocations go to glibc so that nothing live is overwritten by the arena
 * restore. YADOKARI_RESTORE=<path> in the environment does the same. */
void yk_mem_expect_restore(void);

/* Why the last checkpoint was refused: one line per problem (state that cannot be carried, e.g.
 * "descriptor 7 is a socket, which is not carried"), '\n'-separated; "" when it was not refused.
 * Valid until the next checkpoint. */
const char* yk_mem_refusal(void);

/* Capture the application's memory into a file (simple internal format, see file_format.hpp).
 * Must be called by the application thread (the one running main). Returns YK_MEM_CHECKPOINTED,
 * YK_MEM_RESTARTED (second return after a restore) or YK_MEM_ERROR (one line on stderr). */
int yk_mem_checkpoint_file(const char* path);

/* Restore from a file written by yk_mem_checkpoint_file(). Does not return on success (the saved
 * yk_mem_checkpoint*() call returns YK_MEM_RESTARTED instead). Returns YK_MEM_ERROR with one line
 * on stderr if the image cannot be used (nothing was modified then); aborts the process if the
 * image turns out truncated after memory was already overwritten. */
int yk_mem_restore_file(const char* path);

/* Carry a range of the shim's own static memory (its .data/.bss, at the same address in every
 * incarnation because ASLR is off) in the capture, e.g. state that must survive a restart.
 * Register at load time; a restore refuses an image whose registrations differ. At most 32. */
void yk_mem_carry(void* addr, size_t len, const char* name);

/* Called on the application stack right before the application's main runs (tests restore from
 * there; the product restores after MPI_Init instead). Set at load time. */
void yk_mem_set_main_hook(void (*hook)(void));

/* The restore point, called in EVERY incarnation where a restarted process restores (the shim
 * after PMPI_Init, whether or not it restores; the test driver where it would restore): process
 * state the application registers before it (signal handlers, atexit functions, setlocale...) is
 * set again by the code that runs again in a fresh process, so only what it registers after this
 * call is carried (src/process_state.hpp). */
void yk_mem_restore_point(void);

#ifdef __cplusplus
}
#endif

#endif
