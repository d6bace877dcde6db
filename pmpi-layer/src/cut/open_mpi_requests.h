/* Open MPI's requests as its own MPI_Recv and MPI_Wait handle them inside the library: a receive
 * posted through the PML, a request complete when its completion word says so, progress made with
 * opal_progress. The armed blocking calls (cut/interruptible.cpp) must post a request and poll it
 * so that a cut can stop the wait; through the public MPI_Irecv, MPI_Test and
 * MPI_Request_get_status that costs over a hundred instructions more per receive than these calls,
 * which skip the public calls' dispatch and bookkeeping, not their argument checks. Built only for
 * Open MPI, from the internal headers its package installs next to mpi.h (the same pkg-config
 * include path), and used only when the library at run time is the version those headers describe.
 * C: Open MPI's internal headers do not compile as C++. */
#pragma once

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The posts' answer when the public call (MPI_Irecv) must take it: arguments the library
 * would reject (its error handler then reports them as that call would) or MPI_PROC_NULL. */
enum { YK_OMPI_ASK_LIBRARY = -1 };

/* Whether the Open MPI running is the version of the headers this file was built with. */
int yk_ompi_direct_usable(void);

/* MPI_Irecv's checks, then the PML's irecv: MPI_SUCCESS, an error the communicator's handler has
 * seen, or YK_OMPI_ASK_LIBRARY. */
int yk_ompi_post_receive(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                         MPI_Request* request);

/* Whether the library's request `request` (active, not MPI_REQUEST_NULL) is complete; no progress. */
int yk_ompi_request_done(MPI_Request request);

/* One turn of Open MPI's progress engine, as each look of MPI_Test or MPI_Wait makes. */
void yk_ompi_progress(void);

/* Whether that turn gives up the processor when it found nothing to do (opal_progress_yield_when_idle:
 * mpi_yield_when_idle, which mpirun turns on for an oversubscribed node). Any Open MPI version. */
int yk_ompi_progress_yields_when_idle(void);

/* Finishes a complete request as MPI_Test would: status copied, request freed (*request becomes
 * MPI_REQUEST_NULL). A request in error, persistent or generalized goes through PMPI_Test itself. */
int yk_ompi_finish_request(MPI_Request* request, MPI_Status* status);

#ifdef __cplusplus
}
#endif
