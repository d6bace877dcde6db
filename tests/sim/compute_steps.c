/* compute_steps: a bulk-synchronous, compute-bound job for the `speed` placement test.
 *
 * In each of STEPS steps every rank does the same amount of integer work (ROUNDS passes of a
 * multiply-xor mix over a small, cache-resident array), then the ranks add their checksums with
 * MPI_Allreduce. A rank on a slower node takes longer per step while the others wait inside the
 * Allreduce, so the time each rank spends outside MPI tells the nodes apart. The ring and the
 * other examples spend most of their time communicating on a throttled node instead.
 * Output (rank 0): a line every 50 steps and `final <checksum>`; integer arithmetic whose inputs
 * depend only on the logical rank and the step, so it is the same for every placement.
 * With YK_APP_PAUSE set the ranks wait half way at the pause point (tests/apps/pause_point.h): the
 * requeue test's first run is checkpointed there, mid-work, whatever the machine's speed.
 *
 * usage: compute_steps STEPS ROUNDS
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/apps/pause_point.h"

enum { WORDS = 512 };

static uint64_t state[WORDS]; /* in the executable's bss: part of the rank's image */

static uint64_t work(int rounds) {
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < WORDS; ++i)
      state[i] = state[i] * 6364136223846793005ull + (state[(i + 1) % WORDS] ^ (uint64_t)r);
  uint64_t sum = 0;
  for (int i = 0; i < WORDS; ++i) sum ^= state[i] + (uint64_t)i;
  return sum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int steps = argc > 1 ? atoi(argv[1]) : 100, rounds = argc > 2 ? atoi(argv[2]) : 1000;
  if (steps < 1 || rounds < 1) {
    if (rank == 0) fprintf(stderr, "usage: compute_steps STEPS ROUNDS (both at least 1)\n");
    MPI_Finalize();
    return 2;
  }
  for (int i = 0; i < WORDS; ++i) state[i] = (uint64_t)rank * 1000003u + (uint64_t)i;
  uint64_t total = 0;
  for (int step = 1; step <= steps; ++step) {
    if (step == steps / 2 + 1) yk_app_pause_point(MPI_COMM_WORLD);
    uint64_t mine = work(rounds) ^ (uint64_t)step, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    total = total * 31u + sum;
    if (rank == 0 && step % 50 == 0) printf("step %d checksum %llu\n", step, (unsigned long long)total);
  }
  if (rank == 0) printf("final %llu\n", (unsigned long long)total);
  MPI_Finalize();
  return 0;
}
