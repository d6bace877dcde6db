/* The shim's state survives a restart (without the memory layer): in the middle of the run
 * every rank takes the cut, saves the shim's state to bytes, forgets it as a fresh process
 * would, loads it back, re-creates the MPI objects and re-posts pending receives
 * (yadokari_test_state_roundtrip, under the shim only). Afterwards the program uses every
 * handle it made before: communicators (dup, split, Cartesian), a group, derived datatypes, a
 * user op, an error handler, an info, attributes, receives that were posted and unmatched at the
 * hook (some with MPI_ANY_SOURCE, two alike that must match in posting order), messages in
 * flight at the hook, a receive matched at the cut, sends pending at the hook and persistent
 * requests (one active across the hook), the names given to communicators and datatypes
 * (a predefined one too), and a weighted distributed graph with ranks of no in- or out-edge. Natively the hook is skipped; the output must be the
 * same. 4 ranks (a 2x2 grid).
 *   state_roundtrip swap   the hook is a swap of the MPI library instead (yadokari_swap_library,
 *                          pmpi-layer/tests/run_swap_case.sh): the same state, carried into a
 *                          fresh copy of the library that a second launch initializes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int yadokari_test_state_roundtrip(void) __attribute__((weak));
int yadokari_swap_library(void) __attribute__((weak));

enum { BIG = 20000 };

static MPI_Datatype g_pair; /* two ints: the user op checks it gets the app's own handle */
static int g_op_saw_pair = 0;

static void max_abs_pair(void* in, void* inout, int* len, MPI_Datatype* type) {
  const int n = *type == g_pair ? *len * 2 : *len; /* else the library split it into ints */
  if (*type == g_pair) ++g_op_saw_pair;
  for (int i = 0; i < n; ++i) {
    int a = abs(((int*)in)[i]);
    if (a > ((int*)inout)[i]) ((int*)inout)[i] = a;
  }
}

static int handled = 0;
static MPI_Comm handled_on = MPI_COMM_NULL;
static void on_error(MPI_Comm* comm, int* code, ...) {
  (void)code;
  ++handled;
  handled_on = *comm;
}

/* A handler set on a communicator and freed at once (legal: the communicator keeps it), then
 * another one made: after the hook the communicator must still call the first. */
static int marked = 0, other = 0;
static void on_error_marked(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  (void)code;
  ++marked;
}
static void on_error_other(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  (void)code;
  ++other;
}

static int copies = 0, deletes = 0;
static int copy_attr(MPI_Comm old, int key, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)key;
  (void)extra;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}
