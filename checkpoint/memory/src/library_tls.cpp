#include "checkpoint/memory/src/library_tls.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace yadokari::memory {
namespace {

// glibc's thread control block on x86-64 (tcbhead_t: tcb, dtv, self...) and a DTV entry (the
// pointer member of dtv_t): the thread's DTV is at %fs:8, entry i for TLS module i.
struct DtvEntry {
  void* val;
  void* to_free;
};
struct TlsIndex {
  unsigned long module, offset;
};
using TlsGetAddr = void* (*)(TlsIndex*);
TlsGetAddr g_tls_get_addr;

__attribute__((constructor(101))) void resolve_tls_get_addr() {
  g_tls_get_addr = reinterpret_cast<TlsGetAddr>(dlsym(RTLD_DEFAULT, "__tls_get_addr"));
  dlerror();
}

DtvEntry* thread_dtv() {
  DtvEntry* dtv;
  asm("mov %%fs:8, %0" : "=r"(dtv));
  return dtv;
}

// The fresh thread's DTV entry of the module made to point at the block the arena brings back,
// where the application's pointers into it point. glibc allocates its own block first (so that
// the DTV is large enough and current); that one is freed again. Checked against what glibc
// returned, so a glibc whose layout differs is a refusal, not a corruption.
}  // namespace

bool repoint_dynamic_tls(std::size_t modid, std::uintptr_t block) {
  if (!g_tls_get_addr || modid == 0) return false;
  TlsIndex index{modid, 0};
  void* fresh = g_tls_get_addr(&index);
  DtvEntry* dtv = thread_dtv();
  if (!fresh || dtv[modid].val != fresh) return false;
  void* to_free = dtv[modid].to_free;
  dtv[modid].val = reinterpret_cast<void*>(block);
  dtv[modid].to_free = nullptr;  // an arena block glibc must not free (the application's memory)
  std::free(to_free);
  return true;
}

std::uintptr_t static_tls_block(std::size_t modid) {
  if (!g_tls_get_addr || modid == 0) return 0;
  TlsIndex index{modid, 0};
  return reinterpret_cast<std::uintptr_t>(g_tls_get_addr(&index));
}

}  // namespace yadokari::memory
