/* Loaded first into the link namespace that library_swap.c makes for a fresh copy of Open MPI, and
 * linked against libmpi so that the copy's libmpi, libopen-rte and libopen-pal form that namespace's
 * global scope. Open MPI opens its components with RTLD_GLOBAL, which glibc 2.36 cannot do inside a
 * namespace made by dlmopen (the open crashes in ld.so); this dlopen, found first in the namespace,
 * opens them RTLD_LOCAL instead, and they still find Open MPI's symbols in the global scope. */
#define _GNU_SOURCE
#include <dlfcn.h>

void* dlopen(const char* file, int flags) {
  static void* (*next)(const char*, int);
  if (!next) next = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");
  return next(file, flags & ~RTLD_GLOBAL);
}
