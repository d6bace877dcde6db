#pragma once
// A fresh copy of the process's MPI library, loaded into a new link namespace (dlmopen) before the
// copy in use is finalized: its own data, its own C library, nothing shared with the first one
// (docs/flows/migrate.md, "Live moves: the kept ranks swap their MPI library").
#include <string>

namespace yadokari::shim::swap {

// Loads the next copy; null with `why` on failure (no namespace left: glibc has 15, and each copy
// keeps one for good, as it keeps its static TLS). The namespace first gets the shim's namespace
// library for the MPI (libyadokari-namespace-<flavour>.so, library_copy.cpp says why).
void* load_next_copy(std::string& why);

// The copy's C library took the process's environment when it was loaded; a launch handed over
// since (kept_process.hpp) changed it. Points the copy's `environ` at the process's current one.
void share_environment(void* copy);

}  // namespace yadokari::shim::swap
