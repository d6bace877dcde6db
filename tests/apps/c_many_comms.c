/* Communicators and datatypes made and freed by the thousand (a dup and a datatype per step,
 * freed at its end, as libraries and solvers do) before the pause point, then one more after it. The restart re-makes the
 * application's objects from the shim's creation log, which keeps the freed ones too (a later
 * object may have been made from them, and each member must take part in every collective
 * creation its peers replay): the re-made ones nobody holds any more must be freed again as the
 * replay goes, or MPICH runs out of context ids (about 2,000 live communicators) and the restart
 * fails. The datatypes, local objects, are dropped from the log as they go, except one a kept
 * datatype was made from. Rank 0 prints a sum over the ranks before and after. */
#include <mpi.h>
#include <stdio.h>

#include "tests/apps/pause_point.h"

enum { kMadeAndFreed = 3000 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long local = 0;
  MPI_Comm kept;          /* made in the middle of the churn and still held: must survive it */
  MPI_Datatype kept_type; /* the same, made from a datatype freed at once */
  for (int i = 0; i < kMadeAndFreed; ++i) {
    MPI_Comm step;
    MPI_Comm_dup(MPI_COMM_WORLD, &step);
    if (i == kMadeAndFreed / 2) {
      MPI_Comm_split(step, 0, -rank, &kept);
      MPI_Datatype pair;
      MPI_Type_contiguous(2, MPI_INT, &pair);
      MPI_Type_vector(2, 1, 3, pair, &kept_type);
      MPI_Type_free(&pair);
      MPI_Type_commit(&kept_type);
    }
    MPI_Datatype step_type;
    MPI_Type_contiguous(i % 3 + 1, MPI_INT, &step_type);
    MPI_Type_commit(&step_type);
    int step_size = 0;
    MPI_Type_size(step_type, &step_size);
    local += step_size;
    MPI_Type_free(&step_type);
    int step_rank = 0;
    MPI_Comm_rank(step, &step_rank);
    local += step_rank + i % 7;
    MPI_Comm_free(&step);
  }
  long before = 0;
  MPI_Allreduce(&local, &before, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("before the pause point: %ld\n", before);
  yk_app_pause_point(MPI_COMM_WORLD);
  MPI_Comm after;
  MPI_Comm_dup(MPI_COMM_WORLD, &after);
  int kept_rank = 0;
  MPI_Comm_rank(kept, &kept_rank);
  /* kept_type picks ints 0, 1, 6, 7 of 8 */
  int row[8], picked[8] = {0};
  for (int i = 0; i < 8; ++i) row[i] = 10 * rank + i;
  MPI_Sendrecv(row, 1, kept_type, rank, 3, picked, 1, kept_type, rank, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  long mine = local + kept_rank + picked[0] + picked[1] + picked[6] + picked[7], total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, after);
  if (rank == 0) printf("after the pause point: %ld\n", total);
  MPI_Comm_free(&after);
  MPI_Comm_free(&kept);
  MPI_Type_free(&kept_type);
  MPI_Finalize();
  return 0;
}
