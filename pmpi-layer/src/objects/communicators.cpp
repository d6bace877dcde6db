// Communicator records: the logical channel table behind every communicator the app uses, and
// the per-communicator counters the consistent cut will need.
#include "pmpi-layer/src/cut/cut_keys.hpp"
#include "pmpi-layer/src/objects/channel_hooks.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/objects/object_state.hpp"
#include "pmpi-layer/src/objects/world.hpp"

#include <algorithm>
#include <vector>

namespace yadokari::shim {
namespace {

// A communicator holds a reference on its error handler: the app may free the handler as soon as
// it is set (MPI allows it), and a freed entry's slot goes to the next handler made, which a
// restart would then set instead.
void hold_errhandler(MPI_Errhandler errhandler) {
  if (auto* e = find_entry<ErrhK>(errhandler)) ++e->references;
}

// The members of `group` as virtual-world ranks, in the group's order; frees the group.
std::vector<int> world_ranks_of(MPI_Group group) {
  int n = 0;
  PMPI_Group_size(group, &n);
  std::vector<int> ranks(static_cast<std::size_t>(n)), world(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  PMPI_Group_translate_ranks(group, n, ranks.data(), world_group(), world.data());
  PMPI_Group_free(&group);
  return world;
}

bool is_inter(MPI_Comm real) {
  int inter = 0;
  PMPI_Comm_test_inter(real, &inter);
  return inter != 0;
}

// Peers of `real` (the remote group of an intercommunicator) as virtual-world ranks.
std::vector<int> world_ranks_of_peers(MPI_Comm real) {
  MPI_Group peers;
  if (is_inter(real))
    PMPI_Comm_remote_group(real, &peers);
  else
    PMPI_Comm_group(real, &peers);
  return world_ranks_of(peers);
}

CommRecord* comm_record(MPI_Comm comm) { return record_of<CommK>(comm); }

// Every member of `real` as virtual-world ranks, both groups of an intercommunicator, sorted: what
// every member sees alike (cut_keys.hpp).
std::vector<int> all_members(MPI_Comm real, const CommChannels& peers) {
  std::vector<int> members(peers.peers());
  for (std::size_t p = 0; p < members.size(); ++p) members[p] = peers.world_rank_of(p);
  if (is_inter(real)) {
    MPI_Group local;
    PMPI_Comm_group(real, &local);
    const std::vector<int> locals = world_ranks_of(local);
    members.insert(members.end(), locals.begin(), locals.end());
  }
  std::sort(members.begin(), members.end());
  return members;
}

}  // namespace

CommRecord make_comm_record(MPI_Comm real, std::uint32_t comm_id) {
  CommRecord rec;
  rec.channels = CommChannels(comm_id, world_ranks_of_peers(real));
  return rec;
}

MPI_Comm adopt_comm(MPI_Comm real, Recipe recipe) {
  // Made by a call over the parent's members, or (the others) over its own members only.
  const bool collective_over_parent =
      recipe.op != RecipeOp::comm_create_group && recipe.op != RecipeOp::intercomm_create;
  const MPI_Comm parent_handle =
      recipe.parents.empty() ? MPI_COMM_NULL : codec::from_u64<MPI_Comm>(recipe.parents.front());
  if (real == MPI_COMM_NULL) {
    // Not a member of the result (a split's MPI_UNDEFINED, a group that leaves it out): the parent
    // still made a communicator, as on its members, so that the next one is named alike everywhere.
    if (CommRecord* parent = collective_over_parent ? comm_record(parent_handle) : nullptr) ++parent->children_made;
    return adopt<CommK>(real, std::move(recipe));  // logs the creation
  }
  auto& reg = registry<CommK>();
  // A new communicator inherits its parent's error handler (MPI 3.1 §8.3).
  MPI_Errhandler inherited = MPI_ERRHANDLER_NULL;
  if (!recipe.parents.empty())
    if (auto* parent = comm_record(parent_handle)) inherited = parent->errhandler;
  const MPI_Comm v = adopt<CommK>(real, std::move(recipe));
  auto& entry = reg.table.at(codec::index_of(v));
  entry.record = make_comm_record(real, codec::index_of(v));
  entry.record.errhandler = inherited;
  hold_errhandler(inherited);
  CommRecord* parent = collective_over_parent ? comm_record(parent_handle) : nullptr;
  const std::vector<int> members = all_members(real, entry.record.channels);
  entry.record.cut_key = parent ? child_cut_key(*parent, members) : group_cut_key(members, g_comms_made_over_group);
  return v;
}

void on_send_bytes(MPI_Comm comm, int dest, std::uint64_t bytes) {
  if (auto* rec = comm_record(comm)) rec->channels.on_send(dest, bytes);
}

int peer_count(MPI_Comm comm) {
  if (auto* rec = comm_record(comm)) return static_cast<int>(rec->channels.peers());
  int n = 0;
  PMPI_Comm_size(to_real<CommK>(comm), &n);
  return n;
}

int cart_ndims(MPI_Comm comm) {
  int n = 0;
  PMPI_Cartdim_get(to_real<CommK>(comm), &n);
  return n;
}

void retire_comm(MPI_Comm comm) {
  // Only the last reference's free retires it; MPI_COMM_WORLD/SELF are never freed by the app.
  if (!codec::is_virtual(comm)) return;
  auto* e = find_entry<CommK>(comm);
  if (!e || e->references != 1) return;
  release<ErrhK>(e->record.errhandler);  // its hold (remember_errhandler)
  e->record.errhandler = MPI_ERRHANDLER_NULL;
  g_retired_channels.retire(e->record.channels);
  if (e->record.cut_key != 0 && e->record.collectives_entered != 0)
    g_freed_cut_counts.push_back({e->record.cut_key, e->record.collectives_entered});
}

void remember_comm_name(MPI_Comm comm, const char* name) {
  if (CommRecord* rec = comm_record(comm)) rec->name = name;
}

void remember_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  CommRecord* rec = comm_record(comm);
  if (!rec) return;
  hold_errhandler(errhandler);
  release<ErrhK>(rec->errhandler);
  rec->errhandler = errhandler;
  if (rec->is_world) world_errhandler_on_library_world(to_real<ErrhK>(errhandler));
}

void world_errhandler_on_library_world(MPI_Errhandler real) {
  // Errors tied to no communicator go to the library's MPI_COMM_WORLD (MPI-3.1 §8.3); after a
  // restart over a rank map the app's world is another communicator (world.cpp), so the handler
  // the app set on its world must be on the library's too.
  if (g_world_entry->real != MPI_COMM_WORLD) PMPI_Comm_set_errhandler(MPI_COMM_WORLD, real);
}

}  // namespace yadokari::shim
