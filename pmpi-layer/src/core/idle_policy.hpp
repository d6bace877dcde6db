// How a rank waits when a blocking call has nothing to do yet, with checkpointing on (the shim's
// polling waits, cut/interruptible.cpp). The libraries' own blocking waits spin on progress
// without giving up the processor, unless the node runs more ranks than it has CPUs: then
// Open MPI turns on `mpi_yield_when_idle` by itself (mpirun knows the node is oversubscribed) and
// yields on every idle poll. MPICH's knob, MPIR_CVAR_POLLS_BEFORE_YIELD (1000 polls by default),
// belongs to its ch3 device; Debian's ch4:ucx never yields (docs/platform.md §1). The shim does the
// same: spin, and on an oversubscribed node yield on every idle poll. Not oversubscribed, it still
// yields after kPollsBeforeYield idle polls (MPICH ch3's default): simulated nodes share this
// machine's CPUs without being counted as oversubscribed, and a long wait costs one system call
// per poll, which a wait that long does not notice. MPI-free, so it is unit-tested on its own.
#pragma once

#include <charconv>
#include <string_view>

namespace yadokari::shim {

struct IdlePolicy {
  unsigned polls_before_yield;  // idle polls that spin before each further one yields
  bool oversubscribed;          // more ranks on this node than CPUs
  int local_ranks;              // 0: the launcher did not say
  long cpus;                    // online CPUs of this node
  bool library_yields = false;  // every poll's progress already yields when idle: the shim never does
};

inline constexpr unsigned kPollsBeforeYield = 1000;

// The decision: yield from the first idle poll exactly when the node is known to be
// oversubscribed; an unknown count (0) is never taken as oversubscription.
constexpr IdlePolicy idle_policy(int local_ranks, long cpus) {
  const bool over = local_ranks > 0 && cpus > 0 && local_ranks > cpus;
  return {over ? 0u : kPollsBeforeYield, over, local_ranks, cpus};
}

// When the library's own progress yields the processor on an idle turn (Open MPI with
// mpi_yield_when_idle on, which mpirun sets for an oversubscribed node), each idle poll of the
// shim's has already yielded once inside the library: a second yield of the shim's would hand the
// processor away again before looking at what arrived meanwhile (measured on NPB CG class B, 4
// ranks on 2 CPUs: armed runs 12 % slower than the plain shim's). So the shim then only spins.
constexpr IdlePolicy with_library_yield(IdlePolicy policy, bool library_yields) {
  policy.library_yields = library_yields;
  return policy;
}

// The number of ranks on this node, as the launchers put it in every rank's environment: Open MPI's
// OMPI_COMM_WORLD_LOCAL_SIZE, Hydra's MPI_LOCALNRANKS. 0 when neither holds a positive whole number.
constexpr int local_ranks_from(std::string_view open_mpi, std::string_view hydra) {
  for (const std::string_view text : {open_mpi, hydra}) {
    int n = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (!text.empty() && error == std::errc{} && end == text.data() + text.size() && n > 0) return n;
  }
  return 0;
}

}  // namespace yadokari::shim
