/* File test program (C): the application's files across a restart. Opens DIR/out.txt with fopen
 * "w" (left open: exit() must flush it, so it must be on libc's stream list again after a
 * restart), reads DIR/in.txt (prepared by the test) line by line with fgets through a stream
 * whose buffer holds read-ahead, appends to DIR/raw.log through a raw open(O_APPEND)+write()
 * descriptor, writes binary records to DIR/data.bin with open(O_TRUNC)+write(), and writes to
 * DIR/fd.txt through fdopen() of an open() descriptor, and appends a line to DIR/appended.log
 * opened with fopen "a" and closed again at every iteration (never open at a checkpoint: the open
 * journal's). One boundary per iteration.
 * Usage: files iterations DIR */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern int yk_memtest_boundary(void) __attribute__((weak));

static FILE* open_stream(const char* dir, const char* name, const char* mode) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, mode);
  if (!f) {
    perror(path);
    exit(2);
  }
  return f;
}

static int open_fd(const char* dir, const char* name, int flags) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, flags, 0644);
  if (fd < 0) {
    perror(path);
    exit(2);
  }
  return fd;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20;
  const char* dir = argc > 2 ? argv[2] : ".";
  FILE* out = open_stream(dir, "out.txt", "w");
  FILE* in = open_stream(dir, "in.txt", "r");
  int raw = open_fd(dir, "raw.log", O_WRONLY | O_CREAT | O_APPEND);
  int data = open_fd(dir, "data.bin", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
  FILE* viafd = fdopen(open_fd(dir, "fd.txt", O_WRONLY | O_CREAT | O_TRUNC), "w");
  if (!viafd) return 2;
  /* With the driver, every file sits in the reserved range (900 and up). */
  printf("fds %d %d %d %d %d\n", fileno(out), fileno(in), raw, data, fileno(viafd));
  unsigned long sum = 0;
  for (int i = 1; i <= n; ++i) {
    char line[512];
    if (!fgets(line, sizeof line, in)) strcpy(line, "EOF\n");
    line[strcspn(line, "\n")] = '\0';
    for (const char* c = line; *c; ++c) sum = sum * 31 + (unsigned char)*c;
    fprintf(out, "%d: %zu %s\n", i, strlen(line), line);
    char buf[64];
    int len = snprintf(buf, sizeof buf, "raw %d %lu\n", i, sum % 1000003);
    if (write(raw, buf, (size_t)len) != len) return 3;
    if (write(data, &sum, sizeof sum) != (ssize_t)sizeof sum) return 3;
    fprintf(viafd, "fd %d\n", i);
    FILE* appended = open_stream(dir, "appended.log", "a");
    fprintf(appended, "appended %d %lu\n", i, sum % 1000003);
    if (fclose(appended) != 0) return 3;
    printf("%d %lu %.20s\n", i, sum % 1000003, line);
    if (yk_memtest_boundary) yk_memtest_boundary();
  }
  fclose(in);
  close(raw);
  close(data);
  printf("done %ld\n", ftell(out));
  return 0; /* out and viafd: flushed and closed by exit() */
}
