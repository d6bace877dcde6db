/* Files updated through shared mappings by a run that then failed (tests/apps/README.md): the run
 * that goes on past the checkpoint stores into files mapped MAP_SHARED, and the restarted run maps
 * and reads them back. Unless the restart puts the file bytes back as they were at the checkpoint
 * (checkpoint/memory/README.md, "Files overwritten after the checkpoint"), it adds its iterations
 * to the failed run's and every sum below comes out larger, with exit 0.
 * Per rank, 8 counters per file, each iteration one counter read, added to and stored back:
 *   kept.<rank>.bin     mapped writable once, before the checkpoint (its descriptor closed)
 *   late.<rank>.bin     opened and mapped writable at every iteration, unmapped again
 *   guarded.<rank>.bin  mapped read-only; made writable with mprotect around each store
 *   grown.<rank>.bin    a one-page writable mapping grown with mremap to two pages after the
 *                       pause point; the counters of the second page are stored from then on
 *   extended.<rank>.bin mapped writable once, before the checkpoint; from iteration 20 on the
 *                       file is lengthened by a page with truncate(2) by its path (no descriptor
 *                       open at the checkpoint sees it) and its length is printed: unless the
 *                       restart cuts it back to its length at the checkpoint, the restarted run
 *                       prints the failed run's length at iterations 15-19.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

enum { kPage = 4096 };

static void must(int ok, int code) {
  if (!ok) MPI_Abort(MPI_COMM_WORLD, code);
}

/* A file of `bytes` zero bytes, open read-write. */
static int make_file(const char* stem, int rank, long bytes) {
  char name[64];
  snprintf(name, sizeof name, "%s.%d.bin", stem, rank);
  const int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
  must(fd >= 0 && ftruncate(fd, bytes) == 0, 1);
  return fd;
}

static int64_t* map_file(int fd, long bytes, int prot) {
  void* p = mmap(NULL, (size_t)bytes, prot, MAP_SHARED, fd, 0);
  must(p != MAP_FAILED, 2);
  return (int64_t*)p;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int fd = make_file("kept", rank, kPage);
  int64_t* kept = map_file(fd, kPage, PROT_READ | PROT_WRITE);
  close(fd);
  close(make_file("late", rank, kPage));
  fd = make_file("guarded", rank, kPage);
  int64_t* guarded = map_file(fd, kPage, PROT_READ);
  close(fd);
  fd = make_file("grown", rank, 2 * kPage);
  int64_t* grown = map_file(fd, kPage, PROT_READ | PROT_WRITE);
  close(fd);
  fd = make_file("extended", rank, kPage);
  int64_t* extended = map_file(fd, kPage, PROT_READ | PROT_WRITE);
  close(fd);
  char extended_name[64];
  snprintf(extended_name, sizeof extended_name, "extended.%d.bin", rank);

  for (int iteration = 0; iteration < 30; ++iteration) {
    if (iteration == 15) yk_app_pause_point(MPI_COMM_WORLD);
    const int slot = iteration % 8;
    const int64_t step = (int64_t)(iteration + 1) * (rank + 1);
    kept[slot] += step;

    char name[64];
    snprintf(name, sizeof name, "late.%d.bin", rank);
    fd = open(name, O_RDWR);
    must(fd >= 0, 3);
    int64_t* late = map_file(fd, kPage, PROT_READ | PROT_WRITE);
    close(fd);
    late[slot] += 2 * step;
    must(munmap(late, kPage) == 0, 3);

    must(mprotect(guarded, kPage, PROT_READ | PROT_WRITE) == 0, 4);
    guarded[slot] += 3 * step;
    must(mprotect(guarded, kPage, PROT_READ) == 0, 4);

    if (iteration == 20) {
      void* p = mremap(grown, kPage, 2 * kPage, MREMAP_MAYMOVE);
      must(p != MAP_FAILED, 5);
      grown = (int64_t*)p;
    }
    grown[slot] += 4 * step;
    if (iteration >= 20) grown[kPage / 8 + slot] += 5 * step;

    extended[slot] += 6 * step;
    if (iteration >= 20) must(truncate(extended_name, (off_t)(iteration - 18) * kPage) == 0, 8);
    struct stat extended_stat;
    must(stat(extended_name, &extended_stat) == 0, 8);

    int64_t sums[6] = {0, 0, 0, 0, 0, (int64_t)extended_stat.st_size};
    must(msync(kept, kPage, MS_SYNC) == 0, 6);
    snprintf(name, sizeof name, "late.%d.bin", rank);
    fd = open(name, O_RDONLY);
    int64_t late_now[8];
    must(fd >= 0 && pread(fd, late_now, sizeof late_now, 0) == (ssize_t)sizeof late_now, 6);
    close(fd);
    for (int i = 0; i < 8; ++i) {
      sums[0] += kept[i];
      sums[1] += late_now[i];
      sums[2] += guarded[i];
      sums[3] += grown[i] + (iteration >= 20 ? grown[kPage / 8 + i] : 0);
      sums[4] += extended[i];
    }
    int64_t all[6];
    MPI_Allreduce(sums, all, 6, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf("iteration %d kept %lld late %lld guarded %lld grown %lld extended %lld (%lld bytes)\n", iteration,
             (long long)all[0], (long long)all[1], (long long)all[2], (long long)all[3], (long long)all[4],
             (long long)all[5]);
  }
  must(munmap(kept, kPage) == 0 && munmap(guarded, kPage) == 0 && munmap(grown, 2 * kPage) == 0 &&
           munmap(extended, kPage) == 0,
       7);
  MPI_Finalize();
  return 0;
}
