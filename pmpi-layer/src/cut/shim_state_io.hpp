// How each piece of the shim's state is written to and read from bytes (shim_state.cpp decides
// what the state is). One field list per type, `describe(io, object)`, serves both directions:
// StateWriter writes the fields, StateReader reads them back in the same order, so the two can
// never drift apart. cereal's portable binary archive does the scalars; counts of elements are
// checked against the bytes left before anything is allocated (a corrupt count would otherwise
// make the reader allocate whatever it claims).
//
// Pointers (the app's buffers, attribute values, user functions, Open MPI's predefined handles)
// are stored as addresses: they stay valid across a restart because the same binary runs with
// ASLR off and the application's memory comes back at the same addresses.
#pragma once

#include "pmpi-layer/src/core/channel_table.hpp"
#include "pmpi-layer/src/core/recipe.hpp"
#include "pmpi-layer/src/cut/drain.hpp"
#include "pmpi-layer/src/objects/records.hpp"
#include "pmpi-layer/src/objects/trampolines.hpp"
#include "pmpi-layer/src/objects/virtual_handles.hpp"

#include <cereal/archives/portable_binary.hpp>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <istream>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace yadokari::shim::state_io {

// A record type gained a field that the lists below do not carry yet: a restart would lose it
// silently. The mirrors must list the same members in the same order.
struct CommRecordMirror {
  CommChannels a;
  std::map<int, void*> b;
  MPI_Errhandler c;
  std::uint64_t d, e, f, g;
  bool h;
  std::string i;
};
static_assert(sizeof(CommRecord) == sizeof(CommRecordMirror), "CommRecord changed: carry the new field in describe()");
struct DatatypeRecordMirror {
  std::map<int, void*> a;
  bool b;
  std::string c;
};
static_assert(sizeof(DatatypeRecord) == sizeof(DatatypeRecordMirror),
              "DatatypeRecord changed: carry the new field in describe()");
struct RequestRecordMirror {
  RequestKind a;
  bool b;
  MPI_Comm c;
  int d;
  std::uint64_t e;
  bool f;
  MPI_Status g;
  bool h, i;
  SendMode j;
  void* k;
  int l;
  MPI_Datatype m;
  int n;
  std::uint64_t o;
  bool p;
};
static_assert(sizeof(RequestRecord) == sizeof(RequestRecordMirror),
              "RequestRecord changed: carry the new field in describe()");

template <class T>
concept Scalar = std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_pointer_v<T>;

class StateWriter {
 public:
  explicit StateWriter(std::ostream& out) : archive_(out) {}

  template <class... T>
  void operator()(T&... values) {
    (put(values), ...);
  }
  void count(std::size_t n) { archive_(static_cast<std::uint64_t>(n)); }
  void bytes(const void* data, std::size_t n) {
    archive_(cereal::binary_data(static_cast<char*>(const_cast<void*>(data)), n));
  }

 private:
  template <Scalar T>
  void put(T& v) {
    if constexpr (std::is_pointer_v<T>)
      archive_(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(v)));
    else if constexpr (std::is_enum_v<T>)
      archive_(static_cast<std::underlying_type_t<T>>(v));
    else
      archive_(v);
  }
  template <class T>
  void put(T& v) {
    describe(*this, v);
  }

  cereal::PortableBinaryOutputArchive archive_;
};

class StateReader {
 public:
  StateReader(std::istream& in, std::size_t total) : in_(in), total_(total), archive_(in) {}

  template <class... T>
  void operator()(T&... values) {
    (get(values), ...);
  }
  // A count of elements each at least `min_bytes` long: more than the bytes left is a lie.
  std::size_t count(std::size_t min_bytes = 1) {
    std::uint64_t n = 0;
    archive_(n);
    const std::streamoff at = in_.tellg();
    const std::size_t left = at < 0 ? 0 : total_ - static_cast<std::size_t>(at);
    if (n > left / (min_bytes ? min_bytes : 1))
      throw std::runtime_error("a count of " + std::to_string(n) + " with " + std::to_string(left) + " bytes left");
    return static_cast<std::size_t>(n);
  }
  void bytes(void* data, std::size_t n) { archive_(cereal::binary_data(static_cast<char*>(data), n)); }

 private:
  template <Scalar T>
  void get(T& v) {
    if constexpr (std::is_pointer_v<T>) {
      std::uint64_t a = 0;
      archive_(a);
      v = reinterpret_cast<T>(static_cast<std::uintptr_t>(a));
    } else if constexpr (std::is_enum_v<T>) {
      std::underlying_type_t<T> u{};
      archive_(u);
      v = static_cast<T>(u);
    } else {
      archive_(v);
    }
  }
  template <class T>
  void get(T& v) {
    describe(*this, v);
  }

  std::istream& in_;
  std::size_t total_;
  cereal::PortableBinaryInputArchive archive_;
};

template <class IO>
constexpr bool kWriting = std::is_same_v<IO, StateWriter>;

// --- containers

inline void describe(StateWriter& io, std::string& s) {
  io.count(s.size());
  io.bytes(s.data(), s.size());
}
inline void describe(StateReader& io, std::string& s) {
  s.resize(io.count());
  io.bytes(s.data(), s.size());
}

inline void describe(StateWriter& io, std::vector<char>& v) {
  io.count(v.size());
  io.bytes(v.data(), v.size());
}
inline void describe(StateReader& io, std::vector<char>& v) {
  v.resize(io.count());
  io.bytes(v.data(), v.size());
}

