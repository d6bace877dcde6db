/* After the shim re-creates every MPI object of the app on the library from its creation log
 * (as it will after a restart), the app's handles keep working: communicators made by split,
 * create (with ranks that got MPI_COMM_NULL), Cartesian topologies and sub-grids, groups,
 * derived datatypes (some of whose parents were freed), a user op and an error handler; and
 * thousands of objects made and freed before it are not made again.
 *   replay_objects        the objects re-made on the same library (yadokari_replay_objects)
 *   replay_objects swap [N]  the process swaps its MPI library for a fresh copy N times (default 1),
 *                         each initialized by a new launch (yadokari_swap_library;
 *                         pmpi-layer/tests/run_swap_case.sh): the same objects, the same pid, a
 *                         new world, rounds 2 to N+1
 *   replay_objects swap-exhausted  every link namespace glibc has is taken first (dlmopen of libm):
 *                         the swap must refuse with its one line while the job is whole, and
 *                         round 2 runs in the same launch
 * Natively neither happens; the output must be the same. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned long yadokari_replay_objects(void) __attribute__((weak));
int yadokari_swap_library(void) __attribute__((weak));

static void max_abs(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) {
    int a = ((int*)in)[i] < 0 ? -((int*)in)[i] : ((int*)in)[i];
    if (a > ((int*)inout)[i]) ((int*)inout)[i] = a;
  }
}

/* A predefined datatype and op the program never names: what the library gives for Fortran
 * integers (Open MPI's MPI_DOUBLE_PRECISION is 17 and MPI_PROD 4 in its mpif-handles.h; MPICH's
 * Fortran integers are its handles), as a Fortran binding holds them during a call that a cut
 * interrupts. The library copy a swap brings in must take those addresses as its own objects (the
 * first copy's predefined op is torn down by its finalize). */
static MPI_Datatype fortran_double_precision(void) {
#ifdef OPEN_MPI
  return MPI_Type_f2c(17);
#else
  return MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE_PRECISION));
#endif
}
static MPI_Op fortran_prod(void) {
#ifdef OPEN_MPI
  return MPI_Op_f2c(4);
#else
  return MPI_Op_f2c(MPI_Op_c2f(MPI_PROD));
#endif
}

static int handled = 0;
static void on_error(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  (void)code;
  ++handled;
}

