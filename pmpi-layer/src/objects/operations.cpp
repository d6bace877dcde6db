// User reduction operations and user error handlers: registered with the library through a
// trampoline slot (see trampolines.hpp).
#include "pmpi-layer/src/objects/operations.hpp"

#include "pmpi-layer/src/objects/trampolines.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/call_scope.hpp"

#include <cstdio>

namespace yadokari::shim {

int create_op(void* user_fn, int commute, bool fortran, MPI_Op* op) {
  const int slot = claim_op_slot(user_fn, fortran);
  if (slot < 0) {
    print_line("yadokari: more than %zu user reduction operations alive at once", kTrampolineSlots);
    return MPI_ERR_INTERN;
  }
  MPI_Op real = MPI_OP_NULL;
  const int rc = PMPI_Op_create(reinterpret_cast<MPI_User_function*>(op_trampoline(slot)), commute, &real);
  if (rc != MPI_SUCCESS) {
    release_op_slot(slot);
    return rc;
  }
  Recipe r = recipe(RecipeOp::op_create, {commute, fortran ? 1 : 0});
  r.function = reinterpret_cast<std::uintptr_t>(user_fn);
  *op = adopt<OpK>(real, std::move(r), OpRecord{reinterpret_cast<MPI_User_function*>(user_fn), commute, fortran, slot});
  return MPI_SUCCESS;
}

int create_errhandler(void* user_fn, bool fortran, MPI_Errhandler* errhandler) {
  const int slot = claim_errhandler_slot(user_fn, fortran);
  if (slot < 0) {
    print_line("yadokari: more than %zu user error handlers created", kTrampolineSlots);
    return MPI_ERR_INTERN;
  }
  MPI_Errhandler real = MPI_ERRHANDLER_NULL;
  const int rc =
      PMPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(errhandler_trampoline(slot)), &real);
  if (rc != MPI_SUCCESS) return rc;
  Recipe r = recipe(RecipeOp::errhandler_create, {fortran ? 1 : 0});
  r.function = reinterpret_cast<std::uintptr_t>(user_fn);
  *errhandler = adopt<ErrhK>(real, std::move(r),
                             ErrhandlerRecord{reinterpret_cast<MPI_Comm_errhandler_function*>(user_fn), fortran, slot});
  return MPI_SUCCESS;
}

void release_op_trampoline(MPI_Op op) {
  if (auto* rec = record_of<OpK>(op)) release_op_slot(rec->trampoline);
}

}  // namespace yadokari::shim

extern "C" YK_API int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  yadokari::shim::CallScope scope(yadokari::shim::Fn::MPI_Op_create);
  return yadokari::shim::create_op(reinterpret_cast<void*>(user_fn), commute, false, op);
}

extern "C" YK_API int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  yadokari::shim::CallScope scope(yadokari::shim::Fn::MPI_Comm_create_errhandler);
  return yadokari::shim::create_errhandler(reinterpret_cast<void*>(fn), false, errhandler);
}
