/* Messages in flight at the consistent cut must arrive exactly once, intact and in MPI's order.
 * Each rank sends several messages to its right neighbour (different tags and sizes, one with a
 * derived datatype) and posts receives that are or are not matched yet; then all ranks take the
 * cut (when run under the shim), and only afterwards receive, in an order different from the
 * sending order. Natively the cut is skipped; the output must be the same either way. A persistent
 * receive made before the cut and started after it must take the message drained at the cut
 * first (MPI_Startall), then the one sent after the cut (MPI_Start). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int yadokari_consistent_cut(void) __attribute__((weak));

static double checksum(const double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += v[i] * (i + 1);
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  double small[4], big[5000], strided[12];
  for (int i = 0; i < 4; ++i) small[i] = rank * 100 + i;
  for (int i = 0; i < 5000; ++i) big[i] = rank + i * 0.5;
  for (int i = 0; i < 12; ++i) strided[i] = rank * 1000 + i;
  MPI_Datatype every_other;
  MPI_Type_vector(6, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_commit(&every_other);

  /* A receive posted before the cut whose message is also sent before it. */
  double early[4] = {0};
  MPI_Request early_req;
  MPI_Irecv(early, 4, MPI_DOUBLE, left, 99, MPI_COMM_WORLD, &early_req);

  MPI_Request sends[5];
  MPI_Isend(small, 4, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &sends[0]);
  MPI_Isend(big, 5000, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &sends[1]);
  MPI_Isend(strided, 1, every_other, right, 3, MPI_COMM_WORLD, &sends[2]);
  MPI_Isend(small, 2, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &sends[3]); /* same tag, must come second */
  MPI_Isend(small, 4, MPI_DOUBLE, right, 99, MPI_COMM_WORLD, &sends[4]);
  /* A receive freed before it completed still takes a message (MPI 3.1 §3.7.3): the first
   * tag-61 message, sent before the cut; the receive after the cut gets the second. The cut must
   * count the first as received, or it waits for a message nobody will send. */
  static int freed_in = -1;
  MPI_Request freed;
  MPI_Irecv(&freed_in, 1, MPI_INT, left, 61, MPI_COMM_WORLD, &freed);
  MPI_Request_free(&freed);
  int first61 = 100 + rank;
  MPI_Send(&first61, 1, MPI_INT, right, 61, MPI_COMM_WORLD);

  /* A persistent receive, inactive at the cut, and the first of its two messages. */
  double persistent_in[4] = {0}, first5[4], second5[4];
  for (int i = 0; i < 4; ++i) first5[i] = rank * 10 + 1 + i, second5[i] = rank * 10 + 5 + i;
  MPI_Request persistent, send5[2];
  MPI_Recv_init(persistent_in, 4, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &persistent);
  MPI_Isend(first5, 4, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &send5[0]);
  /* The sends stay pending across the cut: the large one cannot complete (rendezvous) before
   * its receiver takes it, which the drain does. Nothing of tags 1-3 is received yet. */
  MPI_Barrier(MPI_COMM_WORLD);

  if (yadokari_consistent_cut) yadokari_consistent_cut();

  MPI_Status st;
  int count;
  double got[5000];
  MPI_Recv(got, 5000, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &st); /* out of sending order */
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  printf("rank %d tag 2: %d doubles checksum %.1f from %d\n", rank, count, checksum(got, count), st.MPI_SOURCE);

  MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  double recv_strided[12] = {0};
  MPI_Recv(recv_strided, 1, every_other, st.MPI_SOURCE, 3, MPI_COMM_WORLD, &st);
  printf("rank %d tag 3: probed %d doubles, strided checksum %.1f\n", rank, count, checksum(recv_strided, 12));

  MPI_Request r1;
  MPI_Irecv(got, 4, MPI_DOUBLE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r1);
  MPI_Wait(&r1, &st);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  printf("rank %d tag 1 first: %d doubles checksum %.1f\n", rank, count, checksum(got, count));
  MPI_Recv(got, 4, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  printf("rank %d any tag: tag %d, %d doubles checksum %.1f\n", rank, st.MPI_TAG, count, checksum(got, count));

  int early_done = 0;
  do MPI_Request_get_status(early_req, &early_done, &st);
  while (!early_done);
  printf("rank %d early receive done, tag %d\n", rank, st.MPI_TAG);
  MPI_Wait(&early_req, &st);
  printf("rank %d early receive: tag %d checksum %.1f\n", rank, st.MPI_TAG, checksum(early, 4));

  int second61 = 200 + rank, got61 = -1;
  MPI_Sendrecv(&second61, 1, MPI_INT, right, 61, &got61, 1, MPI_INT, left, 61, MPI_COMM_WORLD, &st);
  printf("rank %d after a freed receive: %d\n", rank, got61);

  MPI_Isend(second5, 4, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &send5[1]);
  MPI_Startall(1, &persistent);
  MPI_Wait(&persistent, &st);
  printf("rank %d persistent receive, first start: checksum %.1f from %d\n", rank, checksum(persistent_in, 4),
         st.MPI_SOURCE);
  MPI_Start(&persistent);
  MPI_Wait(&persistent, &st);
  printf("rank %d persistent receive, second start: checksum %.1f\n", rank, checksum(persistent_in, 4));
  MPI_Request_free(&persistent);
  MPI_Status send5_statuses[2];
  MPI_Waitall(2, send5, send5_statuses);

  /* Exactly once: nothing of the messages sent before the cut is left (tag 7 traffic below
   * may already be on its way, so only the pre-cut tags are probed). */
  int left_over = 0;
  const int tags[] = {1, 2, 3, 5, 99};
  for (int t = 0; t < 5; ++t) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, tags[t], MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    left_over += flag;
  }
  printf("rank %d messages left over: %d\n", rank, left_over);

  MPI_Status send_statuses[5];
  MPI_Waitall(5, sends, send_statuses);

  /* Traffic after the cut still works. */
  int token = rank, from_left = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, right, 7, &from_left, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("rank %d sendrecv after the cut: %d\n", rank, from_left);

  MPI_Type_free(&every_other);
  MPI_Finalize();
  return 0;
}
