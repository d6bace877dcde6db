// MPICH over UCX's TCP transport hangs in MPI_Finalize (docs/platform.md §1, "MPICH's finalize
// over TCP"): MPICH 4.0 closes every endpoint in flush mode, waits for the closes while
// progressing UCX, then blocks in a PMI barrier that progresses nothing. On TCP, UCX 1.13 flushes
// an endpoint that sent active messages with a zero-length PUT and waits for the peer's ACK,
// which the peer sends only while it progresses. A rank whose own closes needed nothing from a
// slower peer reaches the barrier first and never answers that peer's PUT: both wait for ever.
//
// So from MPICH's first endpoint close inside MPI_Finalize until it destroys the worker, a helper thread keeps progressing that worker; it answers the late PUTs while the main
// thread sits in the barrier. The worker is single-threaded (UCS_THREAD_MODE_SERIALIZED): every
// UCX call MPICH makes in that window goes through a wrapper below and takes the same lock.
// Nothing of MPI_Finalize is skipped or shortened: the application's output, atexit handlers and
// exit status are untouched. Built into the MPICH shim, and into the library a swap loads first
// into the namespace of each fresh copy of MPICH (swap/library_copy.cpp), whose UCX calls do not
// reach the shim's; all calls reach the real UCX. What differs between the two is in
// mpich_ucx_finalize_hooks.hpp.
#include <dlfcn.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/mpich_ucx_finalize_hooks.hpp"

namespace yadokari::shim {
namespace {

template <typename Function>
Function* real_function(const char* name) {
  auto* function = reinterpret_cast<Function*>(dlsym(RTLD_NEXT, name));
  if (!function) {
    std::fprintf(stderr, "yadokari: %s not found after the shim (is MPICH built on UCX?)\n", name);
    std::abort();
  }
  return function;
}

struct RealUcx {
  decltype(ucp_worker_progress)* worker_progress = real_function<decltype(ucp_worker_progress)>("ucp_worker_progress");
  decltype(ucp_disconnect_nb)* disconnect_nb = real_function<decltype(ucp_disconnect_nb)>("ucp_disconnect_nb");
  decltype(ucp_request_is_completed)* request_is_completed =
      real_function<decltype(ucp_request_is_completed)>("ucp_request_is_completed");
  decltype(ucp_request_release)* request_release = real_function<decltype(ucp_request_release)>("ucp_request_release");
  decltype(ucp_worker_destroy)* worker_destroy = real_function<decltype(ucp_worker_destroy)>("ucp_worker_destroy");
};

const RealUcx& real() {
  static const RealUcx functions;
  return functions;
}

// Set at MPICH's first endpoint close; read on every ucp_worker_progress, hence relaxed.
std::atomic<bool> g_closing{false};
std::atomic<ucp_worker_h> g_worker{nullptr};  // the worker MPICH progresses while closing
std::atomic<bool> g_stop_helper{false};
std::mutex g_worker_lock;
std::thread g_helper;

void progress_while_finalizing() {
  ucx_finalize::helper_thread_started();
  while (!g_stop_helper.load()) {
    unsigned events = 0;
    if (ucp_worker_h worker = g_worker.load()) {
      std::lock_guard<std::mutex> hold(g_worker_lock);
      events = real().worker_progress(worker);
    }
    // Idle: sleep rather than spin, the ranks still closing may share this core.
    if (events == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void start_helper_once() {
  // Only MPICH's finalize: an endpoint closed in another call (MPI_Comm_disconnect) must not
  // start a second thread on a worker whose other calls are not wrapped here.
  if (!ucx_finalize::inside_mpi_finalize()) return;
  if (g_closing.exchange(true)) return;
  g_helper = std::thread(progress_while_finalizing);
}

void stop_helper() {
  if (!g_helper.joinable()) return;
  g_stop_helper.store(true);
  g_helper.join();
}

}  // namespace
}  // namespace yadokari::shim

namespace shim = yadokari::shim;

extern "C" YK_API unsigned ucp_worker_progress(ucp_worker_h worker) {
  if (!shim::g_closing.load(std::memory_order_relaxed)) return shim::real().worker_progress(worker);
  shim::g_worker.store(worker);
  std::lock_guard<std::mutex> hold(shim::g_worker_lock);
  return shim::real().worker_progress(worker);
}

extern "C" YK_API ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep) {
  shim::start_helper_once();
  std::lock_guard<std::mutex> hold(shim::g_worker_lock);
  return shim::real().disconnect_nb(ep);
}

extern "C" YK_API int ucp_request_is_completed(void* request) {
  if (!shim::g_closing.load(std::memory_order_relaxed)) return shim::real().request_is_completed(request);
  std::lock_guard<std::mutex> hold(shim::g_worker_lock);
  return shim::real().request_is_completed(request);
}

extern "C" YK_API void ucp_request_release(void* request) {
  if (!shim::g_closing.load(std::memory_order_relaxed)) return shim::real().request_release(request);
  std::lock_guard<std::mutex> hold(shim::g_worker_lock);
  shim::real().request_release(request);
}

extern "C" YK_API void ucp_worker_destroy(ucp_worker_h worker) {
  shim::stop_helper();  // MPICH is past its barrier: every peer's flush is done
  shim::real().worker_destroy(worker);
}
