// What a checkpoint image carries of the objects (object_state.hpp, and the keyvals and
// trampoline slots behind their accessors), taken from the globals and put back. Which bytes,
// in which order, is cut/shim_state.cpp's business: it lists these fields among the others'.
#pragma once

#include "pmpi-layer/src/core/channel_table.hpp"
#include "pmpi-layer/src/objects/kinds.hpp"
#include "pmpi-layer/src/objects/records.hpp"
#include "pmpi-layer/src/objects/trampolines.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace yadokari::shim {

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

struct ObjectsImage {
  std::uint32_t world_index = 0, self_index = 0;
  Tables tables;
  std::vector<CreationRecord> creation_log;
  std::vector<KeyvalRecord> keyvals;
  std::vector<bool> keyval_live;
  std::array<UserFunctionSlot, kTrampolineSlots> op_slots{}, errhandler_slots{};
  std::vector<Channel> retired;  // traffic of freed communicators, by logical peer
  std::uint64_t retired_communicators = 0;
  std::map<std::uint64_t, std::uint64_t> comms_made_over_group;  // object_state.hpp
  std::uint64_t posts = 0;
  std::uint64_t attached_buffer = 0;  // address; with its size, object_state.hpp
  std::int64_t attached_buffer_size = 0;
  std::map<std::uint64_t, std::string> predefined_type_names;  // object_state.hpp
};

// The objects' globals as they are now. Makes no MPI call.
ObjectsImage save_objects();

// Replaces the objects' globals by `image` (already checked: nothing here may fail half-way).
// Library handles are left null for the replay; the virtual world and MPI_COMM_SELF keep this
// process's.
void load_objects(ObjectsImage& image);

// What a fresh process has: only the virtual world and MPI_COMM_SELF, as objects::on_init()
// made them (for forget_shim_state()).
ObjectsImage fresh_objects();

}  // namespace yadokari::shim
