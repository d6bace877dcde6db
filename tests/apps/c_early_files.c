/* Output files opened before MPI_Init (tests/apps/README.md). A restarted process runs the code
 * before MPI_Init again (docs/architecture.md, pitfall 10), so these opens truncate again there:
 *   early.<rank>.txt   fopen "w" before MPI_Init, kept open, a line per iteration
 *   raw.<rank>.txt     open(O_WRONLY|O_CREAT|O_TRUNC) before MPI_Init, kept open, write(2) per iteration
 *   header.<rank>.txt  fopen "w" before MPI_Init, one line, closed before MPI_Init
 *   reopened.<rank>.txt  freopen "w" before MPI_Init of a stream opened on /dev/null, kept open, a
 *                      line per iteration
 *   emptied.<rank>.txt created and emptied with truncate(2) before MPI_Init, then appended to by
 *                      an fopen "a" per iteration: emptied again, it would lose the lines before
 *                      the checkpoint altogether
 *   wide.<rank>.txt    fopen "w,ccs=UTF-8" before MPI_Init (a wide stream with a conversion,
 *                      which fdopen cannot set up), kept open, a line with a non-ASCII character
 *                      per iteration (fwprintf)
 * Emptied again, early, raw, reopened and wide would hold zeros where the lines before the checkpoint
 * were (the restore reopens them at their checkpoint offsets); the header must be what the restarted
 * process wrote, no more: it ends with $YK_APP_TAIL_PAD from /proc/self/environ (the environment
 * as the process was started: the harness gives part1 alone a long one, --part1-env), so the
 * checkpointed run's header is longer than the restart's and the uninterrupted run's.
 * checkpoint/memory/README.md, "Files truncated again before the restore point". The rank comes
 * from the launcher's environment: MPI is not initialised yet. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "tests/apps/pause_point.h"

static const char* started_with(const char* name) {
  static char environment[65536];
  FILE* f = fopen("/proc/self/environ", "r");
  size_t len = f ? fread(environment, 1, sizeof environment - 1, f) : 0;
  if (f) fclose(f);
  environment[len] = '\0';
  const size_t name_len = strlen(name);
  for (size_t at = 0; at < len; at += strlen(environment + at) + 1)
    if (strncmp(environment + at, name, name_len) == 0 && environment[at + name_len] == '=')
      return environment + at + name_len + 1;
  return "";
}

int main(int argc, char** argv) {
  const char* launcher_rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!launcher_rank) launcher_rank = getenv("PMI_RANK");
  if (!launcher_rank) return 3;
  char name[64];
  snprintf(name, sizeof name, "header.%s.txt", launcher_rank);
  FILE* header = fopen(name, "w");
  if (!header) return 4;
  fprintf(header, "header of rank %s%s\n", launcher_rank, started_with("YK_APP_TAIL_PAD"));
  fclose(header);
  snprintf(name, sizeof name, "early.%s.txt", launcher_rank);
  FILE* early = fopen(name, "w");
  snprintf(name, sizeof name, "raw.%s.txt", launcher_rank);
  const int raw = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  snprintf(name, sizeof name, "reopened.%s.txt", launcher_rank);
  FILE* reopened = fopen("/dev/null", "w");
  if (reopened) reopened = freopen(name, "w", reopened);
  snprintf(name, sizeof name, "emptied.%s.txt", launcher_rank);
  const int created = open(name, O_WRONLY | O_CREAT, 0644);
  if (created >= 0) close(created);
  if (!early || raw < 0 || !reopened || created < 0 || truncate(name, 0) != 0) return 5;
  char emptied[64];
  snprintf(emptied, sizeof emptied, "%s", name);
  snprintf(name, sizeof name, "wide.%s.txt", launcher_rank);
  FILE* wide = fopen(name, "w,ccs=UTF-8");
  if (!wide) return 9;

  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != atoi(launcher_rank)) MPI_Abort(MPI_COMM_WORLD, 6);
  long sum = 0;
  char line[128];
  for (int iteration = 0; iteration < 30; ++iteration) {
    if (iteration == 15) yk_app_pause_point(MPI_COMM_WORLD);
    long mine = (long)(iteration + 2) * (rank + 5), total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum += total;
    fprintf(early, "iteration %d total %ld\n", iteration, total);
    fprintf(reopened, "iteration %d sum %ld\n", iteration, sum);
    fwprintf(wide, L"it\u00e9ration %d total %ld\n", iteration, total);
    FILE* appended = fopen(emptied, "a");
    if (!appended) MPI_Abort(MPI_COMM_WORLD, 8);
    fprintf(appended, "iteration %d mine %ld\n", iteration, mine);
    fclose(appended);
    const int len = snprintf(line, sizeof line, "rank %d iteration %d sum %ld\n", rank, iteration, sum);
    if (write(raw, line, (size_t)len) != len) MPI_Abort(MPI_COMM_WORLD, 7);
    if (rank == 0) printf("iteration %d sum %ld\n", iteration, sum);
  }
  fclose(early);
  fclose(reopened);
  fclose(wide);
  close(raw);
  MPI_Finalize();
  return 0;
}
