/* Can a process that keeps running (same pid, same memory) leave one MPI job and become a rank of
 * the next one, without MPI's dynamic processes (issue 20)? The process finalizes its MPI library,
 * loads a second, fresh copy of that library into a new link namespace (dlmopen), and initializes
 * it as a rank of a new launch: a stand-in process that the new launcher started in its place hands
 * over what the launcher gave it (MPICH: the PMI socket and the PMI_* variables; Open MPI: the PMIx
 * variables) and its standard streams, then waits and exits with the kept process's status.
 * Driven by probe_library_swap.sh.
 *
 *   library_swap first DIR     a rank of the first job: sums the ranks, finalizes; rank 0 then stays
 *                              (listens on DIR/keep-0.sock, writes its pid to DIR/keep-0.pid) and
 *                              the other ranks exit
 *   library_swap standin DIR   a rank of a later job that stands in for the kept process
 *   library_swap fresh DIR     a rank of a later job started anew (the moved rank)
 *
 * The kept process's environment (set at the first launch): PROBE_SWAPS=N later jobs to go through
 * (default 1); PROBE_NAMESPACE_PRELOAD=<library> loaded first into each new namespace (Open MPI needs
 * namespace_dlopen.c's); PROBE_DLCLOSE=1 unloads each copy after its MPI_Finalize (does the
 * namespace come back?); PROBE_REBIND=1 makes the program's own MPI_* calls, as linked, reach the copy
 * (rebind_to_copy). Every process prints "ok <what> pid=<pid> host <host>: ..." lines; the kept
 * process prints the value it kept in memory, the sum over the new world and the times to load
 * and initialize the copy. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char* what) {
  fprintf(stderr, "library_swap: %s: %s\n", what, strerror(errno));
  exit(3);
}

static void socket_path(struct sockaddr_un* a, const char* dir) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  snprintf(a->sun_path, sizeof a->sun_path, "%s/keep-0.sock", dir);
}

/* Variables a launcher gives its ranks: the ones the stand-in hands over. */
static int launcher_variable(const char* kv) {
  static const char* prefixes[] = {"PMI_", "PMIX_", "OMPI_", "MPI_LOCAL", "MPIR_CVAR_", "HYDRA_", "OPAL_", NULL};
  for (const char** p = prefixes; *p; ++p)
    if (strncmp(kv, *p, strlen(*p)) == 0) return 1;
  return 0;
}

/* Sends the variables (NUL-separated) with descriptors `fds` attached. */
static void send_with_fds(int sock, const char* data, size_t len, const int* fds, int nfds) {
  char control[CMSG_SPACE(sizeof(int) * 4)];
  memset(control, 0, sizeof control);
  struct iovec iov = {(void*)data, len};
  struct msghdr m = {0};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
  struct cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
  memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
  if (sendmsg(sock, &m, 0) != (ssize_t)len) die("sendmsg");
}

static size_t receive_with_fds(int sock, char* data, size_t cap, int* fds, int nfds) {
  char control[CMSG_SPACE(sizeof(int) * 4)];
  struct iovec iov = {data, cap};
  struct msghdr m = {0};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  ssize_t n = recvmsg(sock, &m, MSG_WAITALL);
  if (n <= 0) die("recvmsg");
  struct cmsghdr* c = CMSG_FIRSTHDR(&m);
  if (!c || c->cmsg_type != SCM_RIGHTS) {
    fprintf(stderr, "library_swap: no descriptors received\n");
    exit(3);
  }
  memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)nfds);
  return (size_t)n;
}

/* The stand-in: hand the launcher's gifts to the kept process, then wait for its status. */
static int standin(const char* dir) {
  int sock = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a;
  socket_path(&a, dir);
  for (int tries = 0; connect(sock, (struct sockaddr*)&a, sizeof a) != 0; ++tries) {
    if (tries > 200) die("connect to the kept process");
    usleep(50000);
  }
  static char block[65536];
  size_t len = 0;
  for (char** e = environ; *e; ++e)
    if (launcher_variable(*e) && len + strlen(*e) + 1 < sizeof block) {
      memcpy(block + len, *e, strlen(*e) + 1);
      len += strlen(*e) + 1;
    }
  const char* pmi_fd = getenv("PMI_FD");
  int fds[3] = {pmi_fd ? atoi(pmi_fd) : 1, 1, 2};
  unsigned int header = (unsigned int)len;
  if (write(sock, &header, sizeof header) != sizeof header) die("write");
  send_with_fds(sock, block, len, fds, 3);
  printf("ok standin pid=%d handed over %zu bytes of variables\n", (int)getpid(), len);
  fflush(stdout);
  int status = 1;
  if (read(sock, &status, sizeof status) != sizeof status) die("read the kept process's status");
  return status;
}

