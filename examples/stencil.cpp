// stencil: 2D heat diffusion on a periodic Cartesian process grid, written against the C API.
//
// Exercises what a handle-virtualising shim must recreate: a Cartesian communicator
// (MPI_Dims_create, MPI_Cart_create/coords/shift/sub), MPI_Comm_split, a group-built communicator
// (MPI_Comm_group, MPI_Group_incl, MPI_Comm_create, which gives MPI_COMM_NULL to non-members),
// derived datatypes (contiguous, vector, subarray), non-blocking point-to-point
// (MPI_Isend/MPI_Irecv/MPI_Waitall) and a non-blocking collective (MPI_Iallreduce) that is
// outstanding while a blocking MPI_Reduce runs on the same communicator.
//
// Rank 0 prints one line per iteration and a final line; "final" is computed on the gathered
// grid in global order, so it is the same for every rank count.
//
// usage: stencil [nrows [ncols [iters]]]   (--timing prints the run time to stderr)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Direction a halo message travels; used as its tag, so the two messages between the same pair
// of ranks (a 2-wide periodic dimension makes north == south) can never be confused.
enum Tag { kNorthward = 10, kSouthward = 11, kWestward = 12, kEastward = 13 };

// Block distribution of n cells over p ranks: the first n % p ranks get one extra.
int block_count(int n, int p, int c) { return n / p + (c < n % p ? 1 : 0); }
int block_start(int n, int p, int c) { return c * (n / p) + (c < n % p ? c : n % p); }

// Deterministic initial field: a few hot spots on a cold background.
double initial_value(int gi, int gj) { return ((gi * 7 + gj * 13) % 23 == 0) ? 100.0 : (gi + gj) % 5 * 0.5; }

struct Local {
  int n0, n1;                        // interior rows, columns
  int s0, s1;                        // global index of the first interior row, column
  int ld() const { return n1 + 2; }  // row stride including the two halo columns
};

}  // namespace

