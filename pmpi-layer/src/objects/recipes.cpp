// Recipes whose arguments are arrays: flattened into Recipe::ints in the order of the call's
// arguments, so re-creating the object is a matter of reading them back in the same order.
#include "pmpi-layer/src/objects/object_hooks.hpp"

namespace yadokari::shim {
namespace {

template <class T>
void append(std::vector<std::int64_t>& out, const T* values, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<std::int64_t>(values[i]));
}

}  // namespace

Recipe recipe_cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder) {
  Recipe r = recipe(RecipeOp::cart_create, {ndims}, {hv(old)});
  append(r.ints, dims, ndims);
  append(r.ints, periods, ndims);
  r.ints.push_back(reorder);
  return r;
}

Recipe recipe_cart_sub(MPI_Comm comm, const int remain_dims[]) {
  const int n = cart_ndims(comm);
  Recipe r = recipe(RecipeOp::cart_sub, {n}, {hv(comm)});
  append(r.ints, remain_dims, n);
  return r;
}

Recipe recipe_split_type(MPI_Comm comm, MPI_Comm made, int key) {
  // Which ranks share a node (MPI_COMM_TYPE_SHARED and the like) changes with every restart that
  // places them otherwise; the application's communicator must not. So the split is recorded as
  // the MPI_Comm_split that makes the same members in the same order: the colour is the parent
  // rank of the result's first member, the key the rank in the result.
  int colour = MPI_UNDEFINED, order = key;
  if (made != MPI_COMM_NULL) {
    MPI_Group made_group = MPI_GROUP_NULL, parent_group = MPI_GROUP_NULL;
    PMPI_Comm_group(made, &made_group);
    PMPI_Comm_group(to_real<CommK>(comm), &parent_group);
    const int first = 0;
    PMPI_Group_translate_ranks(made_group, 1, &first, parent_group, &colour);
    PMPI_Comm_rank(made, &order);
    PMPI_Group_free(&made_group);
    PMPI_Group_free(&parent_group);
  }
  return recipe(RecipeOp::comm_split, {colour, order}, {hv(comm)});
}

Recipe recipe_graph_create(MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder) {
  Recipe r = recipe(RecipeOp::graph_create, {nnodes}, {hv(old)});
  append(r.ints, index, nnodes);
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  r.ints.push_back(nedges);
  append(r.ints, edges, nedges);
  r.ints.push_back(reorder);
  return r;
}

namespace {

// How a weights argument of MPI_Dist_graph_create_adjacent was given (DistGraphWeights in recipe.hpp).
std::int64_t weights_kind(const int weights[]) {
  if (weights == MPI_UNWEIGHTED) return kWeightsUnweighted;
  if (weights == MPI_WEIGHTS_EMPTY) return kWeightsEmpty;
  return kWeightsGiven;
}

}  // namespace

Recipe recipe_dist_graph_adjacent(MPI_Comm old, int indegree, const int sources[], const int sourceweights[],
                                  int outdegree, const int destinations[], const int destweights[], int reorder) {
  // Each side as given: a rank with no in-edges passes MPI_WEIGHTS_EMPTY (or any array) for its
  // source weights while its destinations are weighted, and the graph is weighted on every rank.
  const std::int64_t sources_kind = weights_kind(sourceweights), destinations_kind = weights_kind(destweights);
  Recipe r =
      recipe(RecipeOp::dist_graph_create_adjacent,
             {indegree, outdegree, dist_graph_weights_code(sources_kind, destinations_kind), reorder}, {hv(old)});
  append(r.ints, sources, indegree);
  append(r.ints, destinations, outdegree);
  if (sources_kind == kWeightsGiven) append(r.ints, sourceweights, indegree);
  if (destinations_kind == kWeightsGiven) append(r.ints, destweights, outdegree);
  return r;
}

Recipe recipe_ranks(RecipeOp op, MPI_Group group, int n, const int ranks[]) {
  Recipe r = recipe(op, {n}, {hv(group)});
  append(r.ints, ranks, n);
  return r;
}

Recipe recipe_blocks(RecipeOp op, int count, const int blocklengths[], const int displacements[], MPI_Datatype old) {
  Recipe r = recipe(op, {count}, {hv(old)});
  append(r.ints, blocklengths, count);
  append(r.ints, displacements, count);
  return r;
}

Recipe recipe_blocks(RecipeOp op, int count, const int blocklengths[], const MPI_Aint displacements[],
                     MPI_Datatype old) {
  Recipe r = recipe(op, {count}, {hv(old)});
  append(r.ints, blocklengths, count);
  append(r.ints, displacements, count);
  return r;
}

Recipe recipe_block(RecipeOp op, int count, int blocklength, const int displacements[], MPI_Datatype old) {
  Recipe r = recipe(op, {count, blocklength}, {hv(old)});
  append(r.ints, displacements, count);
  return r;
}

Recipe recipe_block(RecipeOp op, int count, int blocklength, const MPI_Aint displacements[], MPI_Datatype old) {
  Recipe r = recipe(op, {count, blocklength}, {hv(old)});
  append(r.ints, displacements, count);
  return r;
}

Recipe recipe_struct(int count, const int blocklengths[], const MPI_Aint displacements[], const MPI_Datatype types[]) {
  Recipe r = recipe(RecipeOp::type_struct, {count});
  append(r.ints, blocklengths, count);
  append(r.ints, displacements, count);
  for (int i = 0; i < count; ++i) r.parents.push_back(hv(types[i]));
  return r;
}

Recipe recipe_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                       MPI_Datatype old) {
  Recipe r = recipe(RecipeOp::type_subarray, {ndims, order}, {hv(old)});
  append(r.ints, sizes, ndims);
  append(r.ints, subsizes, ndims);
  append(r.ints, starts, ndims);
  return r;
}

Recipe recipe_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[],
                     const int psizes[], int order, MPI_Datatype old) {
  Recipe r = recipe(RecipeOp::type_darray, {size, rank, ndims, order}, {hv(old)});
  append(r.ints, gsizes, ndims);
  append(r.ints, distribs, ndims);
  append(r.ints, dargs, ndims);
  append(r.ints, psizes, ndims);
  return r;
}

}  // namespace yadokari::shim