static int delete_attr(MPI_Comm comm, int key, void* value, void* extra) {
  (void)comm;
  (void)key;
  (void)value;
  (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}

static double checksum(const double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += v[i] * (i % 7 + 1);
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) {
    if (rank == 0) printf("needs 4 ranks\n");
    MPI_Finalize();
    return 1;
  }
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status sts[4]; /* GCC 12 warns about MPI_STATUSES_IGNORE as an array argument */

  /* Objects. */
  MPI_Comm dup, half, cart;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int dims[2] = {2, 2}, periods[2] = {1, 1};
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Group world_group, pair_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int members[2] = {3, 1};
  MPI_Group_incl(world_group, 2, members, &pair_group);
  MPI_Group_free(&world_group);

  MPI_Datatype every_other;
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Type_contiguous(2, MPI_INT, &g_pair);
  MPI_Type_commit(&g_pair);
  /* Names the app gave: the re-created objects must answer with them. */
  MPI_Comm_set_name(dup, "the duplicate");
  MPI_Comm_set_name(MPI_COMM_WORLD, "everybody");
  MPI_Type_set_name(g_pair, "pair of ints");
  MPI_Type_set_name(MPI_FLOAT, "float renamed");
  MPI_Op op;
  MPI_Op_create(max_abs_pair, 1, &op);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(on_error, &eh);
  MPI_Comm_set_errhandler(half, eh);
  MPI_Comm marked_comm;
  MPI_Errhandler eh_marked, eh_other;
  MPI_Comm_dup(MPI_COMM_WORLD, &marked_comm);
  /* A weighted distributed graph, a chain 0 -> 1 -> 2 -> 3: rank 0 has no in-edge and passes
   * MPI_WEIGHTS_EMPTY for its sources, rank 3 no out-edge and MPI_WEIGHTS_EMPTY for its
   * destinations; the graph is weighted on every rank. */
  MPI_Comm chain;
  {
    const int from = rank - 1, to = rank + 1, from_weight = 10 * rank, to_weight = 10 * rank + 1;
    const int indegree = rank > 0, outdegree = rank < size - 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indegree, &from, indegree ? &from_weight : MPI_WEIGHTS_EMPTY,
                                   outdegree, &to, outdegree ? &to_weight : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0,
                                   &chain);
  }
  MPI_Comm_create_errhandler(on_error_marked, &eh_marked);
  MPI_Comm_set_errhandler(marked_comm, eh_marked);
  MPI_Errhandler_free(&eh_marked);
  MPI_Comm_create_errhandler(on_error_other, &eh_other);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "yadokari_colour", rank % 2 ? "odd" : "even");
  MPI_Info_set(info, "doomed", "x");
  MPI_Info_delete(info, "doomed");

  static int comm_value = 0, type_value = 0;
  comm_value = 100 + rank;
  type_value = 200 + rank;
  int comm_key, type_key;
  MPI_Comm_create_keyval(copy_attr, delete_attr, &comm_key, NULL);
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &type_key, NULL);
  MPI_Comm_set_attr(dup, comm_key, &comm_value);
  MPI_Comm_set_attr(MPI_COMM_WORLD, comm_key, &comm_value);
  MPI_Type_set_attr(every_other, type_key, &type_value);

  int pair_in[2] = {rank % 2 ? -rank : rank, -10 * rank}, pair_out[2];
  MPI_Allreduce(pair_in, pair_out, 1, g_pair, op, MPI_COMM_WORLD);
  printf("rank %d before: maxabs %d %d op saw pair %d\n", rank, pair_out[0], pair_out[1], g_op_saw_pair > 0);

  /* Persistent requests: one round complete before the hook, then the receive stays active
   * across it (its send is started after), and a pair made but never started before it. */
  double pbuf_out = rank, pbuf_in = -1, qbuf_out = 10 * rank, qbuf_in = -1;
  MPI_Request precv, psend, qrecv, qsend;
  MPI_Recv_init(&pbuf_in, 1, MPI_DOUBLE, left, 31, MPI_COMM_WORLD, &precv);
  MPI_Send_init(&pbuf_out, 1, MPI_DOUBLE, right, 31, MPI_COMM_WORLD, &psend);
  MPI_Request pr[2] = {precv, psend};
  MPI_Startall(2, pr);
  MPI_Waitall(2, pr, sts);
  printf("rank %d persistent round 1: %.0f\n", rank, pbuf_in);
  MPI_Start(&precv);
  MPI_Recv_init(&qbuf_in, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 32, cart, &qrecv);
  MPI_Ssend_init(&qbuf_out, 1, MPI_DOUBLE, right, 32, cart, &qsend);

  /* A persistent pair over a datatype the app frees at once (legal: the requests keep it), then
   * a new datatype that may take its slot: after the hook the pair must still move three doubles. */
  MPI_Datatype three, one_int;
  MPI_Type_contiguous(3, MPI_DOUBLE, &three);
  MPI_Type_commit(&three);
  double tbuf_out[3] = {rank, rank + 0.5, rank + 0.25}, tbuf_in[3] = {0, 0, 0};
  MPI_Request trecv, tsend;
  MPI_Recv_init(tbuf_in, 1, three, left, 33, MPI_COMM_WORLD, &trecv);
  MPI_Send_init(tbuf_out, 1, three, right, 33, MPI_COMM_WORLD, &tsend);
  MPI_Type_free(&three);
  MPI_Type_contiguous(1, MPI_INT, &one_int);
  MPI_Type_commit(&one_int);

  /* Two receives alike: they must match in the order posted, whatever slots they sit in
   * (two finished requests free their slots in reverse order first). */
  MPI_Request tmp[2];
  MPI_Irecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &tmp[0]);
  MPI_Irecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &tmp[1]);
  MPI_Wait(&tmp[0], MPI_STATUS_IGNORE);
  MPI_Wait(&tmp[1], MPI_STATUS_IGNORE);
  int first = -1, second = -1;
  MPI_Request alike[2];
  MPI_Irecv(&first, 1, MPI_INT, left, 24, MPI_COMM_WORLD, &alike[0]);
  MPI_Irecv(&second, 1, MPI_INT, left, 24, MPI_COMM_WORLD, &alike[1]);

  /* Receives unmatched at the hook. */
  int any_value = -1;
  MPI_Request r_any, r_strided, r_cart;
  MPI_Irecv(&any_value, 1, MPI_INT, MPI_ANY_SOURCE, 21, dup, &r_any);
  double strided[6] = {0};
  MPI_Irecv(strided, 1, every_other, left, 22, MPI_COMM_WORLD, &r_strided);
  int cart_src, cart_dst;
  MPI_Cart_shift(cart, 0, 1, &cart_src, &cart_dst);
  int cart_value = -1;
  MPI_Irecv(&cart_value, 1, MPI_INT, MPI_ANY_SOURCE, 23, cart, &r_cart);

  /* A receive whose message is sent before the hook (matched by the cut at the latest). */
  int early = -1, early_out = 1000 + rank;
  MPI_Request r_early;
  MPI_Irecv(&early, 1, MPI_INT, left, 41, MPI_COMM_WORLD, &r_early);
  MPI_Send(&early_out, 1, MPI_INT, right, 41, MPI_COMM_WORLD);

  /* In flight at the hook: small messages and a large one (its send stays pending until the
   * drain takes it), received only afterwards. */
  double* big = malloc(sizeof(double) * BIG);
  double* big_in = malloc(sizeof(double) * BIG);
  for (int i = 0; i < BIG; ++i) big[i] = rank + i * 0.25;
  MPI_Request s_big;
  MPI_Isend(big, BIG, MPI_DOUBLE, right, 11, dup, &s_big);
  int small_out[2] = {rank, 2 * rank};
  MPI_Send(&small_out[0], 1, MPI_INT, right, 12, MPI_COMM_WORLD);
  MPI_Send(&small_out[1], 1, MPI_INT, right, 12, MPI_COMM_WORLD); /* same tag: must stay second */
  int half_rank;
  MPI_Comm_rank(half, &half_rank);
  MPI_Send(&half_rank, 1, MPI_INT, 0, 13, half);
  MPI_Barrier(MPI_COMM_WORLD);

  int (*hook)(void) = yadokari_test_state_roundtrip;
  if (argc > 1 && strcmp(argv[1], "swap") == 0) hook = yadokari_swap_library;
  if (hook) {
    if (hook() != MPI_SUCCESS) {
      printf("rank %d: the state round trip failed\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }

  MPI_Request freed_type_pair[2] = {trecv, tsend};
  MPI_Startall(2, freed_type_pair);
  MPI_Waitall(2, freed_type_pair, sts);
  int tcount = 0;
  MPI_Get_count(&sts[0], MPI_DOUBLE, &tcount);
  printf("rank %d persistent over a freed type: %d doubles %.2f %.2f %.2f\n", rank, tcount, tbuf_in[0], tbuf_in[1],
         tbuf_in[2]);
  MPI_Request_free(&freed_type_pair[0]);
  MPI_Request_free(&freed_type_pair[1]);
  MPI_Type_free(&one_int);

  MPI_Comm_call_errhandler(marked_comm, MPI_ERR_OTHER);
  printf("rank %d handler freed while set: marked %d, other %d\n", rank, marked, other);
  MPI_Errhandler_free(&eh_other);
  MPI_Comm_free(&marked_comm);

  /* In-flight messages, in an order different from the sending one. */
  MPI_Status st;
  int count;
  MPI_Recv(big_in, BIG, MPI_DOUBLE, MPI_ANY_SOURCE, 11, dup, &st);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  printf("rank %d big: %d doubles from %d checksum %.2f\n", rank, count, st.MPI_SOURCE, checksum(big_in, count));
  MPI_Wait(&s_big, &st);
  if (half_rank == 0) {
    int from[2];
    for (int i = 0; i < 2; ++i)
      MPI_Recv(&from[i], 1, MPI_INT, i == 0 ? 1 : MPI_ANY_SOURCE, 13, half, MPI_STATUS_IGNORE);
    printf("rank %d half root got %d %d\n", rank, from[0], from[1]);
  }
  int small_in[2];
  MPI_Recv(&small_in[0], 1, MPI_INT, left, 12, MPI_COMM_WORLD, &st);
  MPI_Recv(&small_in[1], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  printf("rank %d small: %d then %d (tag %d)\n", rank, small_in[0], small_in[1], st.MPI_TAG);
  MPI_Wait(&r_early, &st);
  printf("rank %d early: %d from %d tag %d\n", rank, early, st.MPI_SOURCE, st.MPI_TAG);

  /* Messages for the receives posted before the hook. */
  int any_out = 50 + rank, one = 1, two = 2;
  MPI_Send(&any_out, 1, MPI_INT, right, 21, dup);
  double strided_out[6];
  for (int i = 0; i < 6; ++i) strided_out[i] = rank * 10 + i;
  MPI_Send(strided_out, 1, every_other, right, 22, MPI_COMM_WORLD);
  MPI_Send(&cart_value, 0, MPI_INT, cart_dst, 99, cart); /* a zero-size message the wildcard must not take */
  int cart_out = 70 + rank;
  MPI_Send(&cart_out, 1, MPI_INT, cart_dst, 23, cart);
  MPI_Send(&one, 1, MPI_INT, right, 24, MPI_COMM_WORLD);
  MPI_Send(&two, 1, MPI_INT, right, 24, MPI_COMM_WORLD);
  MPI_Start(&psend);
  MPI_Wait(&r_any, &st);
  printf("rank %d any-source on dup: %d from %d\n", rank, any_value, st.MPI_SOURCE);
  MPI_Wait(&r_strided, &st);
  printf("rank %d strided: %.0f %.0f %.0f %.0f\n", rank, strided[0], strided[1], strided[2], strided[4]);
  MPI_Wait(&r_cart, &st);
  printf("rank %d cart: %d from %d (cart source %d)\n", rank, cart_value, st.MPI_SOURCE, cart_src);
  MPI_Recv(&count, 0, MPI_INT, cart_src, 99, cart, MPI_STATUS_IGNORE);
  MPI_Waitall(2, alike, sts);
  printf("rank %d alike receives in posting order: %d %d\n", rank, first, second);
  MPI_Request pr2[2] = {precv, psend};
  MPI_Waitall(2, pr2, sts);
  printf("rank %d persistent round 2: %.0f\n", rank, pbuf_in);

  /* Persistent requests keep working, including the pair never started before the hook. */
  pbuf_out = 5 * rank;
  MPI_Request all[4] = {precv, psend, qrecv, qsend};
  MPI_Startall(4, all);
  MPI_Waitall(4, all, sts);
  printf("rank %d persistent round 3: %.0f %.0f, wildcard matched %d\n", rank, pbuf_in, qbuf_in, sts[2].MPI_SOURCE);
  for (int i = 0; i < 4; ++i) MPI_Request_free(&all[i]);

  /* Objects made before the hook. */
  int v = rank + 1, sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half);
  int coords[2];
  MPI_Cart_coords(cart, rank, 2, coords);
  int row_sum = 0;
  MPI_Allreduce(&v, &row_sum, 1, MPI_INT, MPI_SUM, cart);
  int translated[2], from_pair[2] = {0, 1};
  MPI_Group world_again;
  MPI_Comm_group(MPI_COMM_WORLD, &world_again);
  MPI_Group_translate_ranks(pair_group, 2, from_pair, world_again, translated);
  MPI_Group_free(&world_again);
  g_op_saw_pair = 0;
  pair_in[0] = -pair_in[0];
  MPI_Allreduce(pair_in, pair_out, 1, g_pair, op, dup);
  int bad = MPI_Send(&v, 1, MPI_INT, size + 3, 0, half);
  int handled_on_half = handled_on == half;
  printf(
      "rank %d after: half sum %d cart (%d,%d) sum %d group %d %d maxabs %d %d op saw pair %d err %d handled %d on "
      "half %d\n",
      rank, sum, coords[0], coords[1], row_sum, translated[0], translated[1], pair_out[0], pair_out[1],
      g_op_saw_pair > 0, bad != MPI_SUCCESS, handled, handled_on_half);

  char value[32] = "";
  int flag = 0, nkeys = 0;
  MPI_Info_get(info, "yadokari_colour", sizeof value - 1, value, &flag);
  MPI_Info_get_nkeys(info, &nkeys);
  printf("rank %d info: %s (%d) keys %d\n", rank, value, flag, nkeys);

  int* got = NULL;
  MPI_Comm_get_attr(dup, comm_key, &got, &flag);
  printf("rank %d dup attribute: %d (%d)\n", rank, flag ? *got : -1, flag);
  MPI_Comm_get_attr(MPI_COMM_WORLD, comm_key, &got, &flag);
  printf("rank %d world attribute: %d (%d)\n", rank, flag ? *got : -1, flag);
  MPI_Type_get_attr(every_other, type_key, &got, &flag);
  printf("rank %d type attribute: %d (%d)\n", rank, flag ? *got : -1, flag);
  {
    int indegree = 0, outdegree = 0, weighted = 0, source = -1, source_weight = -1, destination = -1,
        destination_weight = -1, got_from[1] = {-1};
    MPI_Dist_graph_neighbors_count(chain, &indegree, &outdegree, &weighted);
    MPI_Dist_graph_neighbors(chain, indegree, &source, &source_weight, outdegree, &destination, &destination_weight);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, got_from, 1, MPI_INT, chain);
    printf("rank %d chain: in %d out %d weighted %d from %d (%d) to %d (%d) got %d\n", rank, indegree, outdegree,
           weighted, indegree ? source : -1, indegree ? source_weight : -1, outdegree ? destination : -1,
           outdegree ? destination_weight : -1, indegree ? got_from[0] : -1);
  }
  char names[4][MPI_MAX_OBJECT_NAME];
  int length = 0;
  MPI_Comm_get_name(dup, names[0], &length);
  MPI_Comm_get_name(MPI_COMM_WORLD, names[1], &length);
  MPI_Type_get_name(g_pair, names[2], &length);
  MPI_Type_get_name(MPI_FLOAT, names[3], &length);
  printf("rank %d names: '%s' '%s' '%s' '%s'\n", rank, names[0], names[1], names[2], names[3]);
  MPI_Comm dup2;
  MPI_Comm_dup(dup, &dup2);
  MPI_Comm_get_attr(dup2, comm_key, &got, &flag);
  printf("rank %d attribute copied by dup: %d (%d) copies %d\n", rank, flag ? *got : -1, flag, copies);
  int ub_flag = 0;
  int* tag_ub = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &ub_flag);
  printf("rank %d tag_ub present %d\n", rank, ub_flag && *tag_ub >= 32767);

  /* New objects after the hook, and traffic on them. */
  MPI_Comm third;
  MPI_Comm_split(cart, coords[1], rank, &third);
  int third_sum = 0;
  MPI_Allreduce(&v, &third_sum, 1, MPI_INT, MPI_SUM, third);
  printf("rank %d new split after the hook: %d\n", rank, third_sum);

  MPI_Comm_free(&dup2);
  MPI_Comm_free(&third);
  printf("rank %d attribute deletes %d\n", rank, deletes);
  MPI_Comm_free_keyval(&comm_key);
  MPI_Type_free_keyval(&type_key);
  MPI_Errhandler_free(&eh);
  MPI_Op_free(&op);
  MPI_Info_free(&info);
  MPI_Type_free(&every_other);
  MPI_Type_free(&g_pair);
  MPI_Group_free(&pair_group);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&chain);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  free(big);
  free(big_in);
  MPI_Finalize();
  return 0;
}