int main(int argc, char** argv) {
  // FUNNELED rather than MPI_Init so the shim's MPI_Init_thread wrapper is exercised too.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int wrank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int params[4] = {64, 48, 20, 0};  // rows, columns, iterations, timing
  if (wrank == 0) {
    int pos = 0;
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], "--timing") == 0)
        params[3] = 1;
      else if (pos < 3)
        params[pos++] = std::atoi(argv[i]);
    }
  }
  MPI_Bcast(params, 4, MPI_INT, 0, MPI_COMM_WORLD);
  const int nx = params[0], ny = params[1], iters = params[2];
  const double t0 = MPI_Wtime();

  // Periodic 2D process grid; reorder = 0 keeps cart rank == world rank, so rank 0 prints.
  int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
  MPI_Dims_create(size, 2, dims);
  if (nx < dims[0] || ny < dims[1]) {
    if (wrank == 0) std::fprintf(stderr, "stencil: grid %dx%d too small for %dx%d ranks\n", nx, ny, dims[0], dims[1]);
    MPI_Finalize();
    return 1;
  }
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int rank = 0;
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 2, coords);
  int north, south, west, east;
  MPI_Cart_shift(cart, 0, 1, &north, &south);
  MPI_Cart_shift(cart, 1, 1, &west, &east);

  const Local loc{block_count(nx, dims[0], coords[0]), block_count(ny, dims[1], coords[1]),
                  block_start(nx, dims[0], coords[0]), block_start(ny, dims[1], coords[1])};
  const int ld = loc.ld();
  std::vector<double> u((loc.n0 + 2) * ld, 0.0), unew(u.size(), 0.0);
  auto at = [ld](std::vector<double>& a, int i, int j) -> double& { return a[i * ld + j]; };
  for (int i = 1; i <= loc.n0; ++i)
    for (int j = 1; j <= loc.n1; ++j) at(u, i, j) = initial_value(loc.s0 + i - 1, loc.s1 + j - 1);

  // A row of the block is contiguous; a column is a strided vector through the halo'd array.
  MPI_Datatype row_t, col_t, interior_t;
  MPI_Type_contiguous(loc.n1, MPI_DOUBLE, &row_t);
  MPI_Type_vector(loc.n0, 1, ld, MPI_DOUBLE, &col_t);
  const int full[2] = {loc.n0 + 2, ld}, sub[2] = {loc.n0, loc.n1}, first[2] = {1, 1};
  MPI_Type_create_subarray(2, full, sub, first, MPI_ORDER_C, MPI_DOUBLE, &interior_t);
  MPI_Type_commit(&row_t);
  MPI_Type_commit(&col_t);
  MPI_Type_commit(&interior_t);

  const double alpha = 0.2;  // explicit scheme is stable for alpha <= 0.25
  double energy = 0.0;
  for (int it = 1; it <= iters; ++it) {
    MPI_Request req[8];
    MPI_Irecv(&at(u, 0, 1), 1, row_t, north, kSouthward, cart, &req[0]);
    MPI_Irecv(&at(u, loc.n0 + 1, 1), 1, row_t, south, kNorthward, cart, &req[1]);
    MPI_Irecv(&at(u, 1, 0), 1, col_t, west, kEastward, cart, &req[2]);
    MPI_Irecv(&at(u, 1, loc.n1 + 1), 1, col_t, east, kWestward, cart, &req[3]);
    MPI_Isend(&at(u, 1, 1), 1, row_t, north, kNorthward, cart, &req[4]);
    MPI_Isend(&at(u, loc.n0, 1), 1, row_t, south, kSouthward, cart, &req[5]);
    MPI_Isend(&at(u, 1, 1), 1, col_t, west, kWestward, cart, &req[6]);
    MPI_Isend(&at(u, 1, loc.n1), 1, col_t, east, kEastward, cart, &req[7]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);

    double local_max = 0.0, local_energy = 0.0;
    for (int i = 1; i <= loc.n0; ++i)
      for (int j = 1; j <= loc.n1; ++j) {
        const double c = at(u, i, j);
        const double lap = at(u, i - 1, j) + at(u, i + 1, j) + at(u, i, j - 1) + at(u, i, j + 1) - 4.0 * c;
        const double v = c + alpha * lap;
        at(unew, i, j) = v;
        local_energy += v * v;
        const double d = v > c ? v - c : c - v;
        if (d > local_max) local_max = d;
      }
    u.swap(unew);

    // The max change travels in a non-blocking collective while the energy is reduced with a
    // blocking one on the same communicator (MPI allows both to be in flight).
    double max_change = 0.0;
    MPI_Request ireq;
    MPI_Iallreduce(&local_max, &max_change, 1, MPI_DOUBLE, MPI_MAX, cart, &ireq);
    MPI_Reduce(&local_energy, &energy, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
    MPI_Wait(&ireq, MPI_STATUS_IGNORE);
    if (rank == 0) std::printf("iter %d checksum %.15e maxchange %.15e\n", it, energy, max_change);
  }

  // Row communicators: each row of the process grid sums its energy; report the largest row.
  double local_energy = 0.0, local_min = 1e300;
  for (int i = 1; i <= loc.n0; ++i)
    for (int j = 1; j <= loc.n1; ++j) {
      local_energy += at(u, i, j) * at(u, i, j);
      if (at(u, i, j) < local_min) local_min = at(u, i, j);
    }
  MPI_Comm row_comm;
  MPI_Comm_split(cart, coords[0], coords[1], &row_comm);
  double row_energy = 0.0, max_row_energy = 0.0;
  MPI_Allreduce(&local_energy, &row_energy, 1, MPI_DOUBLE, MPI_SUM, row_comm);
  MPI_Reduce(&row_energy, &max_row_energy, 1, MPI_DOUBLE, MPI_MAX, 0, cart);

  // Column communicators from the topology itself; min and max are exact in any order.
  MPI_Comm col_comm;
  const int keep[2] = {1, 0};
  MPI_Cart_sub(cart, keep, &col_comm);
  double col_min = 0.0, max_col_min = 0.0;
  MPI_Allreduce(&local_min, &col_min, 1, MPI_DOUBLE, MPI_MIN, col_comm);
  MPI_Reduce(&col_min, &max_col_min, 1, MPI_DOUBLE, MPI_MAX, 0, cart);

  // A communicator of the even ranks built from a group; odd ranks get MPI_COMM_NULL.
  MPI_Group cart_group, even_group;
  MPI_Comm_group(cart, &cart_group);
  std::vector<int> evens;
  for (int r = 0; r < size; r += 2) evens.push_back(r);
  MPI_Group_incl(cart_group, static_cast<int>(evens.size()), evens.data(), &even_group);
  MPI_Comm even_comm;
  MPI_Comm_create(cart, even_group, &even_comm);
  long even_cells = 0;
  int even_size = 0;
  if (even_comm != MPI_COMM_NULL) {
    long cells = static_cast<long>(loc.n0) * loc.n1;
    MPI_Allreduce(&cells, &even_cells, 1, MPI_LONG, MPI_SUM, even_comm);
    MPI_Comm_size(even_comm, &even_size);
    // The last even rank, seen from the parent group, must be the last even cart rank.
    int last = even_size - 1, last_in_cart = -1;
    MPI_Group_translate_ranks(even_group, 1, &last, cart_group, &last_in_cart);
    if (last_in_cart != evens.back()) {
      std::fprintf(stderr, "stencil: translate_ranks gave %d, want %d\n", last_in_cart, evens.back());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_free(&even_comm);
  }
  MPI_Group_free(&even_group);
  MPI_Group_free(&cart_group);

  // Gather every block to rank 0: the send side is the interior subarray of the halo'd array;
  // block shapes come from an Allgather so rank 0 can place them.
  int shape[4] = {loc.n0, loc.n1, loc.s0, loc.s1};
  std::vector<int> shapes(4 * size);
  MPI_Allgather(shape, 4, MPI_INT, shapes.data(), 4, MPI_INT, cart);
  std::vector<int> counts(size), displs(size);
  for (int r = 0, off = 0; r < size; ++r) {
    counts[r] = shapes[4 * r] * shapes[4 * r + 1];
    displs[r] = off;
    off += counts[r];
  }
  std::vector<double> packed(rank == 0 ? static_cast<size_t>(nx) * ny : 0);
  MPI_Gatherv(u.data(), 1, interior_t, packed.data(), counts.data(), displs.data(), MPI_DOUBLE, 0, cart);

  if (rank == 0) {
    std::vector<double> grid(static_cast<size_t>(nx) * ny);
    for (int r = 0; r < size; ++r) {
      const int* s = &shapes[4 * r];
      for (int i = 0; i < s[0]; ++i)
        for (int j = 0; j < s[1]; ++j) grid[(s[2] + i) * ny + s[3] + j] = packed[displs[r] + i * s[1] + j];
    }
    double total = 0.0;
    for (double v : grid) total += v * v;
    std::printf("grid %dx%d procs %dx%d\n", nx, ny, dims[0], dims[1]);
    std::printf("max row energy %.15e\n", max_row_energy);
    std::printf("max column min %.15e\n", max_col_min);
    std::printf("even ranks %d cells %ld\n", even_size, even_cells);
    std::printf("final %.15e\n", total);
    if (params[3]) std::fprintf(stderr, "stencil: %.3f s\n", MPI_Wtime() - t0);
  }

  MPI_Type_free(&interior_t);
  MPI_Type_free(&col_t);
  MPI_Type_free(&row_t);
  MPI_Comm_free(&col_comm);
  MPI_Comm_free(&row_comm);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