/* The calls and handles of one copy of the MPI library: the linked one, or one loaded by dlmopen. */
struct mpi_copy {
  int (*init)(int*, char***);
  int (*finalize)(void);
  int (*comm_rank)(MPI_Comm, int*);
  int (*comm_size)(MPI_Comm, int*);
  int (*allreduce)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
  MPI_Comm world;
  MPI_Datatype long_type;
  MPI_Op sum;
};

static struct mpi_copy linked_copy(void) {
  struct mpi_copy c = {MPI_Init,      MPI_Finalize,   MPI_Comm_rank, MPI_Comm_size,
                       MPI_Allreduce, MPI_COMM_WORLD, MPI_LONG,      MPI_SUM};
  return c;
}

/* Every rank's number summed over the copy's world; `rank`, `size` and `host` say where it ran. */
static long sum_over_world(const struct mpi_copy* c, int* rank, int* size, char* host, size_t host_size) {
  c->comm_rank(c->world, rank);
  c->comm_size(c->world, size);
  long mine = *rank, total = -1;
  c->allreduce(&mine, &total, 1, c->long_type, c->sum, c->world);
  snprintf(host, host_size, "?");
  gethostname(host, host_size);
  return total;
}

/* The shared-memory files this process has mapped (/dev/shm): how the copy talks to a rank on the
 * same node (Open MPI's vader segments, UCX's posix segments). Writes "none" if there are none. */
static void shared_memory_maps(char* out, size_t size) {
  out[0] = 0;
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps && fgets(line, sizeof line, maps)) {
    const char* name = strstr(line, "/dev/shm/");
    if (!name) continue;
    char entry[256];
    snprintf(entry, sizeof entry, "%s%.*s", out[0] ? "," : "", (int)strcspn(name + 9, " \n"), name + 9);
    if (!strstr(out, entry + (out[0] ? 1 : 0)) && strlen(out) + strlen(entry) + 1 < size) strcat(out, entry);
  }
  if (maps) fclose(maps);
  if (out[0] == 0) snprintf(out, size, "none");
}

/* PROBE_REBIND=1: this program's own calls of MPI_* (its GOT entries, which the dynamic linker
 * bound to the first copy) are pointed at the new copy, so that the calls as linked reach it —
 * what a shim would do for its PMPI_* calls instead of going through a table of its own. Returns
 * how many entries it rewrote. */
static int rebind_to_copy(void* copy) {
  struct link_map* self = NULL;
  Dl_info info;
  if (!dladdr1((void*)rebind_to_copy, &info, (void**)&self, RTLD_DL_LINKMAP) || !self) return -1;
  const ElfW(Addr) base = self->l_addr;
  const ElfW(Sym)* symtab = NULL;
  const char* strtab = NULL;
  const ElfW(Rela) * tables[2] = {NULL, NULL};
  size_t bytes[2] = {0, 0};
  /* ld.so relocated these entries in place; an unrelocated one is an offset, below the base. (The
   * same reading as checkpoint/memory/src/dynamic_tables.cpp, which a shim would call instead: this
   * probe is plain C, built outside CMake.) */
#define AT(v) ((v) < base ? (v) + base : (v))
  for (const ElfW(Dyn)* d = self->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symtab = (const ElfW(Sym)*)AT(d->d_un.d_ptr);
    if (d->d_tag == DT_STRTAB) strtab = (const char*)AT(d->d_un.d_ptr);
    if (d->d_tag == DT_JMPREL) tables[0] = (const ElfW(Rela)*)AT(d->d_un.d_ptr);
    if (d->d_tag == DT_PLTRELSZ) bytes[0] = d->d_un.d_val;
    if (d->d_tag == DT_RELA) tables[1] = (const ElfW(Rela)*)AT(d->d_un.d_ptr);
    if (d->d_tag == DT_RELASZ) bytes[1] = d->d_un.d_val;
  }
#undef AT
  if (!symtab || !strtab) return -1;
  const long page = sysconf(_SC_PAGESIZE);
  int rewritten = 0;
  for (int t = 0; t < 2; ++t)
    for (size_t i = 0; tables[t] && i < bytes[t] / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela)* r = &tables[t][i];
      const unsigned long type = ELF64_R_TYPE(r->r_info);
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
      const ElfW(Sym)* sym = &symtab[ELF64_R_SYM(r->r_info)];
      const char* name = strtab + sym->st_name;
      if (strncmp(name, "MPI_", 4) != 0 && strncmp(name, "PMPI_", 5) != 0) continue;
      void* target = dlsym(copy, name);
      if (!target) continue;
      void** slot = (void**)(base + r->r_offset);
      /* The GOT may be read-only after relocation (RELRO): open its page for the write. */
      void* first_page = (void*)((uintptr_t)slot & ~(uintptr_t)(page - 1));
      if (mprotect(first_page, (size_t)page, PROT_READ | PROT_WRITE) != 0) return -1;
      *slot = target;
      ++rewritten;
    }
  return rewritten;
}