template <class T>
void describe(StateWriter& io, std::vector<T>& v) {
  io.count(v.size());
  for (auto& x : v) io(x);
}
template <class T>
void describe(StateReader& io, std::vector<T>& v) {
  v.resize(io.count());
  for (auto& x : v) io(x);
}

inline void describe(StateWriter& io, std::vector<bool>& v) {
  io.count(v.size());
  for (bool x : v) io(x);
}
inline void describe(StateReader& io, std::vector<bool>& v) {
  v.resize(io.count());
  for (std::size_t i = 0; i < v.size(); ++i) {
    bool x = false;
    io(x);
    v[i] = x;
  }
}

template <class T>
void describe(StateWriter& io, std::deque<T>& v) {
  io.count(v.size());
  for (auto& x : v) io(x);
}
template <class T>
void describe(StateReader& io, std::deque<T>& v) {
  v.resize(io.count());
  for (auto& x : v) io(x);
}

template <class K, class V>
void describe(StateWriter& io, std::map<K, V>& m) {
  io.count(m.size());
  for (auto& [k, v] : m) {
    K key = k;
    io(key, v);
  }
}
template <class K, class V>
void describe(StateReader& io, std::map<K, V>& m) {
  m.clear();
  for (std::size_t n = io.count(2); n > 0; --n) {
    K key{};
    V value{};
    io(key, value);
    m.emplace(std::move(key), std::move(value));
  }
}

template <class IO, class T, std::size_t N>
void describe(IO& io, std::array<T, N>& a) {
  for (auto& x : a) io(x);
}

template <class IO, class A, class B>
void describe(IO& io, std::pair<A, B>& p) {
  io(p.first, p.second);
}

// --- MPI and counters

// Opaque and implementation-specific, but the same binary reads it back.
template <class IO>
void describe(IO& io, MPI_Status& s) {
  io.bytes(&s, sizeof s);
}

inline void describe(StateWriter& io, Counter& c) {
  std::uint64_t v = c.get();
  io(v);
}
inline void describe(StateReader& io, Counter& c) {
  std::uint64_t v = 0;
  io(v);
  c = Counter();
  c.add(v);
}

template <class IO>
void describe(IO& io, Channel& c) {
  io(c.messages_sent, c.bytes_sent, c.messages_received, c.bytes_received);
}

inline void describe(StateWriter& io, CommChannels& ch) {
  std::uint32_t id = ch.comm_id();
  io(id);
  io.count(ch.peers());
  for (std::size_t p = 0; p < ch.peers(); ++p) {
    int world = ch.world_rank_of(p);
    Channel c = ch.channel(p);
    io(world, c);
  }
}
inline void describe(StateReader& io, CommChannels& ch) {
  std::uint32_t id = 0;
  io(id);
  const std::size_t n = io.count(4);
  std::vector<int> world(n);
  std::vector<Channel> counts(n);
  for (std::size_t p = 0; p < n; ++p) io(world[p], counts[p]);
  ch = CommChannels(id, world);
  for (std::size_t p = 0; p < n; ++p) ch.add_counts(static_cast<int>(p), counts[p]);
}

// --- the shim's records

template <class IO>
void describe(IO& io, Recipe& r) {
  io(r.op, r.ints, r.parents, r.function);
}

template <class IO>
void describe(IO& io, CommRecord& r) {
  io(r.channels, r.attributes, r.errhandler, r.collectives_started, r.collectives_entered, r.cut_key, r.children_made,
     r.is_world, r.name);
}

template <class IO>
void describe(IO& io, DatatypeRecord& r) {
  io(r.attributes, r.committed, r.name);
}

template <class IO>
void describe(IO& io, OpRecord& r) {
  io(r.user_fn, r.commute, r.fortran, r.trampoline);
}

template <class IO>
void describe(IO& io, ErrhandlerRecord& r) {
  io(r.user_fn, r.fortran, r.trampoline);
}

template <class IO>
void describe(IO& io, InfoRecord& r) {
  io(r.entries);
}

template <class IO>
void describe(IO& io, RequestRecord& r) {
  io(r.kind, r.persistent, r.comm, r.peer, r.bytes, r.completed_by_shim, r.status, r.repostable, r.active, r.mode,
     r.buf, r.count, r.datatype, r.tag, r.posted, r.freed_by_app);
}

template <class IO>
void describe(IO& io, MessageRecord& r) {
  io(r.comm);
}

template <class IO>
void describe(IO&, NoRecord&) {}

template <class IO>
void describe(IO& io, KeyvalRecord& r) {
  io(r.copy_fn, r.delete_fn, r.type_copy_fn, r.type_delete_fn, r.extra_state);
}

template <class IO>
void describe(IO& io, UserFunctionSlot& s) {
  io(s.fn, s.fortran, s.used);
}

template <class IO>
void describe(IO& io, CreationRecord& c) {
  io(c.kind, c.recipe, c.result);
}

template <class IO>
void describe(IO& io, DrainedMessage& m) {
  io(m.comm, m.source, m.tag, m.bytes);
}

// A table entry without its library handle, which means nothing in another process.
template <class IO, class H, class Rec>
void describe(IO& io, Entry<H, Rec>& e) {
  io(e.recipe, e.record, e.references);
}

}  // namespace yadokari::shim::state_io
