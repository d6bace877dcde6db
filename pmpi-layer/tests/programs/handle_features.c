/* Exercises the parts of the shim a typical solver does not: user ops, error handlers,
 * attributes with copy/delete callbacks, derived-type introspection, persistent requests,
 * Waitany/Testsome, probes and matched probes, groups, info, Fortran handle conversion.
 * Prints deterministic lines; the test compares a native run with a run under the shim. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

/* MPI_COMM_SELF's attributes are deleted at MPI_Finalize, last set first (MPI 3.1 §8.7.1). */
static int self_deleted(MPI_Comm comm, int key, void* value, void* extra) {
  (void)key;
  (void)extra;
  if (rank == 0)
    printf("MPI_Finalize deletes MPI_COMM_SELF attribute %d (comm is self: %d)\n", *(int*)value, comm == MPI_COMM_SELF);
  return MPI_SUCCESS;
}

static void sum_abs(void* in, void* inout, int* len, MPI_Datatype* type) {
  int is_int = (*type == MPI_INT);
  for (int i = 0; i < *len; ++i) {
    if (is_int) ((int*)inout)[i] += ((int*)in)[i] < 0 ? -((int*)in)[i] : ((int*)in)[i];
  }
}

static int errors_seen = 0;
static MPI_Comm handler_comm_seen = MPI_COMM_NULL;
static void on_error(MPI_Comm* comm, int* code, ...) {
  (void)code;
  ++errors_seen;
  handler_comm_seen = *comm;
}

static int copies = 0, deletes = 0;
static int copy_attr(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
  (void)c;
  (void)k;
  (void)extra;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}
