/* The no-op versions of the application API (yadokari.h). Under `yadokari run` the shim is
 * preloaded and its definitions of these symbols take precedence. */
#include "yadokari.h"

int yadokari_checkpoint(void) { return 0; }

/* Fortran (gfortran): CALL YADOKARI_CHECKPOINT() */
void yadokari_checkpoint_(void);
void yadokari_checkpoint_(void) { (void)yadokari_checkpoint(); }
