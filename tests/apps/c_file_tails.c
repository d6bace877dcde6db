/* Files written past the checkpoint by a run that then failed (tests/apps/README.md): the restarted
 * run writes the same lines again from the checkpoint's offset, but where it writes fewer bytes
 * than the failed run did (a line with a time in it, a digit shorter), the rest of the old tail
 * must not stay in the file (checkpoint/memory/README.md, "Files written after the checkpoint").
 * Three kinds of file, each written before and after the pause point:
 *   tail.<rank>.txt   stdio, fopen "w"
 *   raw.<rank>.txt    write(2) on open(O_WRONLY|O_CREAT|O_TRUNC)
 *   shared.txt        one file every rank appends to with write(2) on O_APPEND, in rank order
 * After the pause point each line ends with $YK_APP_TAIL_PAD, read again at every line: the
 * harness sets it for the run that goes on past the checkpoint only (app_restart.sh --run-on
 * --part1-env), so that run's tail is longer than the restarted run's, which the uninterrupted
 * reference's must equal. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

/* YK_APP_TAIL_PAD as the process was started with it: from /proc/self/environ, not getenv(),
 * because the environment is application state that a restart carries (part1's would come back). */
static const char* pad(int after_pause) {
  static char environment[65536];
  if (!after_pause) return "";
  FILE* f = fopen("/proc/self/environ", "r");
  size_t len = f ? fread(environment, 1, sizeof environment - 1, f) : 0;
  if (f) fclose(f);
  environment[len] = '\0';
  for (size_t at = 0; at < len; at += strlen(environment + at) + 1)
    if (strncmp(environment + at, "YK_APP_TAIL_PAD=", 16) == 0) return environment + at + 16;
  return "";
}

static void write_line(int fd, const char* line) {
  const size_t len = strlen(line);
  if (write(fd, line, len) != (ssize_t)len) MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char name[64];
  snprintf(name, sizeof name, "tail.%d.txt", rank);
  FILE* tail = fopen(name, "w");
  snprintf(name, sizeof name, "raw.%d.txt", rank);
  const int raw = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (rank == 0) close(open("shared.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644));
  MPI_Barrier(MPI_COMM_WORLD);
  const int shared = open("shared.txt", O_WRONLY | O_APPEND);
  if (!tail || raw < 0 || shared < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  long sum = 0;
  char line[512];
  for (int iteration = 0; iteration < 30; ++iteration) {
    const int after = iteration >= 15;
    if (iteration == 15) yk_app_pause_point(MPI_COMM_WORLD);
    long mine = (long)(iteration + 1) * (rank + 3), total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum += total;
    fprintf(tail, "iteration %d total %ld%s\n", iteration, total, pad(after));
    snprintf(line, sizeof line, "rank %d iteration %d sum %ld%s\n", rank, iteration, sum, pad(after));
    write_line(raw, line);
    for (int turn = 0; turn < size; ++turn) {
      if (turn == rank) write_line(shared, line);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) printf("iteration %d sum %ld\n", iteration, sum);
  }
  fclose(tail);
  close(raw);
  close(shared);
  MPI_Finalize();
  return 0;
}
