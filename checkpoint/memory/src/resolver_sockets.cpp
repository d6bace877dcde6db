// The resolver's state of the application thread (_res, in libc's thread-local storage), which a
// restarted process has fresh: its sockets and the settings the application changed in it. libc
// opens the sockets itself (no interposed call sees them) and, once the application asked for
// RES_STAYOPEN, keeps them open between queries; after a restart they are gone while their numbers
// may be the fresh process's other descriptors. Settings the application wrote into _res after
// res_init (options, servers, timeouts) would silently become /etc/resolv.conf's again. So a
// checkpoint is refused while the thread's resolver holds a socket or differs from what res_ninit
// gives now (checkpoint/memory/README.md, "Refused, with the reason"). Before libc initialised it
// (RES_INIT clear) the state is all zeros and holds nothing; the datagram sockets are valid for the
// first `_u._ext.nscount` servers only (libc sets them up at the first query).
#include <netinet/in.h>
#include <resolv.h>

#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/refusal.hpp"

namespace yadokari::memory {
namespace {

void name(int fd) {
  char line[160];
  std::snprintf(line, sizeof line, "descriptor %d is the resolver's socket (RES_STAYOPEN), which is not carried", fd);
  refusal_add(line);
}

bool same_server(const sockaddr_in& a, const sockaddr_in& b) {
  return a.sin_family == b.sin_family && a.sin_port == b.sin_port && a.sin_addr.s_addr == b.sin_addr.s_addr;
}

// The fields res_init fills from /etc/resolv.conf and the defaults, which applications change.
bool same_settings(const struct __res_state& a, const struct __res_state& b) {
  if (a.options != b.options || a.retrans != b.retrans || a.retry != b.retry || a.ndots != b.ndots ||
      a.nscount != b.nscount || a.nsort != b.nsort || std::strcmp(a.defdname, b.defdname) != 0)
    return false;
  for (int i = 0; i < a.nscount && i < MAXNS; ++i)
    if (!same_server(a.nsaddr_list[i], b.nsaddr_list[i])) return false;
  return true;
}

// Runs on the application thread (inside the capture, in a library scope): _res is its own.
void check() {
  const res_state state = &_res;
  if (!(state->options & RES_INIT)) return;
  // Compared with a state initialised now, the way libc initialised this one.
  static struct __res_state fresh;  // 568 bytes: not on the stack; checks run on one thread
  std::memset(&fresh, 0, sizeof fresh);
  if (res_ninit(&fresh) == 0) {
    const bool same = same_settings(*state, fresh);
    res_nclose(&fresh);
    if (!same) refusal_add("the application changed the resolver's settings (_res), which is not carried");
  }
  if (state->_vcsock >= 0) name(state->_vcsock);
  const int servers = state->_u._ext.nscount < MAXNS ? state->_u._ext.nscount : MAXNS;
  for (int i = 0; i < servers; ++i)
    if (state->_u._ext.nssocks[i] >= 0) name(state->_u._ext.nssocks[i]);
}

__attribute__((constructor(101))) void init() { register_refusal_check(check); }

}  // namespace
}  // namespace yadokari::memory
