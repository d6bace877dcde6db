/* What each MPI here offers for moving a rank into a new process while the others keep running
 * (issue 20): spawn a process, merge it into a communicator that replaces the leaving rank, and let
 * the leaving process go. Driven by probe_dynamic_processes.sh.
 *
 *   dynamic_processes spawn          world spawns one process; the three sum over the merged communicator
 *   dynamic_processes leave HOW      world of 2 spawns one process that takes world rank 1's place;
 *                                    rank 1 then leaves: HOW = finalize | exit (no MPI_Finalize) | kill
 *   dynamic_processes port           MPI_Open_port (the connect/accept route between two jobs)
 *   dynamic_processes accept HOW     the same as leave, but the new process is another job's: world rank 0
 *                                    publishes a port (MPI_Publish_name, e.g. through Open MPI's
 *                                    ompi-server), the world accepts; rank 1 then leaves by HOW
 *   dynamic_processes connect        that other job (a world of 1): looks the port up and connects, then
 *                                    takes rank 1's place
 *
 * Prints "ok <what>" lines; the survivors print the sum over the communicator that replaced the world.
 * PROBE_SPAWN_HOST=<host> spawns the new process there (MPI_Info "host", or the key named by
 * PROBE_SPAWN_KEY, e.g. Open MPI's "add-host" for a host outside the job, with PROBE_ALSO_HOST=<host>
 * setting "host" too); every process prints its host name. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds_since(const struct timespec* t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static MPI_Comm spawn_and_merge(char** argv, int* merged_rank) {
  MPI_Comm parent, inter, merged;
  MPI_Comm_get_parent(&parent);
  int spawned = parent != MPI_COMM_NULL;
  if (spawned)
    inter = parent;
  else {
    MPI_Info info = MPI_INFO_NULL;
    const char* host = getenv("PROBE_SPAWN_HOST");
    if (host) {
      MPI_Info_create(&info);
      const char* key = getenv("PROBE_SPAWN_KEY"); /* "host" unless told, e.g. "add-host" */
      MPI_Info_set(info, key ? key : "host", host);
      const char* also = getenv("PROBE_ALSO_HOST"); /* "host" as well, next to another key */
      if (also) MPI_Info_set(info, "host", also);
    }
    MPI_Comm_spawn(argv[0], argv + 1, 1, info, 0, MPI_COMM_WORLD, &inter,
                   MPI_ERRCODES_IGNORE); /* same mode and arguments for the new process */
    if (host) MPI_Info_free(&info);
  }
  MPI_Intercomm_merge(inter, spawned, &merged);
  MPI_Comm_disconnect(&inter);
  MPI_Comm_rank(merged, merged_rank);
  return merged;
}

/* The connect/accept route: a job of 2 accepts a job of 1 through a published port; the accepting
 * world's ranks come first in the merged communicator, as the spawning world's do above. */
static const char kService[] = "yadokari-probe";
static MPI_Comm connect_and_merge(int accepting, int* merged_rank) {
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter, merged;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (accepting) {
    if (rank == 0) {
      MPI_Open_port(MPI_INFO_NULL, port);
      MPI_Publish_name(kService, MPI_INFO_NULL, port);
      printf("ok published\n"); /* the probe starts the other job once it sees this */
      fflush(stdout);
    }
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    if (rank == 0) MPI_Unpublish_name(kService, MPI_INFO_NULL, port);
  } else {
    MPI_Lookup_name(kService, MPI_INFO_NULL, port);
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
  }
  MPI_Intercomm_merge(inter, !accepting, &merged);
  MPI_Comm_disconnect(&inter);
  MPI_Comm_rank(merged, merged_rank);
  return merged;
}

int main(int argc, char** argv) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  MPI_Init(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "port") == 0) {
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Open_port(MPI_INFO_NULL, port);
    if (rc == MPI_SUCCESS) {
      printf("ok port opened\n");
      MPI_Close_port(port);
    } else {
      char text[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, text, &len);
      const char* last = text; /* an MPICH error stack: its last line says why */
      for (char* nl = strchr(text, '\n'); nl && nl[1]; nl = strchr(nl + 1, '\n')) last = nl + 1;
      printf("no port: %s\n", last);
    }
    MPI_Finalize();
    return 0;
  }
  int merged_rank = 0;
  const int accepting = strcmp(mode, "accept") == 0;
  MPI_Comm merged = accepting || strcmp(mode, "connect") == 0 ? connect_and_merge(accepting, &merged_rank)
                                                              : spawn_and_merge(argv, &merged_rank);
  char name[MPI_MAX_PROCESSOR_NAME];
  int name_length = 0;
  MPI_Get_processor_name(name, &name_length);
  printf("ok host: merged rank %d on %s\n", merged_rank, name);
  if (strcmp(mode, "spawn") == 0) {
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    printf("ok spawn: merged rank %d sum %d\n", merged_rank, sum);
    MPI_Comm_free(&merged);
    MPI_Finalize();
    return 0;
  }
  /* leave/accept: merged ranks 0 (world 0), 1 (world 1, leaving), 2 (spawned or connected, takes its
   * place). */
  const char* how = argc > 2 ? argv[2] : "finalize";
  MPI_Comm replaced;
  MPI_Comm_split(merged, merged_rank == 1 ? MPI_UNDEFINED : 0, merged_rank, &replaced);
  MPI_Comm_free(&merged);
  if (merged_rank == 1) {
    fflush(stdout);
    if (strcmp(how, "kill") == 0) raise(SIGKILL);
    if (strcmp(how, "exit") == 0) _exit(0);
    double entered = seconds_since(&t0);
    MPI_Finalize();
    printf("ok leaver: in MPI_Finalize for %.1f s (the others work for 3 s after it left)\n",
           seconds_since(&t0) - entered);
    return 0;
  }
  int sum = 0;
  for (int i = 0; i < 3; i++) {
    int one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, replaced);
    sleep(1);
  }
  printf("ok survivor: merged rank %d sum %d\n", merged_rank, sum);
  MPI_Comm_free(&replaced);
  MPI_Finalize();
  return 0;
}