/* Drops the variables the previous launch gave (a variable the next launch does not set must not
 * linger), then takes the new launch's. */
static void take_variables(char* block, size_t len) {
  for (int again = 1; again;) {
    again = 0;
    for (char** e = environ; *e; ++e)
      if (launcher_variable(*e)) {
        char name[256];
        size_t n = strcspn(*e, "=");
        if (n >= sizeof name) continue;
        memcpy(name, *e, n);
        name[n] = 0;
        unsetenv(name);
        again = 1;
        break;
      }
  }
  for (size_t i = 0; i < len; i += strlen(block + i) + 1) putenv(block + i);
}

/* One swap: wait for the stand-in, take its gifts, initialize a fresh copy of the MPI library in a
 * new link namespace as the new launch's rank, sum over its world, finalize it. */
static int swap_once(int listener, int swap, long kept_value, int old_rank) {
  int sock = accept(listener, NULL, NULL);
  if (sock < 0) die("accept");
  const double t0 = now();
  unsigned int len = 0;
  if (read(sock, &len, sizeof len) != sizeof len) die("read");
  char* block = malloc(len + 1); /* stays: putenv keeps pointers into it */
  int fds[3];
  if (!block || receive_with_fds(sock, block, len, fds, 3) != len) {
    fprintf(stderr, "library_swap: short variables block\n");
    return 3;
  }
  /* The new launch's standard streams and (MPICH) PMI socket. */
  dup2(fds[1], 1);
  dup2(fds[2], 2);
  close(fds[1]);
  close(fds[2]);
  take_variables(block, len);
  if (getenv("PMI_FD")) {
    char v[16];
    snprintf(v, sizeof v, "%d", fds[0]);
    setenv("PMI_FD", v, 1);
  } else {
    close(fds[0]);
  }
#ifdef OPEN_MPI
  const char* library = "libmpi.so.40";
#else
  const char* library = "libmpich.so.12";
#endif
  /* A library loaded first into the new namespace is its global scope: it can stand in front of the
   * namespace's libc (namespace_dlopen.c: dlopen without RTLD_GLOBAL, which glibc 2.36 cannot do
   * in a namespace made by dlmopen). */
  Lmid_t lm = LM_ID_NEWLM;
  const char* first_in_namespace = getenv("PROBE_NAMESPACE_PRELOAD");
  if (first_in_namespace && *first_in_namespace) {
    void* p = dlmopen(LM_ID_NEWLM, first_in_namespace, RTLD_NOW);
    if (!p || dlinfo(p, RTLD_DI_LMID, &lm) != 0) {
      fprintf(stderr, "library_swap: swap %d: dlmopen %s: %s\n", swap, first_in_namespace, dlerror());
      return 3;
    }
  }
  void* h = dlmopen(lm, library, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "library_swap: swap %d: dlmopen %s: %s\n", swap, library, dlerror());
    return 3;
  }
  struct mpi_copy c = {
      (int (*)(int*, char***))dlsym(h, "MPI_Init"),
      (int (*)(void))dlsym(h, "MPI_Finalize"),
      (int (*)(MPI_Comm, int*))dlsym(h, "MPI_Comm_rank"),
      (int (*)(MPI_Comm, int*))dlsym(h, "MPI_Comm_size"),
      (int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm))dlsym(h, "MPI_Allreduce"),
#ifdef OPEN_MPI
      /* Open MPI's predefined handles are addresses of the library's objects: the new copy's. */
      (MPI_Comm)dlsym(h, "ompi_mpi_comm_world"),
      (MPI_Datatype)dlsym(h, "ompi_mpi_long"),
      (MPI_Op)dlsym(h, "ompi_mpi_op_sum"),
#else
      MPI_COMM_WORLD,
      MPI_LONG,
      MPI_SUM,
