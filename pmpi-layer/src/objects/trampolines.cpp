#include "pmpi-layer/src/objects/trampolines.hpp"

#include "checkpoint/memory/library_scope.hpp"

#include "pmpi-layer/src/objects/fortran_handles.hpp"
#include "pmpi-layer/src/objects/virtual_handles.hpp"

#include <array>
#include <utility>

namespace yadokari::shim {
namespace {

std::array<UserFunctionSlot, kTrampolineSlots> g_op_slots;
std::array<UserFunctionSlot, kTrampolineSlots> g_errh_slots;

using CUserOp = void (*)(void*, void*, int*, MPI_Datatype*);
using FUserOp = void (*)(void*, void*, MPI_Fint*, MPI_Fint*);
using CErrh = void (*)(MPI_Comm*, int*);
using FErrh = void (*)(MPI_Fint*, MPI_Fint*);

template <std::size_t I>
void op_entry(void* in, void* inout, int* len, MPI_Datatype* real_type) {
  const UserFunctionSlot& s = g_op_slots[I];
  MPI_Datatype v = to_virtual<TypeK>(*real_type);
  MPI_Fint f = s.fortran ? fortran::to_f<TypeK>(v) : 0;  // the handle tables are the shim's: before the scope
  yadokari::memory::ApplicationCallback application;
  if (s.fortran)
    reinterpret_cast<FUserOp>(s.fn)(in, inout, len, &f);
  else
    reinterpret_cast<CUserOp>(s.fn)(in, inout, len, &v);
}

template <std::size_t I>
void errh_entry(MPI_Comm* real_comm, int* code, ...) {
  const UserFunctionSlot& s = g_errh_slots[I];
  MPI_Comm v = to_virtual<CommK>(*real_comm);
  MPI_Fint f = s.fortran ? fortran::to_f<CommK>(v) : 0;  // the handle tables are the shim's: before the scope
  yadokari::memory::ApplicationCallback application;
  if (s.fortran)
    reinterpret_cast<FErrh>(s.fn)(&f, code);
  else
    reinterpret_cast<CErrh>(s.fn)(&v, code);
}

template <std::size_t... I>
constexpr std::array<void*, sizeof...(I)> op_table(std::index_sequence<I...>) {
  return {reinterpret_cast<void*>(&op_entry<I>)...};
}
template <std::size_t... I>
constexpr std::array<void*, sizeof...(I)> errh_table(std::index_sequence<I...>) {
  return {reinterpret_cast<void*>(&errh_entry<I>)...};
}

const std::array<void*, kTrampolineSlots> g_op_entries = op_table(std::make_index_sequence<kTrampolineSlots>{});
const std::array<void*, kTrampolineSlots> g_errh_entries = errh_table(std::make_index_sequence<kTrampolineSlots>{});

int claim(std::array<UserFunctionSlot, kTrampolineSlots>& slots, void* fn, bool fortran) {
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (!slots[i].used) {
      slots[i] = {fn, fortran, true};
      return static_cast<int>(i);
    }
  return -1;
}

}  // namespace

int claim_op_slot(void* user_fn, bool fortran) { return claim(g_op_slots, user_fn, fortran); }
void release_op_slot(int slot) {
  if (slot >= 0) g_op_slots[static_cast<std::size_t>(slot)] = {};
}
void* op_trampoline(int slot) { return g_op_entries[static_cast<std::size_t>(slot)]; }
int claim_errhandler_slot(void* user_fn, bool fortran) { return claim(g_errh_slots, user_fn, fortran); }
void* errhandler_trampoline(int slot) { return g_errh_entries[static_cast<std::size_t>(slot)]; }
std::array<UserFunctionSlot, kTrampolineSlots>& op_slots() { return g_op_slots; }
std::array<UserFunctionSlot, kTrampolineSlots>& errhandler_slots() { return g_errh_slots; }

}  // namespace yadokari::shim
