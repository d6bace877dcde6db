/* nqueens: count the solutions of the N-queens problem, master-worker style.
 *
 * A task is a valid placement of the queens in the first two columns (one task per pair of
 * rows). Two modes:
 *   dynamic (default): rank 0 hands out tasks on request. Workers announce themselves with an
 *     empty message, then return each count tagged TAG_RESULT_BASE + task id. The master
 *     receives with MPI_ANY_SOURCE/MPI_ANY_TAG, tells the two kinds apart with MPI_Get_count,
 *     and replies to status.MPI_SOURCE. Between replies it solves tasks itself, polling with
 *     MPI_Iprobe, so one rank solves everything alone. Workers use MPI_Probe to see whether the
 *     reply is a task or the stop message.
 *   --static: task t belongs to rank t % size (every rank, rank 0 included, has a fixed share);
 *     the counts are collected with MPI_Gatherv.
 * Parameters travel by MPI_Ibcast; the work runs on an MPI_Comm_dup of MPI_COMM_WORLD, as a
 * library would. Output (rank 0): one line per task in task order, then the total; the output is
 * the same for every rank count and both modes.
 *
 * usage: nqueens [--static] [--timing] [N]      (N defaults to 11 -> 2680 solutions)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_READY = 1, TAG_TASK = 2, TAG_STOP = 3, TAG_RESULT_BASE = 100 };

typedef struct {
  int row0, row1; /* rows of the queens in columns 0 and 1 */
} Task;

/* Count completions column by column. rows/diag_up/diag_down are bitmasks of the rows attacked in the
 * current column. */
static long long solve(int n, int col, unsigned rows, unsigned diag_up, unsigned diag_down) {
  if (col == n) return 1;
  const unsigned all = (1u << n) - 1;
  unsigned free_rows = all & ~(rows | diag_up | diag_down);
  long long count = 0;
  while (free_rows) {
    const unsigned bit = free_rows & -free_rows;
    free_rows ^= bit;
    count += solve(n, col + 1, rows | bit, ((diag_up | bit) << 1) & all, (diag_down | bit) >> 1);
  }
  return count;
}

static long long solve_task(int n, Task t) {
  /* Place the two queens, shifting the diagonal masks once per column. */
  const unsigned all = (1u << n) - 1, b0 = 1u << t.row0, b1 = 1u << t.row1;
  const unsigned up = ((((b0 << 1) & all) | b1) << 1) & all;
  const unsigned down = ((b0 >> 1) | b1) >> 1;
  return solve(n, 2, b0 | b1, up, down);
}

/* All non-attacking placements of the first two queens, in a fixed order. */
static int make_tasks(int n, Task* tasks) {
  int count = 0;
  for (int r0 = 0; r0 < n; ++r0)
    for (int r1 = 0; r1 < n; ++r1)
      if (r1 < r0 - 1 || r1 > r0 + 1) tasks[count++] = (Task){r0, r1};
  return count;
}

/* Each role returns the sum of the counts it solved itself, for the cross-check in main. */
static long long master(MPI_Comm comm, int size, int n, const Task* tasks, int ntasks, long long* results) {
  int next = 0, active = size - 1, greeted = 0;
  long long solved = 0;
  while (next < ntasks || active > 0) {
    /* Once every worker has had its first task, and while tasks remain, do one ourselves
         * unless a worker is waiting. (Greeting first makes sure every worker gets work even
         * when the tasks are tiny.) */
    if (next < ntasks && greeted == size - 1) {
      int waiting = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &waiting, MPI_STATUS_IGNORE);
      if (!waiting) {
        results[next] = solve_task(n, tasks[next]);
        solved += results[next];
        ++next;
        continue;
      }
    }
    long long count = 0;
    MPI_Status st;
    MPI_Recv(&count, 1, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
    int items = 0;
    MPI_Get_count(&st, MPI_LONG_LONG, &items);
    if (items == 1 && st.MPI_TAG >= TAG_RESULT_BASE)
      results[st.MPI_TAG - TAG_RESULT_BASE] = count;
    else if (items == 0 && st.MPI_TAG == TAG_READY)
      ++greeted;
    else {
      fprintf(stderr, "nqueens: unexpected message tag %d items %d from %d\n", st.MPI_TAG, items, st.MPI_SOURCE);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (next < ntasks) {
      MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, comm);
      ++next;
    } else {
      MPI_Send(NULL, 0, MPI_INT, st.MPI_SOURCE, TAG_STOP, comm);
      --active;
    }
  }
  return solved;
}

