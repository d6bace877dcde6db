// What the shim's state is, taken from its globals and put back (shim_state.hpp). The bytes:
// a header (magic, version, flavour, rank, sizes), then the state's fields in the order of
// describe(StateIO&, ShimState&) (shim_state_io.hpp does the encoding).
#include "cut/shim_state.hpp"

#include "cut/checkpoint_taker.hpp"
#include "cut/replay.hpp"
#include "cut/shim_state_io.hpp"
#include "objects/world.hpp"
#include "cut/cut_state.hpp"
#include "cut/drain.hpp"
#include "objects/message_size.hpp"
#include "objects/object_hooks.hpp"
#include "shim/slow_path.hpp"
#include "telemetry/call_counters.hpp"

#include <chrono>
#include <sstream>
#include <tuple>

namespace yk {
namespace {

using state_io::StateReader;
using state_io::StateWriter;

constexpr char kMagic[8] = {'Y', 'K', 'S', 'H', 'I', 'M', 'S', 'T'};
constexpr std::uint32_t kVersion = 1;

// One table: its entries at their indices and its free list, so that the next object made after
// the restart gets the index it would have got anyway.
template <class K>
struct TableImage {
  std::uint32_t code = K::code;
  std::uint32_t high_water = 0;
  std::vector<std::uint32_t> free_list;
  std::vector<std::pair<std::uint32_t, typename K::entry>> entries;
};

template <class IO, class K>
void describe(IO& io, TableImage<K>& t) {
  io(t.code, t.high_water, t.free_list, t.entries);
}

using Tables = std::tuple<TableImage<CommK>, TableImage<GroupK>, TableImage<TypeK>, TableImage<ErrhK>, TableImage<OpK>,
                          TableImage<InfoK>, TableImage<ReqK>, TableImage<MsgK>>;
#define YK_COUNT_KIND(...) +1
static_assert(std::tuple_size_v<Tables> == 0 YK_KINDS(YK_COUNT_KIND), "a kind of YK_KINDS is not carried");
#undef YK_COUNT_KIND

struct ShimState {
  std::string flavour;
  std::int32_t logical_rank = 0, world_size = 0;
  std::uint32_t world_index = 0, self_index = 0;
  Tables tables;
  std::vector<CreationRecord> creation_log;
  std::vector<KeyvalRecord> keyvals;
  std::vector<bool> keyval_live;
  std::array<UserFunctionSlot, kTrampolineSlots> op_slots{}, errhandler_slots{};
  std::vector<Channel> retired;  // traffic of freed communicators, by logical peer
  std::uint64_t retired_communicators = 0;
  std::deque<DrainedMessage> drained;
  std::uint64_t drained_total = 0;
  std::vector<std::uint64_t> call_counts;
  std::uint64_t objects_replayed = 0, posts = 0, restarts = 0;
};

template <class IO>
void describe(IO& io, ShimState& s) {
  io(s.flavour, s.logical_rank, s.world_size, s.world_index, s.self_index);
  std::apply([&](auto&... t) { io(t...); }, s.tables);
  io(s.creation_log, s.keyvals, s.keyval_live, s.op_slots, s.errhandler_slots, s.retired, s.retired_communicators,
     s.drained, s.drained_total, s.call_counts, s.objects_replayed, s.posts, s.restarts);
}

// --- globals -> ShimState

template <class K>
void capture(TableImage<K>& img) {
  auto& table = registry<K>().table;
  img.high_water = table.high_water();
  img.free_list = table.free_list();
  table.for_each([&](std::uint32_t index, typename K::entry& e) { img.entries.emplace_back(index, e); });
}

ShimState capture() {
  ShimState s;
  s.flavour = kFlavour;
  s.logical_rank = identity().logical_rank;
  s.world_size = identity().world_size;
  s.world_index = g_world_index;
  s.self_index = g_self_index;
  std::apply([](auto&... t) { (capture(t), ...); }, s.tables);
  s.creation_log = g_creation_log;
  s.keyvals = keyval_records();
  s.keyval_live = keyval_live_flags();
  s.op_slots = op_slots();
  s.errhandler_slots = errhandler_slots();
  s.retired = g_retired_channels.by_world_peer();
  s.retired_communicators = g_retired_channels.communicators();
  s.drained = drained_messages();
  s.drained_total = g_drained_total;
  for (const Counter& c : g_call_counts) s.call_counts.push_back(c.get());
  s.objects_replayed = g_objects_replayed;
  s.posts = g_posts;
  s.restarts = g_restarts;
  return s;
}

// --- ShimState -> globals (nothing here may fail half-way: check() ran first)

template <class K>
void install(TableImage<K>& img) {
  auto& reg = registry<K>();
  reg.table.clear();
  reg.by_real.clear();  // rebuilt by the replay as it gives each entry its new library handle
  for (auto& [index, entry] : img.entries) {
    entry.real = K::null();
    reg.table.restore_at(index, std::move(entry));
  }
  reg.table.rebuild_free_list(img.high_water, img.free_list);
}

void install(ShimState& s) {
  // The virtual world and MPI_COMM_SELF are the fresh library's (after_library_init made them).
  const MPI_Comm world_real = g_world_entry->real, self_real = g_self_entry->real;
  std::apply([](auto&... t) { (install(t), ...); }, s.tables);
  auto& comms = registry<CommK>();
  g_world_entry = &comms.table.at(g_world_index);
  g_self_entry = &comms.table.at(g_self_index);
  g_world_entry->real = world_real;
  g_self_entry->real = self_real;
  comms.by_real.emplace(codec::to_u64(world_real), g_world_index);

  g_creation_log = std::move(s.creation_log);
  keyval_records() = std::move(s.keyvals);
  keyval_live_flags() = std::move(s.keyval_live);
  op_slots() = s.op_slots;
  errhandler_slots() = s.errhandler_slots;
  g_retired_channels.restore(std::move(s.retired), static_cast<std::size_t>(s.retired_communicators));
  drained_messages() = std::move(s.drained);
  g_drained_pending = drained_messages().size();
  set_slow_path(kSlowDrained, g_drained_pending != 0);
  g_drained_total = s.drained_total;
  std::size_t completed = 0;
  registry<ReqK>().table.for_each([&](std::uint32_t, ReqK::entry& e) { completed += e.record.completed_by_shim; });
  g_shim_completed_requests = completed;
  for (std::size_t i = 0; i < kFunctionCount; ++i) {
    Counter c;
    c.add(s.call_counts[i]);
    g_call_counts[i] = c;
  }
  g_objects_replayed = s.objects_replayed;
  g_posts = s.posts;
  g_restarts = s.restarts;
  forget_type_sizes();  // keyed by virtual handles, which may now stand for other types
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
  // after_library_init registers the world and MPI_COMM_SELF first, so they are 0 and 1 in
  // every process; anything else means the layout of the table changed and handles would lie.
  if (s.world_index != 0 || s.self_index != 1 || g_world_index != 0 || g_self_index != 1)
    bad("virtual world/self at " + std::to_string(s.world_index) + "/" + std::to_string(s.self_index) + ", here at " +
        std::to_string(g_world_index) + "/" + std::to_string(g_self_index));
  const auto& comms = std::get<TableImage<CommK>>(s.tables);
  if (!has_entry(comms, s.world_index) || !has_entry(comms, s.self_index)) bad("virtual world or self missing");
  bool fresh = true;
#define YK_CHECK_FRESH(Tag, ...) fresh = fresh && live_only_world_and_self<Tag>();
  YK_KINDS(YK_CHECK_FRESH)
#undef YK_CHECK_FRESH
  if (!fresh) bad("loaded into a process that already has MPI objects (load right after MPI_Init)");
  std::apply([](const auto&... t) { (check(t), ...); }, s.tables);
  if (s.keyvals.size() != s.keyval_live.size()) bad("keyval tables disagree");
  if (s.call_counts.size() != kFunctionCount)
    bad("counts for " + std::to_string(s.call_counts.size()) + " functions, this build has " +
        std::to_string(kFunctionCount));
  for (const auto& m : s.drained)
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
  s.world_index = g_world_index;
  s.self_index = g_self_index;
  auto& comms = std::get<TableImage<CommK>>(s.tables);
  CommK::entry world{MPI_COMM_NULL, Recipe{}, make_comm_record(g_world_entry->real, g_world_index), 1};
  world.record.is_world = true;
  world.record.cut_key = g_world_entry->record.cut_key;  // what after_library_init gave it
  comms.entries.emplace_back(g_world_index, std::move(world));
  comms.entries.emplace_back(g_self_index,
                             CommK::entry{MPI_COMM_NULL, Recipe{}, make_comm_record(g_self_entry->real, g_self_index), 1});
  comms.high_water = 2;
  s.retired.resize(static_cast<std::size_t>(identity().world_size));
  s.call_counts.assign(kFunctionCount, 0);
  install(s);
}

}  // namespace yk
