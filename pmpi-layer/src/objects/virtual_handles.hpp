// Virtual handles: the only MPI handles the application ever holds (see handle_codec.hpp for
// their spelling). Each kind of object has one table; a virtual handle's entry holds the real
// handle of the current incarnation, the recipe that made it and the kind's record.
//
// Predefined handles (MPI_INT, MPI_SUM, MPI_COMM_NULL, ...) are not virtualised: they are the
// same in every incarnation. The one exception is MPI_COMM_WORLD, which the application sees as
// the virtual world (logical ranks), backed by a communicator the shim made at MPI_Init.
//
// The kinds and entries: kinds.hpp; the tables themselves: object_state.hpp.
#pragma once

#include "pmpi-layer/src/core/recipe.hpp"
#include "pmpi-layer/src/objects/creation_log.hpp"
#include "pmpi-layer/src/objects/handle_codec.hpp"
#include "pmpi-layer/src/objects/kinds.hpp"
#include "pmpi-layer/src/objects/object_state.hpp"

#include <mpi.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace yadokari::shim {

template <class K>
YK_HOT typename K::entry* find_entry(typename K::handle h) {
  // MPI_COMM_WORLD first: the communicator of most messages, one compare and one load.
  if constexpr (K::code == CommK::code)
    if (h == MPI_COMM_WORLD) [[likely]]
      return g_world_entry;
  if (codec::is_virtual(h)) return &registry<K>().table.at(codec::index_of(h));
  if constexpr (K::code == CommK::code)
    if (h == MPI_COMM_SELF) return g_self_entry;
  return nullptr;
}

YK_HOT MPI_Comm real_of(const CommK::entry* e, MPI_Comm h) { return e ? e->real : h; }

// Virtual (or predefined) -> handle of the live library. Hot path of every wrapper.
template <class K>
YK_HOT typename K::handle to_real(typename K::handle h) {
  if (auto* e = find_entry<K>(h)) return e->real;
  return h;
}

template <class K>
void log_creation(const Recipe& recipe, typename K::handle result) {
  if constexpr (K::code != ReqK::code && K::code != MsgK::code)
    if (recipe.op != RecipeOp::predefined) {
      g_creation_log.push_back({K::code, recipe, codec::to_u64(result)});
      if (g_creation_log.size() >= g_creation_log_compact_at) [[unlikely]]
        compact_grown_creation_log();
    }
}

// A new object the library just made: give the app a virtual handle for it. Null stays null.
template <class K>
typename K::handle adopt(typename K::handle real, Recipe recipe, typename K::record rec = {}) {
  if (real == K::null()) {
    log_creation<K>(recipe, K::null());
    return real;
  }
  auto& reg = registry<K>();
  const std::uint32_t index = reg.table.add({real, std::move(recipe), std::move(rec), 1}, g_many_writers);
  if constexpr (K::reverse_map) reg.by_real.emplace(codec::to_u64(real), index);
  const auto v = codec::encode<typename K::handle>(K::code, index);
  log_creation<K>(reg.table.at(index).recipe, v);
  return v;
}

// adopt() for the kinds that have no recipe (a restart re-posts a request from its record; a
// matched message blocks a checkpoint): the hot path of every MPI_Isend/MPI_Irecv. The entry is
// filled where it lives: its free slot holds a default entry, so the recipe stays empty and
// `fill_record(K::record&)` sets only the record's fields that differ from their defaults.
// Nothing to log.
template <class K, class FillRecord>
typename K::handle adopt_without_recipe(typename K::handle real, FillRecord&& fill_record) {
  static_assert(K::code == ReqK::code || K::code == MsgK::code, "other kinds keep their recipe: adopt()");
  if (real == K::null()) return real;
  const std::uint32_t index = registry<K>().table.add_in_place(
      [&](typename K::entry& e) {
        e.real = real;
        fill_record(e.record);
      },
      g_many_writers);
  return codec::encode<typename K::handle>(K::code, index);
}

// release() of the entry `e` at `index`, for a caller that has looked it up already.
template <class K>
void release_entry(std::uint32_t index, typename K::entry& e) {
  if (--e.references > 0) return;
  auto& reg = registry<K>();
  if constexpr (K::reverse_map) reg.by_real.erase(codec::to_u64(e.real));
  reg.table.remove(index, g_many_writers);
}

// The app freed the object (the library's handle is already freed or being freed).
template <class K>
void release(typename K::handle v) {
  if (!codec::is_virtual(v)) return;
  const std::uint32_t index = codec::index_of(v);
  release_entry<K>(index, registry<K>().table.at(index));
}

// Real -> virtual for objects the library hands back (getters, callbacks). Objects the shim
// does not know are predefined ones and pass through.
template <class K>
typename K::handle to_virtual(typename K::handle real) {
  static_assert(K::reverse_map, "enable the reverse map for this kind");
  if constexpr (K::code == CommK::code) {
    if (g_world_index != UINT32_MAX && real == registry<K>().table.at(g_world_index).real) return MPI_COMM_WORLD;
  }
  auto& reg = registry<K>();
  auto it = reg.by_real.find(codec::to_u64(real));
  if (it == reg.by_real.end()) return real;
  return codec::encode<typename K::handle>(K::code, it->second);
}

// Getters such as MPI_Comm_get_errhandler and MPI_Type_get_contents return a new *reference*
// to an existing object, which the app frees separately. The app gets the same virtual handle
// (as it would get the same library handle) and the entry counts the reference, so freeing one
// reference never invalidates the other.
template <class K>
typename K::handle another_reference(typename K::handle real) {
  static_assert(K::reverse_map, "enable the reverse map for this kind");
  auto& reg = registry<K>();
  auto it = reg.by_real.find(codec::to_u64(real));
  if (it == reg.by_real.end()) return real;  // predefined
  ++reg.table.at(it->second).references;
  return codec::encode<typename K::handle>(K::code, it->second);
}

template <class K>
inline typename K::record* record_of(typename K::handle h) {
  auto* e = find_entry<K>(h);
  return e ? &e->record : nullptr;
}

// Translates an input array of handles into a scratch array of real ones. Small arrays stay on
// the stack; the common Waitall of a halo exchange allocates nothing.
template <class K, std::size_t Inline = 32>
class RealArray {
 public:
  using H = typename K::handle;
  RealArray(const H* v, int n) {
    const std::size_t count = n > 0 ? static_cast<std::size_t>(n) : 0;
    data_ = count <= Inline ? inline_ : (heap_ = new H[count]);
    for (std::size_t i = 0; i < count; ++i) data_[i] = to_real<K>(v[i]);
  }
  RealArray(const RealArray&) = delete;
  RealArray& operator=(const RealArray&) = delete;
  ~RealArray() { delete[] heap_; }
  H* get() { return data_; }
  H& operator[](int i) { return data_[i]; }

 private:
  H inline_[Inline];
  H* heap_ = nullptr;
  H* data_ = nullptr;
};

}  // namespace yadokari::shim
