/* State the application's own code creates while MPI has called it back (tests/apps/README.md):
 * a user-defined reduction that allocates its history on its first call and appends to it on
 * every call; an attribute whose copy function allocates the copy when a communicator is
 * duplicated; an error handler, invoked with MPI_Comm_call_errhandler, that opens a log file and
 * keeps it open. All of that happens before the pause point; after it the history grows, the
 * duplicated communicator's attribute is read and the log written again. Rank 0 prints. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/apps/pause_point.h"

enum { kHistory = 256, kPayload = 32 };

struct Payload {
  int copies;
  double values[kPayload];
};

static double* history; /* allocated by the reduction's first call, inside MPI_Allreduce */
static int history_len;
static FILE* error_log; /* opened by the error handler, inside MPI_Comm_call_errhandler */
static int rank;

static void summing_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  if (!history) history = calloc(kHistory, sizeof *history);
  const double* a = in;
  double* b = inout;
  for (int i = 0; i < *len; ++i) {
    b[i] += a[i];
    if (history_len < kHistory) history[history_len++] = b[i];
  }
}

static int copy_payload(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)keyval;
  (void)extra;
  struct Payload* copy = malloc(sizeof *copy);
  memcpy(copy, in, sizeof *copy);
  copy->copies += 1;
  for (int i = 0; i < kPayload; ++i) copy->values[i] *= 2;
  *(void**)out = copy;
  *flag = 1;
  return MPI_SUCCESS;
}

static int free_payload(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  free(value);
  return MPI_SUCCESS;
}

static void log_error(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  if (!error_log) {
    char name[32];
    snprintf(name, sizeof name, "errors.%d.txt", rank);
    error_log = fopen(name, "w");
    if (!error_log) MPI_Abort(MPI_COMM_WORLD, 7);
  }
  fprintf(error_log, "error handler called with code %d\n", *code);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Op op;
  MPI_Op_create(summing_op, 1, &op);
  int keyval;
  MPI_Comm_create_keyval(copy_payload, free_payload, &keyval, NULL);
  MPI_Comm base, dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  struct Payload* original = malloc(sizeof *original);
  original->copies = 0;
  for (int i = 0; i < kPayload; ++i) original->values[i] = rank + i * 0.5;
  MPI_Comm_set_attr(base, keyval, original);
  MPI_Errhandler errh;
  MPI_Comm_create_errhandler(log_error, &errh);
  MPI_Comm_set_errhandler(base, errh);

  double total = 0;
  for (int iteration = 0; iteration < 30; ++iteration) {
    if (iteration == 3) MPI_Comm_call_errhandler(base, MPI_ERR_OTHER);
    if (iteration == 5) MPI_Comm_dup(base, &dup);
    if (iteration == 15) yk_app_pause_point(MPI_COMM_WORLD);
    double mine[2] = {rank + iteration * 0.125, 1.0 / (iteration + 1)}, sum[2];
    MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, op, base);
    total += sum[0] * sum[1];
    if (error_log) fprintf(error_log, "iteration %d sum %.17g\n", iteration, sum[0]);
    if (rank == 0) printf("iteration %d total %.17g\n", iteration, total);
  }
  MPI_Comm_call_errhandler(base, MPI_ERR_ARG);

  struct Payload* copied = NULL;
  int found = 0;
  MPI_Comm_get_attr(dup, keyval, &copied, &found);
  double payload_sum = 0;
  for (int i = 0; found && i < kPayload; ++i) payload_sum += copied->values[i];
  double history_sum = 0;
  for (int i = 0; i < history_len; ++i) history_sum += history[i];
  if (rank == 0) {
    printf("attribute of the duplicate: found %d, copies %d, sum %.17g\n", found, found ? copied->copies : -1,
           payload_sum);
    printf("reduction history: %d entries, sum %.17g\n", history_len, history_sum);
  }
  MPI_Comm_free(&dup);
  MPI_Comm_free(&base);
  MPI_Op_free(&op);
  MPI_Errhandler_free(&errh);
  if (error_log) fclose(error_log);
  MPI_Finalize();
  return 0;
}