static long long worker(MPI_Comm comm, int n, const Task* tasks) {
  long long solved = 0;
  MPI_Send(NULL, 0, MPI_LONG_LONG, 0, TAG_READY, comm);
  for (;;) {
    MPI_Status st;
    MPI_Probe(0, MPI_ANY_TAG, comm, &st);
    if (st.MPI_TAG == TAG_STOP) {
      MPI_Recv(NULL, 0, MPI_INT, 0, TAG_STOP, comm, MPI_STATUS_IGNORE);
      return solved;
    }
    int id = -1;
    MPI_Recv(&id, 1, MPI_INT, 0, TAG_TASK, comm, MPI_STATUS_IGNORE);
    long long count = solve_task(n, tasks[id]);
    solved += count;
    MPI_Send(&count, 1, MPI_LONG_LONG, 0, TAG_RESULT_BASE + id, comm);
  }
}

/* Rank r solves tasks r, r+size, ...; rank 0 gathers the counts and puts them back in order. */
static long long static_share(MPI_Comm comm, int rank, int size, int n, const Task* tasks, int ntasks,
                              long long* results) {
  const int mine = ntasks / size + (rank < ntasks % size ? 1 : 0);
  long long* local = malloc(sizeof(long long) * (mine > 0 ? mine : 1));
  long long solved = 0;
  for (int k = 0; k < mine; ++k) {
    local[k] = solve_task(n, tasks[rank + k * size]);
    solved += local[k];
  }
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  for (int r = 0, off = 0; r < size; ++r) {
    counts[r] = ntasks / size + (r < ntasks % size ? 1 : 0);
    displs[r] = off;
    off += counts[r];
  }
  long long* gathered = rank == 0 ? malloc(sizeof(long long) * ntasks) : NULL;
  MPI_Gatherv(local, mine, MPI_LONG_LONG, gathered, counts, displs, MPI_LONG_LONG, 0, comm);
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      for (int k = 0; k < counts[r]; ++k) results[r + k * size] = gathered[displs[r] + k];
  free(gathered);
  free(displs);
  free(counts);
  free(local);
  return solved;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int params[3] = {11, 0, 0}; /* N, static mode, timing */
  if (rank == 0) {
    for (int i = 1; i < argc; ++i) {
      if (strcmp(argv[i], "--static") == 0)
        params[1] = 1;
      else if (strcmp(argv[i], "--timing") == 0)
        params[2] = 1;
      else
        params[0] = atoi(argv[i]);
    }
    if (params[0] < 4 || params[0] > 20) {
      fprintf(stderr, "nqueens: N must be in [4, 20]\n");
      params[0] = -1;
    }
  }
  MPI_Request req;
  MPI_Ibcast(params, 3, MPI_INT, 0, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (params[0] < 0) {
    MPI_Finalize();
    return 1;
  }
  const int n = params[0];

  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const double t0 = MPI_Wtime();

  Task* tasks = malloc(sizeof(Task) * n * n);
  const int ntasks = make_tasks(n, tasks);
  long long* results = calloc(ntasks, sizeof(long long));
  long long solved;
  if (params[1])
    solved = static_share(comm, rank, size, n, tasks, ntasks, results);
  else if (rank == 0)
    solved = master(comm, size, n, tasks, ntasks, results);
  else
    solved = worker(comm, n, tasks);

  /* Cross-check: the table rank 0 assembled must add up to what the ranks say they solved. */
  long long reduced = 0, total = 0;
  MPI_Reduce(&solved, &reduced, 1, MPI_LONG_LONG, MPI_SUM, 0, comm);
  int status = 0;

  if (rank == 0) {
    printf("nqueens n %d tasks %d\n", n, ntasks);
    for (int t = 0; t < ntasks; ++t) {
      printf("task %d rows %d %d count %lld\n", t, tasks[t].row0, tasks[t].row1, results[t]);
      total += results[t];
    }
    printf("final %lld\n", total);
    if (total != reduced) {
      fprintf(stderr, "nqueens: table sums to %lld but ranks solved %lld\n", total, reduced);
      status = 3;
    }
    if (params[2]) fprintf(stderr, "nqueens: %.3f s\n", MPI_Wtime() - t0);
  }
  free(results);
  free(tasks);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return status;
}