#endif
  };
  if (!c.init || !c.finalize || !c.comm_rank || !c.comm_size || !c.allreduce || !c.world || !c.long_type || !c.sum) {
    fprintf(stderr, "library_swap: swap %d: symbols missing in the new copy\n", swap);
    return 3;
  }
  const char* rebind = getenv("PROBE_REBIND");
  if (rebind && *rebind) {
    const int rewritten = rebind_to_copy(h);
    if (rewritten <= 0) {
      fprintf(stderr, "library_swap: swap %d: could not point this program's MPI calls at the copy\n", swap);
      return 3;
    }
    /* From here the program's own MPI_* calls, as linked, are the copy's; the predefined handles
     * stay the copy's (Open MPI: found by name above). */
    const struct mpi_copy linked = linked_copy();
    c.init = linked.init;
    c.finalize = linked.finalize;
    c.comm_rank = linked.comm_rank;
    c.comm_size = linked.comm_size;
    c.allreduce = linked.allreduce;
    printf("ok kept swap %d rebound %d of its own calls to the copy\n", swap, rewritten);
  }
  const double t_loaded = now();
  if (c.init(NULL, NULL) != MPI_SUCCESS) return 4;
  const double t_init = now();
  struct timespec wall;
  clock_gettime(CLOCK_REALTIME, &wall); /* the driver compares it with its launch's start */
  int rank = -1, size = -1;
  char host[256];
  const long total = sum_over_world(&c, &rank, &size, host, sizeof host);
  char shm[1024];
  shared_memory_maps(shm, sizeof shm);
  printf(
      "ok kept swap %d pid=%d host %s: old rank %d is rank %d of %d; kept value %ld; sum %ld; "
      "load %.3f s, MPI_Init %.3f s; /dev/shm mapped: %s\n",
      swap, (int)getpid(), host, old_rank, rank, size, kept_value, total, t_loaded - t0, t_init - t_loaded, shm);
  printf("ok kept swap %d in the new world at %ld.%06ld\n", swap, (long)wall.tv_sec, wall.tv_nsec / 1000);
  fflush(stdout);
  const double t_fin0 = now();
  c.finalize();
  printf("ok kept swap %d MPI_Finalize %.3f s\n", swap, now() - t_fin0);
  fflush(stdout);
  if (getenv("PROBE_DLCLOSE")) { /* can the namespace be given back? */
    dlclose(h);
    if (first_in_namespace && *first_in_namespace) dlclose(dlmopen(lm, first_in_namespace, RTLD_NOLOAD | RTLD_NOW));
    void* again = dlmopen(lm, library, RTLD_NOLOAD | RTLD_NOW);
    printf("ok kept swap %d dlclose: the copy is %s\n", swap, again ? "still loaded" : "unloaded");
    fflush(stdout);
  }
  /* Let the launch end: it waits until every copy of its pipes and PMI socket is closed. Until the
   * next launch, the kept process writes nowhere. */
  fflush(NULL);
  const int null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  dup2(null, 2);
  close(null);
  if (getenv("PMI_FD")) close(fds[0]);
  int status = 0;
  if (write(sock, &status, sizeof status) != sizeof status) die("write the status");
  close(sock);
  return 0;
}

/* The kept process after the first launch: PROBE_SWAPS (default 1) swaps, each into the next
 * launch that names a stand-in for it. */
static int keep(const char* dir, long kept_value, int old_rank) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a;
  socket_path(&a, dir);
  unlink(a.sun_path);
  if (bind(listener, (struct sockaddr*)&a, sizeof a) != 0 || listen(listener, 1) != 0) die("listen");
  char ready[4096];
  snprintf(ready, sizeof ready, "%s/keep-0.pid", dir);
  FILE* f = fopen(ready, "w");
  if (!f) die("write the pid file");
  fprintf(f, "%d\n", (int)getpid());
  fclose(f);
  const int swaps = getenv("PROBE_SWAPS") ? atoi(getenv("PROBE_SWAPS")) : 1;
  for (int i = 1; i <= swaps; ++i) {
    const int rc = swap_once(listener, i, kept_value, old_rank);
    if (rc != 0) return rc;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: library_swap first|standin|fresh DIR\n");
    return 2;
  }
  const char* mode = argv[1];
  const char* dir = argv[2];
  if (strcmp(mode, "standin") == 0) return standin(dir);
  const struct mpi_copy linked = linked_copy();
  linked.init(&argc, &argv);
  int rank = -1, size = -1;
  char host[256];
  const long total = sum_over_world(&linked, &rank, &size, host, sizeof host);
  printf("ok %s pid=%d host %s: rank %d of %d; sum %ld\n", mode, (int)getpid(), host, rank, size, total);
  fflush(stdout);
  linked.finalize();
  if (strcmp(mode, "first") == 0 && rank == 0) {
    long kept = 1000 + total; /* memory the process keeps across the swap */
    return keep(dir, kept, rank);
  }
  return 0;
}
