#pragma once
// libc's definition of a function the layer interposes: the next one after the layer's in the
// lookup order. The layer cannot work without it, so a missing one ends the process with `what`.
#include <dlfcn.h>

#include "checkpoint/memory/src/diag.hpp"

namespace yadokari::memory {

template <typename F>
void resolve_next(F& f, const char* name, const char* what) {
  f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
  if (!f) fatal(what);
}

}  // namespace yadokari::memory
