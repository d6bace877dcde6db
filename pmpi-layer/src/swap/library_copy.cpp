// The next copy of the MPI library: see library_copy.hpp.
#include "pmpi-layer/src/swap/library_copy.hpp"

#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <string>

#include "pmpi-layer/src/swap/relocation_rebind.hpp"
#if !defined(OPEN_MPI)
#include "pmpi-layer/src/shim/mpich_ucx_finalize_hooks.hpp"
#endif

namespace yadokari::shim::swap {
namespace {

// The file of the MPI library the shim calls now (through its GOT: after a swap, the newest copy;
// every copy is loaded from the same file).
std::string library_file() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&PMPI_Init), &info) || !info.dli_fname) return {};
  return info.dli_fname;
}

// Loaded first into each copy's namespace, from beside the shim, and linked to the MPI library, so
// that the copy forms the namespace's global scope behind it. Open MPI opens its components with
// RTLD_GLOBAL, which glibc cannot do inside a namespace made by dlmopen (ld.so crashes):
// namespace_dlopen.c is that namespace's dlopen. MPICH's finalize over TCP needs the shim's UCX
// wrappers (shim/mpich_ucx_finalize.cpp), which the copy's calls to its own UCX would bypass.
std::string namespace_library() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&load_next_copy), &info) || !info.dli_fname) return {};
  const std::string shim = info.dli_fname;
#if defined(OPEN_MPI)
  return shim.substr(0, shim.rfind('/') + 1) + "libyadokari-namespace-openmpi.so";
#else
  return shim.substr(0, shim.rfind('/') + 1) + "libyadokari-namespace-mpich.so";
#endif
}

#if defined(OPEN_MPI)
// Each component the copy opens refers to the objects the process keeps (relocation_rebind.hpp).
void after_component_open(void*) { bind_copy_namespace_data(); }

void connect(void* helper) {
  using Setter = void (*)(void (*)(void*));
  if (auto set = reinterpret_cast<Setter>(dlsym(helper, "yadokari_namespace_after_open"))) set(&after_component_open);
}
#else
void connect(void* helper) {
  using Setter = void (*)(bool (*)(), void (*)());
  if (auto set = reinterpret_cast<Setter>(dlsym(helper, "yadokari_namespace_ucx_hooks")))
    set(&ucx_finalize::inside_mpi_finalize, &ucx_finalize::helper_thread_started);
}
#endif

}  // namespace

void* load_next_copy(std::string& why) {
  const std::string file = library_file();
  if (file.empty()) {
    why = "cannot find the file of the MPI library in use";
    return nullptr;
  }
  Lmid_t lmid = LM_ID_NEWLM;
  const std::string first = namespace_library();
  void* helper = dlmopen(LM_ID_NEWLM, first.c_str(), RTLD_NOW);
  if (!helper || dlinfo(helper, RTLD_DI_LMID, &lmid) != 0) {
    const char* error = dlerror();
    why = "cannot load " + first + " into a new link namespace: " + (error ? error : "?");
    return nullptr;
  }
  connect(helper);
  void* copy = dlmopen(lmid, file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!copy) {
    const char* error = dlerror();
    why = "cannot load a fresh copy of " + file + ": " + (error ? error : "?");
  }
  return copy;
}

void share_environment(void* copy) {
  // The copy's own C library has its own `environ` (looked up in the copy's scope, not ours).
  if (auto* copy_environ = static_cast<char***>(dlsym(copy, "environ"))) *copy_environ = environ;
}

}  // namespace yadokari::shim::swap
