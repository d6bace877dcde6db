/* Files the application opens again for every line, without truncating them, and that were not
 * open at the checkpoint (tests/apps/README.md): the image does not know them, so what the run
 * that went on past the checkpoint wrote into them must be cut away by the open journal
 * (checkpoint/memory/README.md, "Files appended to after the checkpoint"), or the restarted run
 * writes it a second time. Four kinds, each opened and closed again at every iteration:
 *   appended.<rank>.txt  stdio, fopen "a" (the common logging pattern)
 *   shared.txt           open(O_WRONLY|O_APPEND|O_CREAT) + write(2) by every rank, in rank order
 *   records.<rank>.bin   fopen "r+" (O_RDWR without O_TRUNC), a record written past the end
 *   late.<rank>.txt      fopen "a", first created only after the pause point
 * After the pause point each line ends with $YK_APP_TAIL_PAD, which the harness sets for the run
 * that goes on past the checkpoint only (app_restart.sh --run-on --part1-env): that run's lines
 * are longer than the restarted run's, so a file cut at the wrong size cannot match either. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

/* YK_APP_TAIL_PAD as the process was started with it (see c_file_tails.c: the environment is
 * carried by a restart, /proc/self/environ is the fresh process's). */
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

static void append_line(const char* path, const char* line) {
  FILE* f = fopen(path, "a");
  if (!f || fputs(line, f) == EOF || fclose(f) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char appended[64], records[64], late[64];
  snprintf(appended, sizeof appended, "appended.%d.txt", rank);
  snprintf(records, sizeof records, "records.%d.bin", rank);
  snprintf(late, sizeof late, "late.%d.txt", rank);
  FILE* created = fopen(records, "w");
  if (!created || fclose(created) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  long sum = 0;
  char line[512];
  for (int iteration = 0; iteration < 30; ++iteration) {
    const int after = iteration >= 15;
    if (iteration == 15) yk_app_pause_point(MPI_COMM_WORLD);
    long mine = (long)(iteration + 1) * (rank + 3), total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum += total;
    snprintf(line, sizeof line, "rank %d iteration %d total %ld sum %ld%s\n", rank, iteration, total, sum, pad(after));
    append_line(appended, line);
    if (iteration >= 20) append_line(late, line);
    for (int turn = 0; turn < size; ++turn) {
      if (turn == rank) {
        const int fd = open("shared.txt", O_WRONLY | O_APPEND | O_CREAT, 0644);
        const size_t len = strlen(line);
        if (fd < 0 || write(fd, line, len) != (ssize_t)len || close(fd) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    FILE* r = fopen(records, "r+");
    const long record[2] = {iteration, sum};
    if (!r || fseek(r, 0, SEEK_END) != 0 || fwrite(record, sizeof record, 1, r) != 1 || fputs(pad(after), r) == EOF ||
        fclose(r) != 0)
      MPI_Abort(MPI_COMM_WORLD, 4);
    if (rank == 0) printf("iteration %d sum %ld\n", iteration, sum);
  }
  MPI_Finalize();
  return 0;
}