static int delete_attr(MPI_Comm c, int k, void* val, void* extra) {
  (void)c;
  (void)k;
  (void)val;
  (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* user reduction: the op sees the app's datatype handle */
  MPI_Op op;
  MPI_Op_create(sum_abs, 1, &op);
  int mine = (rank % 2) ? -(rank + 1) : (rank + 1), total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, op, MPI_COMM_WORLD);
  MPI_Op_free(&op);
  if (rank == 0) printf("user op: %d (op freed: %d)\n", total, op == MPI_OP_NULL);

  /* error handler called with the app's communicator */
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(on_error, &eh);
  MPI_Comm_set_errhandler(dup, eh);
  int rc = MPI_Send(&mine, 1, MPI_INT, size + 5, 0, dup); /* invalid rank */
  if (rank == 0)
    printf("errhandler: rc!=0 %d, calls %d, same comm %d\n", rc != MPI_SUCCESS, errors_seen, handler_comm_seen == dup);
  MPI_Errhandler got;
  MPI_Comm_get_errhandler(dup, &got);
  if (rank == 0) printf("get_errhandler returns the app's handle: %d\n", got == eh);
  MPI_Errhandler_free(&got);
  MPI_Errhandler_free(&eh);

  /* attributes: copied on dup, deleted on free; predefined ones still answer */
  int key;
  MPI_Comm_create_keyval(copy_attr, delete_attr, &key, NULL);
  static int value = 42;
  MPI_Comm_set_attr(dup, key, &value);
  MPI_Comm dup2;
  MPI_Comm_dup(dup, &dup2);
  int* got_value = NULL;
  int flag = 0;
  MPI_Comm_get_attr(dup2, key, &got_value, &flag);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
  MPI_Comm_free_keyval(&key);
  int* tag_ub = NULL;
  int tflag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &tflag);
  if (rank == 0)
    printf("attributes: flag %d value %d copies %d deletes %d comm freed %d tag_ub ok %d\n", flag,
           got_value ? *got_value : -1, copies, deletes, dup == MPI_COMM_NULL, tflag && *tag_ub >= 32767);

  /* derived datatype introspection */
  MPI_Datatype vec, contig, kids[1];
  MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec);
  MPI_Type_contiguous(2, vec, &contig);
  MPI_Type_commit(&contig);
  int ni, na, nd, combiner, ints[4];
  MPI_Aint addrs[1];
  MPI_Type_get_envelope(contig, &ni, &na, &nd, &combiner);
  MPI_Type_get_contents(contig, 4, 1, 1, ints, addrs, kids);
  int kid_size, contig_size;
  MPI_Type_size(kids[0], &kid_size);
  MPI_Type_size(contig, &contig_size);
  if (rank == 0)
    printf("type contents: combiner contiguous %d count %d kid size %d total %d\n", combiner == MPI_COMBINER_CONTIGUOUS,
           ints[0], kid_size, contig_size);
  MPI_Type_free(&kids[0]);
  MPI_Type_free(&contig);
  MPI_Type_free(&vec);

  /* persistent requests, Waitany, Testsome */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank * 10, in = -1, sum_in = 0;
  MPI_Request pr[2];
  MPI_Send_init(&out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &pr[0]);
  MPI_Recv_init(&in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &pr[1]);
  for (int it = 0; it < 3; ++it) {
    MPI_Startall(2, pr);
    int done = 0;
    while (done < 2) {
      int idx;
      MPI_Waitany(2, pr, &idx, MPI_STATUS_IGNORE);
      ++done;
    }
    sum_in += in;
    ++out;
  }
  MPI_Request_free(&pr[0]);
  MPI_Request_free(&pr[1]);
  int all = 0;
  MPI_Reduce(&sum_in, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("persistent ring sum: %d (freed %d)\n", all, pr[0] == MPI_REQUEST_NULL);

  MPI_Request rq[2];
  int a = rank, b = -1;
  MPI_Irecv(&b, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&a, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &rq[1]);
  int completed = 0, outcount, indices[2];
  MPI_Status sts[2];
  while (completed < 2) {
    MPI_Testsome(2, rq, &outcount, indices, sts);
    if (outcount != MPI_UNDEFINED) completed += outcount;
  }
  MPI_Allreduce(MPI_IN_PLACE, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("testsome: sum %d nulls %d\n", b, rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL);

  /* probe + matched probe with MPI_ANY_SOURCE */
  if (rank != 0) {
    int payload[3] = {rank, rank * rank, 7};
    MPI_Send(payload, 3, MPI_INT, 0, 3, MPI_COMM_WORLD);
  } else {
    int got_sum = 0;
    for (int i = 1; i < size; ++i) {
      MPI_Message msg;
      MPI_Status st;
      MPI_Mprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &msg, &st);
      int count;
      MPI_Get_count(&st, MPI_INT, &count);
      int buf[3];
      MPI_Mrecv(buf, count, MPI_INT, &msg, &st);
      got_sum += buf[0] + buf[1] + count + (st.MPI_SOURCE == buf[0]);
    }
    printf("mprobe: %d\n", got_sum);
  }

  /* groups, comm create, info */
  MPI_Group world_group, evens;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int range[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world_group, 1, range, &evens);
  MPI_Comm even_comm;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &even_comm);
  int even_size = -1;
  if (even_comm != MPI_COMM_NULL) {
    MPI_Comm_size(even_comm, &even_size);
    MPI_Comm_set_name(even_comm, "evens");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(even_comm, name, &len);
    if (rank == 0) printf("comm create: size %d name %s\n", even_size, name);
    MPI_Comm_free(&even_comm);
  }
  MPI_Group_free(&evens);
  MPI_Group_free(&world_group);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "yadokari_key", "shell");
  char val[16];
  int vflag;
  MPI_Info_get(info, "yadokari_key", 15, val, &vflag);
  MPI_Info_free(&info);
  if (rank == 0) printf("info: %d %s\n", vflag, val);

  /* Fortran handle conversion round trip */
  MPI_Fint f = MPI_Comm_c2f(MPI_COMM_WORLD);
  MPI_Comm back = MPI_Comm_f2c(f);
  int same;
  MPI_Comm_compare(back, MPI_COMM_WORLD, &same);
  if (rank == 0) printf("c2f/f2c world identical: %d\n", same == MPI_IDENT);

  static int first = 1, second = 2;
  int self_key1, self_key2;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_deleted, &self_key1, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_deleted, &self_key2, NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, self_key1, &first);
  MPI_Comm_set_attr(MPI_COMM_SELF, self_key2, &second);
  fflush(stdout);
  MPI_Finalize();
  fflush(stdout);
  return 0;
}
