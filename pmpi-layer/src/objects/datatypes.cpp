#include "pmpi-layer/src/objects/object_hooks.hpp"

namespace yadokari::shim {

void mark_committed(MPI_Datatype type) {
  if (auto* rec = record_of<TypeK>(type)) rec->committed = true;
}

void remember_type_name(MPI_Datatype type, const char* name) {
  if (auto* rec = record_of<TypeK>(type))
    rec->name = name;
  else
    g_predefined_type_names[hv(type)] = name;
}

MPI_Datatype type_from_contents(MPI_Datatype real) { return another_reference<TypeK>(real); }

}  // namespace yadokari::shim
