/* The application tests' baseline (tests/apps/README.md): heap data, a per-rank output file
 * written through stdio before and after the pause point, a ring exchange, rank 0 printing. What
 * the memory layer already carried before tests/apps existed; it proves the harness. Also
 * /dev/null, kept open across the pause point as a stream and as a raw descriptor and written
 * every iteration: it is carried (reopened by path, checkpoint/memory/README.md), so every write
 * after the restart succeeds; the counts printed at the end would differ otherwise. And a block
 * from MPI_Alloc_mem, updated every iteration and summed into the output: the library's allocation
 * would not be in the image, so the shim gives the application memory of its own arena
 * (pmpi-layer/src/shim/alloc_mem.cpp). And an MPI_Buffer_attach buffer that every iteration's
 * MPI_Bsend uses: the fresh library after a restart must have it attached again. And names given
 * to MPI_COMM_WORLD, a duplicate of it, a derived datatype and MPI_INT, read at the end: the
 * fresh library's objects must carry them again. And MPI_ERRORS_RETURN on MPI_COMM_WORLD, then an
 * error tied to no communicator at the end (MPI_Type_size of MPI_DATATYPE_NULL), which MPI raises
 * on MPI_COMM_WORLD: it must return, also after a restart over a rank map, where the app's world
 * is not the library's. And blocking calls the library rejects or that name MPI_PROC_NULL: the
 * answers MPI defines (the exit status says whether they were). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

static double step(double* values, int n, int rank, int size) {
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    values[i] = values[i] * 0.5 + (double)((i + rank) % 7);
    sum += values[i];
  }
  double from_left = 0;
  MPI_Sendrecv(&sum, 1, MPI_DOUBLE, (rank + 1) % size, 0, &from_left, 1, MPI_DOUBLE, (rank + size - 1) % size, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return sum + from_left;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 100000;
  double* values = calloc(n, sizeof *values);
  char name[64];
  snprintf(name, sizeof name, "log.%d.txt", rank);
  FILE* log = fopen(name, "w");
  FILE* null_stream = fopen("/dev/null", "w");
  const int null_fd = open("/dev/null", O_WRONLY);
  const int mem_n = 65536;
  long long* from_mpi = NULL;
  if (MPI_Alloc_mem((MPI_Aint)(mem_n * sizeof *from_mpi), MPI_INFO_NULL, &from_mpi) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < mem_n; ++i) from_mpi[i] = (long long)i * (rank + 1);
  const int bsend_size = 4096 + MPI_BSEND_OVERHEAD;
  char* bsend_buffer = malloc(bsend_size);
  MPI_Buffer_attach(bsend_buffer, bsend_size);
  if (!values || !log || !null_stream || null_fd < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Comm named_dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &named_dup);
  MPI_Comm_set_name(named_dup, "basics duplicate");
  MPI_Comm_set_name(MPI_COMM_WORLD, "basics world");
  MPI_Datatype named_type;
  MPI_Type_contiguous(3, MPI_DOUBLE, &named_type);
  MPI_Type_set_name(named_type, "three doubles");
  MPI_Type_set_name(MPI_INT, "basics int");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  long null_written = 0, null_failed = 0;
  for (int iteration = 0; iteration < 40; ++iteration) {
    if (iteration == 20) yk_app_pause_point(MPI_COMM_WORLD);
    double local = step(values, n, rank, size), total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    fprintf(log, "iteration %d local %.17g\n", iteration, local);
    if (fprintf(null_stream, "iteration %d\n", iteration) < 0 || fflush(null_stream) != 0) ++null_failed;
    const ssize_t wrote = write(null_fd, "0123456789", 10);
    if (wrote > 0)
      null_written += wrote;
    else
      ++null_failed;
    long long mem_sum = 0, mem_total = 0;
    for (int i = 0; i < mem_n; ++i) mem_sum += (from_mpi[i] = (from_mpi[i] * 3 + iteration) % 1000003);
    MPI_Bsend(&mem_sum, 1, MPI_LONG_LONG, (rank + 1) % size, 77, MPI_COMM_WORLD);
    long long from_left = 0;
    MPI_Recv(&from_left, 1, MPI_LONG_LONG, (rank + size - 1) % size, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    mem_sum += from_left % 7;
    MPI_Allreduce(&mem_sum, &mem_total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("iteration %d total %.17g alloc_mem %lld\n", iteration, total, mem_total);
  }
  fclose(log);
  long null_counts[3] = {null_written, null_failed, (fclose(null_stream) != 0) + (close(null_fd) != 0)}, all[3];
  MPI_Allreduce(null_counts, all, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("/dev/null: %ld bytes written, %ld failed writes, %ld failed closes\n", all[0], all[1], all[2]);
  char names[4][MPI_MAX_OBJECT_NAME];
  int name_length = 0;
  MPI_Comm_get_name(MPI_COMM_WORLD, names[0], &name_length);
  MPI_Comm_get_name(named_dup, names[1], &name_length);
  MPI_Type_get_name(named_type, names[2], &name_length);
  MPI_Type_get_name(MPI_INT, names[3], &name_length);
  if (rank == 0) printf("names: '%s' '%s' '%s' '%s'\n", names[0], names[1], names[2], names[3]);
  int null_size = 0;
  const int returned = MPI_Type_size(MPI_DATATYPE_NULL, &null_size) != MPI_SUCCESS;
  if (rank == 0) printf("an error tied to no communicator returned: %d\n", returned);
  /* Blocking calls with arguments the library rejects, and from MPI_PROC_NULL: the armed shim on
   * Open MPI posts below the public calls (pmpi-layer/src/cut/open_mpi_requests.h) and must answer
   * exactly as the library's MPI_Recv and MPI_Send do. */
  int word = 0, bad_recv_class = 0, bad_send_class = 0, null_count = -1;
  MPI_Error_class(MPI_Recv(&word, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, MPI_STATUS_IGNORE), &bad_recv_class);
  MPI_Error_class(MPI_Send(&word, 1, MPI_INT, size, 0, MPI_COMM_WORLD), &bad_send_class);
  MPI_Status null_status;
  MPI_Recv(&word, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &null_status);
  MPI_Get_count(&null_status, MPI_INT, &null_count);
  MPI_Status null_pair_status;
  int null_pair_count = -1;
  MPI_Sendrecv(&bad_recv_class, 1, MPI_INT, MPI_PROC_NULL, 4, &word, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD,
               &null_pair_status);
  MPI_Get_count(&null_pair_status, MPI_INT, &null_pair_count);
  if (rank == 0)
    printf("bad tag: %s; bad rank: %s; from MPI_PROC_NULL: source %s, tag %s, count %d; sendrecv: %s, %s, %d\n",
           bad_recv_class == MPI_ERR_TAG ? "MPI_ERR_TAG" : "another class",
           bad_send_class == MPI_ERR_RANK ? "MPI_ERR_RANK" : "another class",
           null_status.MPI_SOURCE == MPI_PROC_NULL ? "MPI_PROC_NULL" : "another",
           null_status.MPI_TAG == MPI_ANY_TAG ? "MPI_ANY_TAG" : "another", null_count,
           null_pair_status.MPI_SOURCE == MPI_PROC_NULL ? "MPI_PROC_NULL" : "another",
           null_pair_status.MPI_TAG == MPI_ANY_TAG ? "MPI_ANY_TAG" : "another", null_pair_count);
  const int answers_right = bad_recv_class == MPI_ERR_TAG && bad_send_class == MPI_ERR_RANK &&
                            null_status.MPI_SOURCE == MPI_PROC_NULL && null_status.MPI_TAG == MPI_ANY_TAG &&
                            null_count == 0 && null_pair_status.MPI_SOURCE == MPI_PROC_NULL &&
                            null_pair_status.MPI_TAG == MPI_ANY_TAG && null_pair_count == 0;
  MPI_Type_free(&named_type);
  MPI_Comm_free(&named_dup);
  free(values);
  MPI_Free_mem(from_mpi);
  int detached_size = 0;
  MPI_Buffer_detach(&bsend_buffer, &detached_size);
  free(bsend_buffer);
  MPI_Finalize();
  return answers_right ? 0 : 1;
}
