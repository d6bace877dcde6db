/* See open_mpi_requests.h. The checks and calls follow Open MPI 4.1's own MPI_Irecv and
 * MPI_Test (ompi/mpi/c/irecv.c, ompi_request_default_test), minus what they do for
 * the tools interfaces the shim does not use (memchecker, checkpoint/restart hooks, counters). */
#include "pmpi-layer/src/cut/open_mpi_requests.h"

#include <stdio.h>
#include <string.h>

#include "ompi_config.h"
#include "ompi/communicator/communicator.h"
#include "ompi/errhandler/errhandler.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/mpi/c/bindings.h"
#include "ompi/request/request.h"
#include "opal/runtime/opal_progress.h"
#include "opal/sys/atomic.h"

int yk_ompi_direct_usable(void) {
  char running[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  if (PMPI_Get_library_version(running, &length) != MPI_SUCCESS) return 0;
  char built[64];
  snprintf(built, sizeof built, "Open MPI v%d.%d.%d,", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION);
  return strncmp(running, built, strlen(built)) == 0;
}

int yk_ompi_post_receive(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                         MPI_Request* request) {
  int rc = MPI_SUCCESS;
  OMPI_CHECK_DATATYPE_FOR_RECV(rc, type, count);
  OMPI_CHECK_USER_BUFFER(rc, buf, type, count);
  if (rc != MPI_SUCCESS || ompi_comm_invalid(comm) || (tag < 0 && tag != MPI_ANY_TAG) || tag > mca_pml.pml_max_tag ||
      source == MPI_PROC_NULL || (source != MPI_ANY_SOURCE && ompi_comm_peer_invalid(comm, source)))
    return YK_OMPI_ASK_LIBRARY;
  rc = MCA_PML_CALL(irecv(buf, count, type, source, tag, comm, request));
  if (rc == MPI_SUCCESS) return MPI_SUCCESS;
  return OMPI_ERRHANDLER_INVOKE(comm, rc, "MPI_Irecv");
}

int yk_ompi_request_done(MPI_Request request) { return REQUEST_COMPLETE(request); }

void yk_ompi_progress(void) { opal_progress(); }

int yk_ompi_progress_yields_when_idle(void) { return opal_progress_yield_when_idle ? 1 : 0; }

int yk_ompi_finish_request(MPI_Request* request, MPI_Status* status) {
  ompi_request_t* const done = *request;
  opal_atomic_rmb(); /* the status is read after the completion word said complete */
  if (done->req_status.MPI_ERROR != MPI_SUCCESS || done->req_persistent || done->req_type == OMPI_REQUEST_GEN) {
    int flag = 0;
    return PMPI_Test(request, &flag, status);
  }
  if (status != MPI_STATUS_IGNORE) {
    OMPI_COPY_STATUS(status, done->req_status, false);
  }
  return ompi_request_free(request);
}
