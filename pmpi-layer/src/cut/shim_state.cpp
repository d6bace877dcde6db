// What the shim's state is, one part per concern, each taken from and put back into that
// concern's globals by the concern itself (objects/object_image.cpp, telemetry/call_counters.cpp;
// the cut's part here), and whether this process's state can be carried at all (shim_state.hpp).
// The bytes: a header (magic, version, flavour, rank, sizes), then the fields in the order of
// describe(StateIO&, ShimState&) (shim_state_io.hpp does the encoding).
#include "pmpi-layer/src/cut/shim_state.hpp"

#include "pmpi-layer/src/cut/cut_state.hpp"
#include "pmpi-layer/src/cut/drain.hpp"
#include "pmpi-layer/src/cut/shim_state_io.hpp"
#include "pmpi-layer/src/objects/object_image.hpp"
#include "pmpi-layer/src/objects/virtual_handles.hpp"
#include "pmpi-layer/src/objects/world.hpp"
#include "pmpi-layer/src/shim/slow_path.hpp"
#include "pmpi-layer/src/telemetry/call_counters.hpp"

#include <chrono>
#include <sstream>
#include <tuple>

namespace yadokari::shim {
namespace {

using state_io::StateReader;
using state_io::StateWriter;

constexpr char kMagic[8] = {'Y', 'K', 'S', 'H', 'I', 'M', 'S', 'T'};
// 4: the names the app gave communicators and datatypes.
constexpr std::uint32_t kVersion = 4;

// The cut's own part: drained messages not delivered yet and the cut's counters (cut_state.hpp).
struct CutImage {
  std::deque<DrainedMessage> drained;
  std::uint64_t drained_total = 0, objects_replayed = 0, restarts = 0;
};

CutImage save_cut() {
  CutImage c;
  c.drained = drained_messages();
  c.drained_total = g_drained_total;
  c.objects_replayed = g_objects_replayed;
  c.restarts = g_restarts;
  return c;
}

void load_cut(CutImage& c) {
  drained_messages() = std::move(c.drained);
  g_drained_pending = drained_messages().size();
  set_slow_path(kSlowDrained, g_drained_pending != 0);
  g_drained_total = c.drained_total;
  g_objects_replayed = c.objects_replayed;
  g_restarts = c.restarts;
}

// The whole state, one part per concern: the rank it belongs to (objects/world.hpp), the objects
// (objects/object_image.hpp), the cut's part (above) and telemetry's call counts
// (telemetry/call_counters.hpp).
struct ShimState {
  std::string flavour;
  std::int32_t logical_rank = 0, world_size = 0;
  ObjectsImage objects;
  CutImage cut;
  std::vector<std::uint64_t> call_counts;
};

// The bytes: the fields in this order (the format of version 4; a field of any part goes where
// its place in this list says, whatever part it belongs to).
template <class IO>
void describe(IO& io, ShimState& s) {
  ObjectsImage& o = s.objects;
  CutImage& c = s.cut;
  io(s.flavour, s.logical_rank, s.world_size, o.world_index, o.self_index);
  std::apply([&](auto&... t) { io(t...); }, o.tables);
  io(o.creation_log, o.keyvals, o.keyval_live, o.op_slots, o.errhandler_slots, o.retired, o.retired_communicators,
     c.drained, c.drained_total, s.call_counts, c.objects_replayed, o.posts, c.restarts, o.comms_made_over_group,
     o.attached_buffer, o.attached_buffer_size, o.predefined_type_names);
}

ShimState capture() {
  ShimState s;
  s.flavour = kFlavour;
  s.logical_rank = identity().logical_rank;
  s.world_size = identity().world_size;
  s.objects = save_objects();
  s.cut = save_cut();
  s.call_counts = save_call_counts();
  return s;
}

// Nothing here may fail half-way: check() ran first.
void install(ShimState& s) {
  load_objects(s.objects);
  load_cut(s.cut);
  load_call_counts(s.call_counts);
}

// --- consistency of a loaded state with this process

[[noreturn]] void bad(const std::string& what) { throw std::runtime_error("yadokari: shim state: " + what); }

template <class K>
void check(const TableImage<K>& img) {
  if (img.code != K::code) bad(std::string("table of ") + K::name + " has kind " + std::to_string(img.code));
  if (img.high_water > HandleTable<typename K::entry>::kCapacity || img.high_water > codec::kMaxIndex + 1)
    bad(std::string("table of ") + K::name + " claims " + std::to_string(img.high_water) + " slots");
  std::uint32_t last = 0;
  bool first = true;
  for (const auto& [index, entry] : img.entries) {
    if (index >= img.high_water || (!first && index <= last))
      bad(std::string("table of ") + K::name + " has entry " + std::to_string(index) + " out of order or range");
    last = index;
    first = false;
    if constexpr (K::code == OpK::code || K::code == ErrhK::code)
      if (entry.record.trampoline < -1 || entry.record.trampoline >= static_cast<int>(kTrampolineSlots))
        bad("trampoline slot " + std::to_string(entry.record.trampoline) + " out of range");
  }
}

template <class K>
bool live_only_world_and_self() {
  const std::uint32_t expected = K::code == CommK::code ? 2 : 0;
  return registry<K>().table.live_count() == expected;
}

bool has_entry(const TableImage<CommK>& comms, std::uint32_t index) {
  for (const auto& [i, e] : comms.entries)
    if (i == index) return true;
  return false;
}

void check(const ShimState& s) {
  if (s.flavour != kFlavour) bad("saved by the " + s.flavour + " shim, this is the " + kFlavour + " one");
  if (s.logical_rank != identity().logical_rank || s.world_size != identity().world_size)
    bad("saved by rank " + std::to_string(s.logical_rank) + " of " + std::to_string(s.world_size) + ", this is rank " +
        std::to_string(identity().logical_rank) + " of " + std::to_string(identity().world_size));
  // objects::on_init registers the world and MPI_COMM_SELF first, so they are 0 and 1 in
  // every process; anything else means the layout of the table changed and handles would lie.
  if (s.objects.world_index != 0 || s.objects.self_index != 1 || g_world_index != 0 || g_self_index != 1)
    bad("virtual world/self at " + std::to_string(s.objects.world_index) + "/" + std::to_string(s.objects.self_index) +
        ", here at " + std::to_string(g_world_index) + "/" + std::to_string(g_self_index));
  const auto& comms = std::get<TableImage<CommK>>(s.objects.tables);
  if (!has_entry(comms, s.objects.world_index) || !has_entry(comms, s.objects.self_index))
    bad("virtual world or self missing");
  bool fresh = true;
#define YK_CHECK_FRESH(Tag, ...) fresh = fresh && live_only_world_and_self<Tag>();
  YK_KINDS(YK_CHECK_FRESH)
#undef YK_CHECK_FRESH
  if (!fresh) bad("loaded into a process that already has MPI objects (load right after MPI_Init)");
  std::apply([](const auto&... t) { (check(t), ...); }, s.objects.tables);
  if (s.objects.keyvals.size() != s.objects.keyval_live.size()) bad("keyval tables disagree");
  if (s.call_counts.size() != kFunctionCount)
    bad("counts for " + std::to_string(s.call_counts.size()) + " functions, this build has " +
        std::to_string(kFunctionCount));
  for (const auto& m : s.cut.drained)
    if (m.bytes.size() > static_cast<std::size_t>(INT32_MAX)) bad("a drained message is too large");
}

// --- what a checkpoint cannot carry (no MPI calls: save_shim_state uses it too)

std::string what_cannot_be_carried() {
  std::string why;
  registry<ReqK>().table.for_each([&](std::uint32_t, ReqK::entry& e) {
    const RequestRecord& r = e.record;
    if (!why.empty()) return;
    if (r.persistent && !r.repostable) {
      why = "a persistent request the shim cannot make again is alive";
      return;
    }
    if (r.completed_by_shim) return;
    const bool pending = !r.persistent || r.active;
    if (!pending) return;
    if (r.kind == RequestKind::collective)
      why = "a non-blocking collective request is still pending; checkpoints cannot be taken while one is";
    else if (r.kind == RequestKind::send)
      why = "a send request did not complete after the drain";
    else if (r.kind == RequestKind::receive && !r.repostable)
      why = "an MPI_Imrecv is still pending; it cannot be posted again after a restart";
    else if (r.kind == RequestKind::other)
      why = "a request of an unsupported kind is pending";
  });
  if (why.empty() && registry<MsgK>().table.live_count() != 0)
    why = "a message matched by MPI_Mprobe/MPI_Improbe has not been received yet";
  return why;
}

// The drain received every message sent before the cut, so each send completes with a little
// progress on this side (rendezvous acknowledgements); a non-blocking collective either is done
// or cannot be carried.
std::string complete_sends_and_done_collectives() {
  std::string why;
  registry<ReqK>().table.for_each([&](std::uint32_t, ReqK::entry& e) {
    RequestRecord& r = e.record;
    if (!why.empty() || r.completed_by_shim || e.real == MPI_REQUEST_NULL) return;
    if (r.kind != RequestKind::send && r.kind != RequestKind::collective) return;
    if (r.persistent && !r.active) return;
    MPI_Status st;
    int done = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    do PMPI_Test(&e.real, &done, &st);
    while (!done && r.kind == RequestKind::send && std::chrono::steady_clock::now() < deadline);
    if (!done) {
      if (r.kind == RequestKind::send)
        why = "a send to rank " + std::to_string(r.peer) + " did not complete within 30 s after the drain";
      return;
    }
    r.completed_by_shim = true;
    r.status = st;
    ++g_shim_completed_requests;
  });
  return why;
}

}  // namespace

bool shim_state_checkpointable(std::string* why) {
  std::string reason = complete_sends_and_done_collectives();
  if (reason.empty()) reason = what_cannot_be_carried();
  if (reason.empty()) return true;
  if (why) *why = reason;
  return false;
}

std::string save_shim_state() {
  if (const std::string why = what_cannot_be_carried(); !why.empty())
    throw std::runtime_error("yadokari: shim state cannot be saved: " + why);
  ShimState s = capture();
  std::ostringstream out(std::ios::binary);
  out.write(kMagic, sizeof kMagic);
  {
    StateWriter io(out);
    std::uint32_t version = kVersion;
    io(version, s);
  }
  return std::move(out).str();
}

void load_shim_state(std::string_view bytes) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    bad("not a shim state (" + std::to_string(bytes.size()) + " bytes)");
  std::istringstream in(std::string(bytes), std::ios::binary);
  in.seekg(sizeof kMagic);
  ShimState s;
  try {
    StateReader io(in, bytes.size());
    std::uint32_t version = 0;
    io(version);
    if (version != kVersion)
      bad("version " + std::to_string(version) + ", this build reads version " + std::to_string(kVersion));
    io(s);
  } catch (const std::runtime_error& e) {
    if (std::string_view(e.what()).starts_with("yadokari: ")) throw;
    bad(std::string("malformed: ") + e.what());  // cereal::Exception on truncation, ours on absurd counts
  } catch (const std::bad_alloc&) {
    bad("malformed: absurd size");
  }
  if (in.peek() != std::char_traits<char>::eof()) bad("trailing bytes");
  check(s);
  install(s);
}

void forget_shim_state() {
  ShimState s;
  s.objects = fresh_objects();
  s.call_counts.assign(kFunctionCount, 0);
  install(s);
}

}  // namespace yadokari::shim
