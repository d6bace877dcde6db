// How a virtual MPI object was made, kept so that after a restart the object can be made again
// on a fresh library: the constructor, its integer arguments and the virtual handles of the
// objects it was made from (parents are re-created first). MPI-free; handles are stored as the
// opaque 64-bit values the application holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::shim {

enum class RecipeOp : std::uint16_t {
  predefined,  // a library constant (MPI_INT, MPI_SUM, ...) or the virtual world
  // communicators
  comm_dup,
  comm_split,
  comm_split_type,
  comm_create,
  comm_create_group,
  cart_create,
  cart_sub,
  graph_create,
  dist_graph_create,
  dist_graph_create_adjacent,
  intercomm_create,
  intercomm_merge,
  // groups
  comm_group,
  comm_remote_group,
  group_incl,
  group_excl,
  group_range_incl,
  group_range_excl,
  group_union,
  group_intersection,
  group_difference,
  // datatypes
  type_contiguous,
  type_vector,
  type_hvector,
  type_indexed,
  type_hindexed,
  type_indexed_block,
  type_hindexed_block,
  type_struct,
  type_subarray,
  type_darray,
  type_resized,
  type_dup,
  // others
  op_create,
  errhandler_create,
  info_create,
  info_dup,
};

struct Recipe {
  RecipeOp op = RecipeOp::predefined;
  std::vector<std::int64_t> ints;      // counts, colours, block lengths, displacements...
  std::vector<std::uint64_t> parents;  // virtual handles the object was made from
  std::uintptr_t function = 0;         // user function (op, errhandler) if any

  static Recipe make(RecipeOp op, std::vector<std::int64_t> ints = {}, std::vector<std::uint64_t> parents = {}) {
    return Recipe{op, std::move(ints), std::move(parents), 0};
  }
};

// dist_graph_create_adjacent's third integer: how each weights argument was given. Images of
// builds before this kept 0 (both MPI_UNWEIGHTED) or 1 (both arrays); since, 2 + 3 * sources' kind
// + destinations' kind, each kind one of these (weights follow the edges only for kWeightsGiven).
inline constexpr std::int64_t kWeightsUnweighted = 0, kWeightsEmpty = 1, kWeightsGiven = 2;
inline constexpr std::int64_t dist_graph_weights_code(std::int64_t sources_kind, std::int64_t destinations_kind) {
  return 2 + 3 * sources_kind + destinations_kind;
}
struct DistGraphWeights {
  std::int64_t sources_kind = kWeightsUnweighted, destinations_kind = kWeightsUnweighted;
};
inline constexpr DistGraphWeights dist_graph_weights(std::int64_t code) {
  if (code == 0) return {kWeightsUnweighted, kWeightsUnweighted};
  if (code == 1) return {kWeightsGiven, kWeightsGiven};
  return {(code - 2) / 3, (code - 2) % 3};
}

const char* recipe_op_name(RecipeOp op);

}  // namespace yadokari::shim
