// The library calls user reduction functions and error handlers with *real* handles and no
// hint of which user object they belong to. So each user op / error handler gets its own slot
// in a fixed pool of generated trampolines; a trampoline knows its slot, translates the real
// handle to the app's virtual one and calls the app's function.
#pragma once

#include <array>
#include <cstddef>

namespace yadokari::shim {

inline constexpr std::size_t kTrampolineSlots = 128;

struct UserFunctionSlot {
  void* fn = nullptr;    // the app's function
  bool fortran = false;  // call with Fortran integer handles
  bool used = false;
};

// Returns the slot index, or -1 when all are taken (the caller reports it).
int claim_op_slot(void* user_fn, bool fortran);
void release_op_slot(int slot);
void* op_trampoline(int slot);  // MPI_User_function* for the library

int claim_errhandler_slot(void* user_fn, bool fortran);
void* errhandler_trampoline(int slot);  // MPI_Comm_errhandler_function* for the library

// The slot assignments, saved at a checkpoint and put back at a restart (object_image.cpp): a
// re-created op or error handler is registered through the same slot, and the app's function
// pointers are still valid (same binary, ASLR off).
std::array<UserFunctionSlot, kTrampolineSlots>& op_slots();
std::array<UserFunctionSlot, kTrampolineSlots>& errhandler_slots();

}  // namespace yadokari::shim
