// The objects' part of a checkpoint image (object_image.hpp), from and into their globals.
#include "pmpi-layer/src/objects/object_image.hpp"

#include "pmpi-layer/src/objects/message_size.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/objects/object_state.hpp"
#include "pmpi-layer/src/objects/virtual_handles.hpp"
#include "pmpi-layer/src/objects/world.hpp"

namespace yadokari::shim {
namespace {

template <class K>
void capture(TableImage<K>& img) {
  auto& table = registry<K>().table;
  img.high_water = table.high_water();
  img.free_list = table.free_list();
  table.for_each([&](std::uint32_t index, typename K::entry& e) { img.entries.emplace_back(index, e); });
}

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

}  // namespace

ObjectsImage save_objects() {
  ObjectsImage s;
  s.world_index = g_world_index;
  s.self_index = g_self_index;
  std::apply([](auto&... t) { (capture(t), ...); }, s.tables);
  compact_creation_log();  // what a restart needs, no more
  s.creation_log = g_creation_log;
  s.keyvals = keyval_records();
  s.keyval_live = keyval_live_flags();
  s.op_slots = op_slots();
  s.errhandler_slots = errhandler_slots();
  s.retired = g_retired_channels.by_world_peer();
  s.retired_communicators = g_retired_channels.communicators();
  s.comms_made_over_group = g_comms_made_over_group;
  s.posts = g_posts;
  s.attached_buffer = g_attached_buffer.address;
  s.attached_buffer_size = g_attached_buffer.size;
  s.predefined_type_names = g_predefined_type_names;
  return s;
}

void load_objects(ObjectsImage& s) {
  // The virtual world and MPI_COMM_SELF are the fresh library's (objects::on_init made them).
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
  g_comms_made_over_group = std::move(s.comms_made_over_group);
  g_freed_cut_counts.clear();  // the checkpoint was a cut that took every member to them
  std::size_t completed = 0;
  registry<ReqK>().table.for_each([&](std::uint32_t, ReqK::entry& e) { completed += e.record.completed_by_shim; });
  g_shim_completed_requests = completed;
  g_posts = s.posts;
  g_attached_buffer = {s.attached_buffer, s.attached_buffer_size};
  g_predefined_type_names = std::move(s.predefined_type_names);
  forget_type_sizes();  // keyed by virtual handles, which may now stand for other types
}

ObjectsImage fresh_objects() {
  ObjectsImage s;
  s.world_index = g_world_index;
  s.self_index = g_self_index;
  auto& comms = std::get<TableImage<CommK>>(s.tables);
  CommK::entry world{MPI_COMM_NULL, Recipe{}, make_comm_record(g_world_entry->real, g_world_index), 1};
  world.record.is_world = true;
  world.record.cut_key = g_world_entry->record.cut_key;  // what objects::on_init gave it
  comms.entries.emplace_back(g_world_index, std::move(world));
  comms.entries.emplace_back(
      g_self_index, CommK::entry{MPI_COMM_NULL, Recipe{}, make_comm_record(g_self_entry->real, g_self_index), 1});
  comms.high_water = 2;
  s.retired.resize(static_cast<std::size_t>(identity().world_size));
  return s;
}

}  // namespace yadokari::shim
