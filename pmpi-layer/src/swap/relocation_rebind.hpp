#pragma once
// Pointing a running process's links into its MPI library at a fresh copy of that library, loaded
// into a link namespace of its own (library_copy.hpp), before the copy is initialized
// (docs/flows/migrate.md, "Live moves: the kept ranks swap their MPI library").
//
// Two kinds of links, two directions:
// - Calls: the executable, the shim and the other libraries of the base namespace reach the MPI
//   library through their GOT (the shim's PMPI_* calls, Open MPI's internals that
//   cut/open_mpi_requests.c uses). Each entry that points into the current copy is rewritten to the
//   same function of the next copy: no cost per call, nothing to translate.
// - Data: the application and the shim hold addresses of library objects as handles (Open MPI's
//   MPI_COMM_WORLD is &ompi_mpi_comm_world, copy-relocated into the executable or in the first
//   copy's data). Those addresses stay; instead the copy's own references to those objects are
//   pointed at them, after the copy's fresh contents were copied there — what the dynamic linker's
//   copy relocation does for an executable at start-up. No handle changes value.
#include <link.h>

#include <string>

namespace yadokari::shim::swap {

// `copy_library`: the copy's MPI library (a dlmopen handle), loaded, not initialized. Returns false
// with `why` when a link cannot be made (then nothing of the copy may be used).
bool bind_to_copy(void* copy_library, std::string& why);

// The copy opened more objects into its namespace (Open MPI's components, at MPI_Init): their
// references to the kept objects are pointed as above.
void bind_copy_namespace_data();

}  // namespace yadokari::shim::swap
