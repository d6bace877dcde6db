#include "pmpi-layer/src/core/recipe.hpp"

namespace yadokari::shim {

const char* recipe_op_name(RecipeOp op) {
  switch (op) {
    // One name per op, as a list.
    // clang-format off
#define YK_NAME(x) \
  case RecipeOp::x: \
    return #x;
    YK_NAME(predefined) YK_NAME(comm_dup) YK_NAME(comm_split) YK_NAME(comm_split_type) YK_NAME(comm_create)
    YK_NAME(comm_create_group) YK_NAME(cart_create) YK_NAME(cart_sub) YK_NAME(graph_create)
    YK_NAME(dist_graph_create) YK_NAME(dist_graph_create_adjacent) YK_NAME(intercomm_create)
    YK_NAME(intercomm_merge) YK_NAME(comm_group) YK_NAME(comm_remote_group) YK_NAME(group_incl)
    YK_NAME(group_excl) YK_NAME(group_range_incl) YK_NAME(group_range_excl) YK_NAME(group_union)
    YK_NAME(group_intersection) YK_NAME(group_difference) YK_NAME(type_contiguous) YK_NAME(type_vector)
    YK_NAME(type_hvector) YK_NAME(type_indexed) YK_NAME(type_hindexed) YK_NAME(type_indexed_block)
    YK_NAME(type_hindexed_block) YK_NAME(type_struct) YK_NAME(type_subarray) YK_NAME(type_darray)
    YK_NAME(type_resized) YK_NAME(type_dup) YK_NAME(op_create) YK_NAME(errhandler_create)
    YK_NAME(info_create) YK_NAME(info_dup)
    // clang-format on
#undef YK_NAME
  }
  return "unknown";
}

}  // namespace yadokari::shim
