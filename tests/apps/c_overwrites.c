/* Files updated in place by a run that then failed (tests/apps/README.md): the run that goes on
 * past the checkpoint changes bytes *inside* what each file held at the checkpoint, and the
 * restarted run reads them back. Unless the restart puts those bytes back as they were at the
 * checkpoint (checkpoint/memory/README.md, "Files overwritten after the checkpoint"), it adds its
 * iterations to the failed run's and every total below comes out larger, with exit 0.
 * Per rank, all kept open across the pause point:
 *   counters.<rank>.bin  8 counters updated with pread + pwrite (read, add, write back), every
 *                        other one with syscall(SYS_pwrite64)
 *   header.<rank>.bin    a count at the file's start read and rewritten with lseek + read/write,
 *                        and a line appended after it with lseek(SEEK_END) + write
 *   status.<rank>.txt    stdio "w+": rewind, fscanf the running total, rewind, fprintf the new one
 *   shrink.<rank>.txt    the last line read back, then write(2) appends a line; every 4th
 *                        iteration ftruncate cuts the last 2 lines, which the restarted run reads
 *   cut.<rank>.txt       the same cut made with truncate(2) by path
 *   holes.<rank>.bin     4 blocks of 4 KiB: a block's count read, the block punched out with
 *                        fallocate(PUNCH_HOLE), the count + 1 written back
 *   copied.<rank>.bin    a value read at offset 0, the new one copied in from a scratch file
 *                        with copy_file_range (offset 0) and sendfile (at the file's offset 8)
 *   stream.<rank>.txt    opened anew every iteration: a count read with pread, the descriptor
 *                        put back to the start with lseek and the new count printed by a
 *                        stream made on it with fdopen(fd, "w") (which never truncates)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/apps/pause_point.h"

static void must(int ok, int code) {
  if (!ok) MPI_Abort(MPI_COMM_WORLD, code);
}

static int open_rank_file(const char* stem, int rank) {
  char name[64];
  snprintf(name, sizeof name, "%s.%d.bin", stem, rank);
  return open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int counters = open_rank_file("counters", rank);
  const int header = open_rank_file("header", rank);
  int64_t zero[8] = {0};
  char name[64];
  snprintf(name, sizeof name, "status.%d.txt", rank);
  FILE* status = fopen(name, "w+");
  snprintf(name, sizeof name, "shrink.%d.txt", rank);
  const int shrink = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
  char cut_name[64];
  snprintf(cut_name, sizeof cut_name, "cut.%d.txt", rank);
  const int cut = open(cut_name, O_RDWR | O_CREAT | O_TRUNC, 0644);
  const int holes = open_rank_file("holes", rank);
  const int copied = open_rank_file("copied", rank);
  const int scratch = open_rank_file("scratch", rank);
  must(counters >= 0 && header >= 0 && status && shrink >= 0 && cut >= 0 && holes >= 0 && copied >= 0 && scratch >= 0,
       1);
  static char block[4 * 4096];
  memset(block, 'h', sizeof block);
  must(write(holes, block, sizeof block) == sizeof block, 2);
  must(pwrite(copied, zero, 16, 0) == 16, 2);
  must(pwrite(counters, zero, sizeof zero, 0) == sizeof zero, 2);
  must(write(header, "count=00000000\n", 15) == 15, 2);
  fprintf(status, "total 0\n");
  fflush(status);
  long lines = 0, cut_lines = 0;
  for (int iteration = 0; iteration < 30; ++iteration) {
    if (iteration == 15) yk_app_pause_point(MPI_COMM_WORLD);
    /* read, add, write back; the odd counters with syscall(SYS_pwrite64) */
    int64_t value = 0;
    const off_t at = (off_t)(iteration % 8) * 8;
    must(pread(counters, &value, 8, at) == 8, 3);
    value += (int64_t)(iteration + 1) * (rank + 1);
    if (iteration % 2)
      must(syscall(SYS_pwrite64, counters, &value, 8, at) == 8, 3);
    else
      must(pwrite(counters, &value, 8, at) == 8, 3);
    /* the count at the start of the file, then a line at its end */
    char text[64];
    must(lseek(header, 6, SEEK_SET) == 6 && read(header, text, 8) == 8, 4);
    text[8] = '\0';
    long count = 0;
    must(sscanf(text, "%ld", &count) == 1, 4);
    snprintf(text, sizeof text, "%08ld", count + iteration + 1);
    must(lseek(header, 6, SEEK_SET) == 6 && write(header, text, 8) == 8, 4);
    snprintf(text, sizeof text, "line %d count %ld\n", iteration, count + iteration + 1);
    must(lseek(header, 0, SEEK_END) > 0 && write(header, text, strlen(text)) == (ssize_t)strlen(text), 4);
    /* a running total in a stdio file rewritten in place */
    long total = 0;
    rewind(status);
    must(fscanf(status, "total %ld", &total) == 1, 5);
    total += (long)(iteration + 1) * (rank + 2);
    rewind(status);
    fprintf(status, "total %ld\n", total);
    fflush(status);
    /* appended lines, some cut off again; the last one read back first */
    int last = -1;
    if (lines > 0) {
      must(pread(shrink, text, 13, (off_t)(lines - 1) * 13) == 13 && sscanf(text, "iteration %d", &last) == 1, 6);
    }
    snprintf(text, sizeof text, "iteration %02d\n", iteration);
    must(write(shrink, text, strlen(text)) == (ssize_t)strlen(text), 6);
    ++lines;
    if (iteration % 4 == 3) {
      lines -= 2;
      must(ftruncate(shrink, (off_t)(lines * 13)) == 0 && lseek(shrink, 0, SEEK_END) == lines * 13, 6);
    }
    /* the same with truncate(2) by path */
    int cut_last = -1;
    if (cut_lines > 0) {
      must(pread(cut, text, 13, (off_t)(cut_lines - 1) * 13) == 13 && sscanf(text, "iteration %d", &cut_last) == 1, 7);
    }
    snprintf(text, sizeof text, "iteration %02d\n", iteration);
    must(pwrite(cut, text, 13, (off_t)cut_lines * 13) == 13, 7);
    ++cut_lines;
    if (iteration % 4 == 3) {
      cut_lines -= 2;
      must(truncate(cut_name, (off_t)cut_lines * 13) == 0, 7);
    }
    /* a block's count, the block punched out, the count + 1 written back */
    int64_t holes_count = 0;
    const off_t hole = (off_t)(iteration % 4) * 4096;
    must(pread(holes, &holes_count, 8, hole) == 8, 8);
    if (holes_count == 0x6868686868686868LL) holes_count = 0; /* never written: the 'h' filling */
    must(fallocate(holes, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, hole, 4096) == 0, 8);
    ++holes_count;
    must(pwrite(holes, &holes_count, 8, hole) == 8, 8);
    /* values copied in from another file */
    int64_t copies[2] = {0, 0};
    must(pread(copied, copies, 16, 0) == 16, 9);
    copies[0] += iteration + rank;
    copies[1] += 2 * iteration + rank;
    must(pwrite(scratch, copies, 16, 0) == 16, 9);
    off_t in = 0, out = 0;
    must(copy_file_range(scratch, &in, copied, &out, 8, 0) == 8, 9);
    off_t from = 8;
    must(lseek(copied, 8, SEEK_SET) == 8 && sendfile(copied, scratch, &from, 8) == 8, 9);
    /* a count printed over itself by a stream made on a descriptor positioned at the start */
    snprintf(name, sizeof name, "stream.%d.txt", rank);
    const int on = open(name, O_RDWR | O_CREAT, 0644);
    long streamed = 0;
    must(on >= 0, 10);
    if (pread(on, text, 16, 0) == 16) must(sscanf(text, "count %ld", &streamed) == 1, 10);
    streamed += iteration + 2 * rank + 1;
    must(lseek(on, 0, SEEK_SET) == 0, 10);
    FILE* stream = fdopen(on, "w");
    must(stream && fprintf(stream, "count %09ld\n", streamed) == 16 && fclose(stream) == 0, 10);
    long all = 0;
    MPI_Allreduce(&total, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf(
          "iteration %d counter %lld count %ld total %ld all %ld last line %d cut %d hole %lld copied %lld %lld "
          "streamed %ld\n",
          iteration, (long long)value, count + iteration + 1, total, all, last, cut_last, (long long)holes_count,
          (long long)copies[0], (long long)copies[1], streamed);
  }
  fclose(status);
  close(counters);
  close(header);
  close(shrink);
  close(cut);
  close(holes);
  close(copied);
  close(scratch);
  MPI_Finalize();
  return 0;
}
