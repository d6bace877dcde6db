/* yadokari application API: optional calls for programs that want to say where a checkpoint is
 * convenient (the "self-checkpointing" of program-initiated checkpoint systems). Link with
 * -lyadokari-api; every call is a no-op returning 0 when the program does not run under
 * yadokari with checkpoints on (the shim, preloaded by `yadokari run`, replaces them). */
#ifndef YADOKARI_H
#define YADOKARI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Asks for a global checkpoint now and takes part in it from this call. Call it from every rank
 * at the same point of the program (e.g. at the end of an iteration); the checkpoint completes
 * when all ranks have reached a consistent point. Returns 0. Fortran: CALL YADOKARI_CHECKPOINT(). */
int yadokari_checkpoint(void);

#ifdef __cplusplus
}
#endif

#endif
