/* Descriptors that share one open file (tests/apps/README.md): a dup, an fcntl(F_DUPFD) copy and a
 * stream fdopen'ed on a dup write in turn, each where the last one stopped, since they share one
 * offset. A restart that reopened each on its own (checkpoint/memory/README.md, "The
 * application's files") would give each its own offset: their lines would overwrite each other
 * and the file would differ from an uninterrupted run's, exit 0.
 * Per rank, all kept open across the pause point:
 *   log.<rank>.txt   written through `first`, its dup and its F_DUPFD copy in turn
 *   mixed.<rank>.txt written with write(2) and through a stream fdopen'ed on a dup of it
 *   apart.<rank>.txt the same file opened twice (two offsets): must stay two after a restart
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

static void must(int ok, int code) {
  if (!ok) MPI_Abort(MPI_COMM_WORLD, code);
}

static int make(const char* stem, int rank) {
  char name[64];
  snprintf(name, sizeof name, "%s.%d.txt", stem, rank);
  return open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
}

static void line(int fd, const char* who, int iteration) {
  char text[64];
  const int n = snprintf(text, sizeof text, "iteration %02d through %s\n", iteration, who);
  must(write(fd, text, (size_t)n) == n, 2);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int first = make("log", rank);
  const int second = dup(first);
  const int third = fcntl(first, F_DUPFD, 0);
  const int mixed = make("mixed", rank);
  FILE* stream = fdopen(dup(mixed), "w");
  const int apart = make("apart", rank);
  char name[64];
  snprintf(name, sizeof name, "apart.%d.txt", rank);
  const int apart_too = open(name, O_RDWR);
  must(first >= 0 && second >= 0 && third >= 0 && mixed >= 0 && stream && apart >= 0 && apart_too >= 0, 1);
  for (int iteration = 0; iteration < 30; ++iteration) {
    if (iteration == 15) yk_app_pause_point(MPI_COMM_WORLD);
    line(first, "the first", iteration);
    line(second, "its dup", iteration);
    line(third, "its F_DUPFD copy", iteration);
    line(mixed, "write(2)", iteration);
    fprintf(stream, "iteration %02d through the stream\n", iteration);
    must(fflush(stream) == 0, 3);
    line(apart, "one descriptor", iteration);
    line(apart_too, "the other", iteration); /* over the line just written: the same offset */
    const long where = (long)lseek(first, 0, SEEK_CUR);
    long sum = 0;
    MPI_Allreduce(&where, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("iteration %d log offsets %ld\n", iteration, sum);
  }
  fclose(stream);
  close(first);
  close(second);
  close(third);
  close(mixed);
  close(apart);
  close(apart_too);
  MPI_Finalize();
  return 0;
}