static void use_objects(int round, int rank, int size, MPI_Comm half, MPI_Comm evens, MPI_Comm cart, MPI_Comm row,
                        MPI_Datatype pair_stride, MPI_Op op, MPI_Group odd_group) {
  int v = rank + 1, sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half);
  int even_sum = -1;
  if (evens != MPI_COMM_NULL) MPI_Allreduce(&v, &even_sum, 1, MPI_INT, MPI_SUM, evens);
  int coords[2] = {0, 0}, src, dst;
  MPI_Cart_coords(cart, rank, 2, coords);
  MPI_Cart_shift(cart, 1, 1, &src, &dst);
  int row_sum = 0;
  MPI_Allreduce(&v, &row_sum, 1, MPI_INT, MPI_SUM, row);
  double data[8], got[8] = {0};
  for (int i = 0; i < 8; ++i) data[i] = rank * 10 + i;
  MPI_Sendrecv(data, 1, pair_stride, (rank + 1) % size, 5, got, 1, pair_stride, (rank + size - 1) % size, 5,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int signed_v = (rank % 2) ? -(rank * 3) : rank, maxabs = 0;
  MPI_Allreduce(&signed_v, &maxabs, 1, MPI_INT, op, MPI_COMM_WORLD);
  int odd_rank;
  MPI_Group_rank(odd_group, &odd_rank);
  int bad = MPI_Send(&v, 1, MPI_INT, size + 3, 0, half);
  printf(
      "round %d rank %d: half %d evens %d cart (%d,%d) %d->%d row %d strided %.0f %.0f %.0f maxabs %d odd %d err %d "
      "handled %d\n",
      round, rank, sum, even_sum, coords[0], coords[1], src, dst, row_sum, got[0], got[2], got[6], maxabs, odd_rank,
      bad != MPI_SUCCESS, handled);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm half, evens, cart, row;
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, size - rank, &half);
  MPI_Group world_group, even_group, odd_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int range[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world_group, 1, range, &even_group);
  MPI_Group_difference(world_group, even_group, &odd_group);
  MPI_Comm_create(MPI_COMM_WORLD, even_group, &evens);
  int dims[2] = {0, 0}, periods[2] = {1, 0}, remain[2] = {0, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Cart_sub(cart, remain, &row);
  MPI_Group_free(&world_group);
  MPI_Group_free(&even_group);

  /* A parent type freed before its child is used: the replay must still re-create it. */
  MPI_Datatype pair, pair_stride;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_vector(2, 1, 3, pair, &pair_stride);
  MPI_Type_free(&pair);
  MPI_Type_commit(&pair_stride);

  MPI_Op op;
  MPI_Op_create(max_abs, 1, &op);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(on_error, &eh);
  MPI_Comm_set_errhandler(half, eh);

  /* Made and freed per step, as solvers and I/O libraries do (a datatype per halo exchange, a
   * group per query, an info per file open): the shim's creation log must not keep them, or it
   * grows without end and the replay re-makes every one (run_shim_case.sh checks the count). */
  for (int step = 0; step < 5000; ++step) {
    MPI_Datatype churn_type;
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &churn_type);
    MPI_Type_commit(&churn_type);
    MPI_Type_free(&churn_type);
    MPI_Group churn_group;
    MPI_Comm_group(half, &churn_group);
    MPI_Group_free(&churn_group);
    MPI_Info churn_info;
    MPI_Info_create(&churn_info);
    MPI_Info_free(&churn_info);
  }

  use_objects(1, rank, size, half, evens, cart, row, pair_stride, op, odd_group);
  const MPI_Datatype handed_out = fortran_double_precision();
  char type_name[MPI_MAX_OBJECT_NAME];
  int name_length = 0;
  MPI_Type_get_name(handed_out, type_name, &name_length);
  if (strcmp(type_name, "MPI_DOUBLE_PRECISION") != 0) MPI_Abort(MPI_COMM_WORLD, 5);
  const MPI_Op handed_out_op = fortran_prod();
  const pid_t pid = getpid();
  if (argc > 1 && strcmp(argv[1], "swap-exhausted") == 0) {
    int taken = 0;
    while (dlmopen(LM_ID_NEWLM, "libm.so.6", RTLD_NOW)) ++taken;
    if (!yadokari_swap_library || yadokari_swap_library() == MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 4);
    use_objects(2, rank, size, half, evens, cart, row, pair_stride, op, odd_group);
    printf("rank %d: the swap refused after %d namespaces were taken; the job went on\n", rank, taken);
  }
  const int swap = argc > 1 && strcmp(argv[1], "swap") == 0;
  const int rounds = 1 + (swap && argc > 2 ? atoi(argv[2]) : 1);
  for (int round = 2; round <= rounds; ++round) {
    if (swap) {
      if (yadokari_swap_library && yadokari_swap_library() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
    } else if (yadokari_replay_objects) {
      yadokari_replay_objects();
    }
    use_objects(round, rank, size, half, evens, cart, row, pair_stride, op, odd_group);
    double two = 2.0, product = 0.0;
    MPI_Allreduce(&two, &product, 1, handed_out, handed_out_op, MPI_COMM_WORLD);
    printf("rank %d: round %d: a product with a datatype and an op handed out by the library: %g\n", rank, round,
           product);
    printf("rank %d: the same process as in round 1: %s\n", rank, getpid() == pid ? "yes" : "no");
  }

  MPI_Errhandler_free(&eh);
  MPI_Op_free(&op);
  MPI_Type_free(&pair_stride);
  MPI_Group_free(&odd_group);
  if (evens != MPI_COMM_NULL) MPI_Comm_free(&evens);
  MPI_Comm_free(&row);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
