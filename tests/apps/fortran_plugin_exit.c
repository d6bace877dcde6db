/* The C part of the Fortran library c_fortran_plugin.c loads (tests/apps/README.md): its constructor
 * registers an exit handler with on_exit, which has no DSO handle. The restore runs the constructor
 * again when it loads the library; the handler must still run once, in the first run's order
 * (after the application's atexit handler registered after the dlopen). */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>

static int exit_rank = -1; /* set by the program; .bss, carried */

static void plugin_exit(int code, void* argument) {
  if (exit_rank == 0) printf("plugin's on_exit handler ran: code %d, %s\n", code, (const char*)argument);
}

__attribute__((constructor)) static void register_exit(void) { on_exit(plugin_exit, "registered by its constructor"); }

void yk_fplugin_exit_rank(int rank) { exit_rank = rank; }
