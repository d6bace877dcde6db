#pragma once
// The region reserved for libraries the application dlopens after start (kLibBase, src/layout.hpp;
// checkpoint/memory/README.md, "Libraries loaded after start").
//
// Without it ld.so puts such a library just below whatever the process had mapped at that moment,
// which depends on the MPI library's run-to-run layout: a restarted process often had something
// there already and the restore had to be refused. The region is reserved PROT_NONE at load time in
// every process, before MPI is initialised, so in a restarted process its addresses are free by
// construction.
//
// ld.so maps through its own internal mmap, which no interposer sees. So the application's dlopen
// runs on a helper thread whose library mappings a seccomp trap answers inside the reservation
// (trapped_dlopen.hpp); where that is unavailable it is steered instead: the unused part of the
// region is given up, every free gap above the region is held by a placeholder (address_gaps.hpp)
// so that the kernel's top-down allocator hands ld.so the top of the region's free part, and
// afterwards the placeholders go and the region below the lowest library is reserved again. Either
// way the libraries of one dlopen (with their new dependencies) are placed top down, one below the
// other.
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

// Whether the application's dlopen called from `caller` (its return address) is steered: the
// region is reserved and glibc would treat the call as the executable's (see library_region.cpp).
bool steers_dlopen(const void* caller);
// glibc's dlopen with ld.so's mappings steered into the region, called as the executable would.
void* steered_dlopen(const char* name, int mode);

// The restore (library_placement.cpp): gives [lo, hi) back for the library recorded there if it
// lies in the region's reservation (in a restarted process the reservation covers everything below
// the libraries that code before the restore point loaded again). False if it does not: the
// placement then finds the range in use and refuses with what is there.
bool release_for_library(std::uintptr_t lo, std::uintptr_t hi);
// Undoes release_for_library() after a failed placement.
void reserve_again(std::uintptr_t lo, std::uintptr_t hi);

}  // namespace yadokari::memory
