// The logical channel table: for every communicator the application uses and every peer in it,
// how many messages and bytes went each way. It is the input of the drain protocol (sent ==
// received on every channel means nothing is in flight) and the scheduler's traffic matrix.
// MPI-free so it can be unit-tested without a library.
#pragma once

#include "pmpi-layer/src/core/counter.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace yadokari::shim {

struct Channel {
  Counter messages_sent, bytes_sent, messages_received, bytes_received;
};

// The channels of one communicator. Peers are communicator ranks (the remote group's ranks for
// an intercommunicator); world_rank_of_peer maps them to logical (virtual-world) ranks so the
// traffic of all communicators adds up to one rank-by-rank matrix.
class CommChannels {
 public:
  CommChannels() = default;
  CommChannels(std::uint32_t comm_id, std::vector<int> world_rank_of_peer)
      : comm_id_(comm_id), world_rank_of_peer_(std::move(world_rank_of_peer)), channels_(world_rank_of_peer_.size()) {}

  // Out-of-range peers (MPI_PROC_NULL, bad user input the library will reject) are ignored.
  // `single_writer`: the caller knows there is one writer (see Counter::add_pair).
  YK_HOT void on_send(int peer, std::uint64_t bytes, bool single_writer = false) {
    if (Channel* c = find(peer)) Counter::add_pair(c->messages_sent, 1, c->bytes_sent, bytes, single_writer);
  }
  YK_HOT void on_receive(int peer, std::uint64_t bytes, bool single_writer = false) {
    if (Channel* c = find(peer)) Counter::add_pair(c->messages_received, 1, c->bytes_received, bytes, single_writer);
  }
  // The channel of `peer`, or null for an out-of-range peer: the wrappers look it up before the
  // library call and count into it after (objects/channel_hooks.hpp, SendTally).
  YK_HOT Channel* find(int peer) {
    return (peer >= 0 && static_cast<std::size_t>(peer) < channels_.size()) ? &channels_[peer] : nullptr;
  }

  void add_counts(int peer, const Channel& from) {
    if (Channel* c = find(peer)) {
      c->messages_sent.add(from.messages_sent.get());
      c->bytes_sent.add(from.bytes_sent.get());
      c->messages_received.add(from.messages_received.get());
      c->bytes_received.add(from.bytes_received.get());
    }
  }

  std::uint32_t comm_id() const { return comm_id_; }
  std::size_t peers() const { return channels_.size(); }
  const Channel& channel(std::size_t peer) const { return channels_[peer]; }
  int world_rank_of(std::size_t peer) const { return world_rank_of_peer_[peer]; }

 private:
  std::uint32_t comm_id_ = 0;
  std::vector<int> world_rank_of_peer_;
  std::vector<Channel> channels_;
};

// Traffic of communicators the app has freed, folded by logical peer so that the job's traffic
// matrix still sees it (most codes free their sub-communicators before MPI_Finalize).
class RetiredChannels {
 public:
  void resize(std::size_t world_size) { by_world_peer_ = std::vector<Channel>(world_size); }
  void retire(const CommChannels& comm) {
    ++communicators_;
    for (std::size_t p = 0; p < comm.peers(); ++p) {
      const int w = comm.world_rank_of(p);
      if (w < 0 || static_cast<std::size_t>(w) >= by_world_peer_.size()) continue;
      const Channel& c = comm.channel(p);
      Channel& r = by_world_peer_[static_cast<std::size_t>(w)];
      r.messages_sent.add(c.messages_sent.get());
      r.bytes_sent.add(c.bytes_sent.get());
      r.messages_received.add(c.messages_received.get());
      r.bytes_received.add(c.bytes_received.get());
    }
  }
  std::size_t communicators() const { return communicators_; }
  // Checkpoint and restart (shim_state.cpp): the folded rows, by logical peer.
  const std::vector<Channel>& by_world_peer() const { return by_world_peer_; }
  void restore(std::vector<Channel> by_world_peer, std::size_t communicators) {
    by_world_peer_ = std::move(by_world_peer);
    communicators_ = communicators;
  }
  // As a communicator whose peer p is logical rank p, so the usual accumulation applies.
  CommChannels as_world_view() const {
    std::vector<int> ids(by_world_peer_.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
    CommChannels view(0, ids);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const Channel& c = by_world_peer_[i];
      view.add_counts(static_cast<int>(i), c);
    }
    return view;
  }

 private:
  std::vector<Channel> by_world_peer_;
  std::size_t communicators_ = 0;
};

// Totals over every channel, by logical peer rank: one row of the job's traffic matrix.
struct TrafficRow {
  std::vector<std::uint64_t> bytes_sent, bytes_received, messages_sent, messages_received;
};

inline void accumulate(const CommChannels& comm, TrafficRow& row) {
  for (std::size_t p = 0; p < comm.peers(); ++p) {
    const int w = comm.world_rank_of(p);
    if (w < 0 || static_cast<std::size_t>(w) >= row.bytes_sent.size()) continue;
    const Channel& c = comm.channel(p);
    row.bytes_sent[w] += c.bytes_sent.get();
    row.bytes_received[w] += c.bytes_received.get();
    row.messages_sent[w] += c.messages_sent.get();
    row.messages_received[w] += c.messages_received.get();
  }
}

inline TrafficRow make_traffic_row(std::size_t world_size) {
  TrafficRow r;
  r.bytes_sent.assign(world_size, 0);
  r.bytes_received.assign(world_size, 0);
  r.messages_sent.assign(world_size, 0);
  r.messages_received.assign(world_size, 0);
  return r;
}

}  // namespace yadokari::shim
