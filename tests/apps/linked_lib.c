/* A library the program links at build time (loaded before main, not with dlopen), as an
 * application's own libfoo.so or a solver library it calls: its state is in its .data, .bss and
 * TLS block, plus a block it allocates after main and a communicator it duplicates on its first
 * call (libraries such as PETSc and HDF5 keep one). checkpoint/memory/README.md, "Libraries linked
 * with the application": what the application made of it since main is carried; what its
 * constructor set (here a value derived from the pid) stays the fresh process's. */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

static long calls;                  /* .bss */
static long scale = 3;              /* .data */
static __thread long tls_state = 2; /* its TLS block in the static TLS area */
static long* history;               /* an arena block allocated after main */
static MPI_Comm lib_comm = MPI_COMM_NULL;
static long owner; /* set by the constructor: the process's own */

__attribute__((constructor)) static void init(void) { owner = (long)getpid() * 7919 + 1; }

long yk_linked_step(MPI_Comm comm, long x) {
  if (lib_comm == MPI_COMM_NULL) MPI_Comm_dup(comm, &lib_comm);
  if (!history) history = calloc(64, sizeof *history);
  ++calls;
  tls_state = tls_state * 5 % 10007;
  scale = scale * 7 % 1000003;
  history[calls % 64] += x * scale;
  long local = x * scale + calls + tls_state + history[(calls + 17) % 64], all = 0;
  MPI_Allreduce(&local, &all, 1, MPI_LONG, MPI_SUM, lib_comm);
  return all;
}

int yk_linked_owner_is_this_process(void) { return owner == (long)getpid() * 7919 + 1; }
