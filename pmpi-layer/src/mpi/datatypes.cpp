#include "mpi/wrapper_support.hpp"

namespace yk {

void mark_committed(MPI_Datatype type) {
  if (auto* rec = record_of<TypeK>(type)) rec->committed = true;
}

// MPI_Type_get_contents returns handles the app must free if they are derived types. The
// library hands back its own object (reference counted), so the app gets a fresh virtual handle
// for it: freeing that one frees the library's extra reference and leaves the original alone.
MPI_Datatype type_from_contents(MPI_Datatype real) {
  auto& reg = registry<TypeK>();
  auto it = reg.by_real.find(codec::to_u64(real));
  if (it == reg.by_real.end()) return real;  // predefined
  const MPI_Datatype original = codec::encode<MPI_Datatype>(TypeK::code, it->second);
  return adopt<TypeK>(real, recipe(RecipeOp::type_dup, {}, {hv(original)}), DatatypeRecord{{}, true});
}

}  // namespace yk
