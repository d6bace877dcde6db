// MPICH's Fortran attribute bindings bypass the C API: mpi_comm_get_attr_ & co. call MPICH's
// internal MPII_* functions with the Fortran integer, which under the shim is a virtual handle.
// Interpose those internals: translate the communicator/datatype for the library's predefined
// keyvals (MPI_TAG_UB and friends, what Fortran codes query), and stop clearly for Fortran
// user keyvals, which the shim does not support yet.
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/shim/api.hpp"

#include <dlfcn.h>

#include <cstdio>

namespace {

using CommGetAttr = int (*)(MPI_Comm, int, void*, int*, int);
using CommSetAttr = int (*)(MPI_Comm, int, void*, int);
using TypeGetAttr = int (*)(MPI_Datatype, int, void*, int*, int);
using TypeSetAttr = int (*)(MPI_Datatype, int, void*, int);

// Resolved when the shim is loaded, never lazily (docs/architecture.md, pitfall 8).
CommGetAttr g_comm_get = reinterpret_cast<CommGetAttr>(dlsym(RTLD_NEXT, "MPII_Comm_get_attr"));
CommSetAttr g_comm_set = reinterpret_cast<CommSetAttr>(dlsym(RTLD_NEXT, "MPII_Comm_set_attr"));
TypeGetAttr g_type_get = reinterpret_cast<TypeGetAttr>(dlsym(RTLD_NEXT, "MPII_Type_get_attr"));
TypeSetAttr g_type_set = reinterpret_cast<TypeSetAttr>(dlsym(RTLD_NEXT, "MPII_Type_set_attr"));

// Predefined attributes live on the real MPI_COMM_WORLD.
MPI_Comm real_for_attributes(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD ? MPI_COMM_WORLD : yadokari::shim::to_real<yadokari::shim::CommK>(comm);
}

}  // namespace

extern "C" YK_API int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag, int type) {
  return g_comm_get(real_for_attributes(comm), keyval, value, flag, type);
}

// The library's own PMPI_Comm_set_attr tail-calls these too, always with real handles (that
// is what the C wrappers pass); only a virtual handle means the call came from Fortran.
extern "C" YK_API int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void* value, int type) {
  if (yadokari::shim::codec::is_virtual(comm)) yadokari_unsupported_call("MPI_Comm_set_attr", "Fortran");
  return g_comm_set(comm, keyval, value, type);
}

extern "C" YK_API int MPII_Type_get_attr(MPI_Datatype type, int keyval, void* value, int* flag, int kind) {
  return g_type_get(yadokari::shim::to_real<yadokari::shim::TypeK>(type), keyval, value, flag, kind);
}

extern "C" YK_API int MPII_Type_set_attr(MPI_Datatype type, int keyval, void* value, int kind) {
  if (yadokari::shim::codec::is_virtual(type)) yadokari_unsupported_call("MPI_Type_set_attr", "Fortran");
  return g_type_set(type, keyval, value, kind);
}

extern "C" YK_API void MPII_Keyval_set_proxy(int, void*, void*) {
  yadokari_unsupported_call("MPI_Comm_create_keyval / MPI_Type_create_keyval", "Fortran");
}
