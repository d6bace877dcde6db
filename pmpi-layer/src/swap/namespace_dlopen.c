/* Loaded first into the link namespace of each fresh copy of Open MPI (library_copy.cpp), and
 * linked against libmpi so that the copy's libmpi, libopen-rte and libopen-pal form that
 * namespace's global scope. Open MPI opens its components with RTLD_GLOBAL, which glibc 2.36
 * cannot do inside a namespace made by dlmopen (the open crashes in ld.so); this dlopen, found
 * first in the namespace, opens them RTLD_LOCAL instead (they still find Open MPI's symbols in
 * the global scope), then lets the shim point their references at the objects the process keeps. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

static void (*after_open)(void*);

__attribute__((visibility("default"))) void yadokari_namespace_after_open(void (*callback)(void*)) {
  after_open = callback;
}

__attribute__((visibility("default"))) void* dlopen(const char* file, int flags) {
  static void* (*next)(const char*, int);
  if (!next) next = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");
  void* handle = next(file, flags & ~RTLD_GLOBAL);
  if (handle && after_open) after_open(handle);
  return handle;
}
