// A table of virtual MPI objects of one kind. The application holds an encoded index into this
// table instead of the library's handle, so the library's handle can be replaced after a restart
// (fresh MPI_Init, objects re-created from recipes) without the application noticing.
//
// Entries live in fixed-size chunks that never move: a lookup is two loads and needs no lock,
// even while another thread adds entries. Adding/removing takes a lock only when the job runs
// with MPI_THREAD_MULTIPLE (the caller passes that in), so the common case stays lock-free.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace yadokari::shim {

template <class Entry>
class HandleTable {
 public:
  static constexpr std::uint32_t kChunkBits = 10;
  static constexpr std::uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr std::uint32_t kMaxChunks = 1u << 14;  // 16M live objects of one kind
  static constexpr std::uint32_t kCapacity = kChunkSize * kMaxChunks;
  static constexpr std::uint32_t kNone = UINT32_MAX;

  HandleTable() = default;
  HandleTable(const HandleTable&) = delete;
  HandleTable& operator=(const HandleTable&) = delete;
  ~HandleTable() {
    for (auto& c : chunks_) delete[] c.load(std::memory_order_relaxed);
  }

  // Stores `e` and returns its index. Reuses the most recently freed slot (LIFO keeps
  // request slots hot in cache for codes that post and complete requests in a loop).
  std::uint32_t add(Entry e, bool locked) {
    return add_in_place([&](Entry& slot_value) { slot_value = std::move(e); }, locked);
  }

  // As add(), but `fill(Entry&)` sets the new entry's fields where it lives: the slot it gets
  // holds a default Entry (every free slot does), so a caller sets only what differs from the
  // defaults instead of building a whole entry and moving it in (the request path's cost).
  template <class Fill>
  std::uint32_t add_in_place(Fill&& fill, bool locked) {
    if (locked) {
      std::lock_guard<std::mutex> g(mutex_);
      return add_unlocked(fill);
    }
    return add_unlocked(fill);
  }

  void remove(std::uint32_t index, bool locked) {
    if (locked) {
      std::lock_guard<std::mutex> g(mutex_);
      remove_unlocked(index);
    } else {
      remove_unlocked(index);
    }
  }

  // Fast path: no bounds check beyond what a corrupt handle needs to not crash silently.
  Entry& at(std::uint32_t index) {
    return chunks_[index >> kChunkBits].load(std::memory_order_acquire)[index & (kChunkSize - 1)].value;
  }

  // Slow-path check used where a handle comes from outside (Fortran integers, user input).
  bool contains(std::uint32_t index) const {
    if (index >= kCapacity) return false;
    Slot* chunk = chunks_[index >> kChunkBits].load(std::memory_order_acquire);
    return chunk != nullptr && chunk[index & (kChunkSize - 1)].live;
  }

  std::uint32_t live_count() const { return live_; }
  std::uint32_t high_water() const { return high_water_; }  // one past the highest slot ever used

  // Visits every live entry in index order (stats, checkpoint records).
  template <class F>
  void for_each(F&& f) {
    for (std::uint32_t i = 0; i < high_water_; ++i)
      if (contains(i)) f(i, at(i));
  }

  // --- Restart path (shim_state.cpp). The application holds encoded indices, so a table is
  // brought back with every entry at its old index and the same free list (so the next object
  // gets the same index it would have got without the restart). Only called while no wrapper
  // runs (single-threaded, at a checkpoint or right after MPI_Init): no lock.

  // The free slots, in the order add() would hand them out.
  std::vector<std::uint32_t> free_list() const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = free_head_; i != kNone && out.size() < high_water_; i = slot_const(i).next_free)
      out.push_back(i);
    return out;
  }

  // Forgets every entry (chunks are kept: entries never move, even across a clear).
  void clear() {
    for (std::uint32_t i = 0; i < high_water_; ++i) slot(i) = Slot{};
    free_head_ = kNone;
    high_water_ = 0;
    live_ = 0;
  }

  // Puts `e` live at `index`; slots below it that are not live become free (see rebuild_free_list).
  void restore_at(std::uint32_t index, Entry e) {
    if (index >= kCapacity) throw std::length_error("yadokari: handle index out of range");
    grow_to(index + 1);
    Slot& s = slot(index);
    if (s.live) throw std::invalid_argument("yadokari: two entries restored at one handle index");
    s.value = std::move(e);
    s.live = true;
    s.next_free = kNone;
    ++live_;
  }

  // Relinks the free slots after restore_at: the table covers at least `high_water` slots;
  // `order` (a free_list() of the saved table) comes first, then any other free slot, lowest
  // index first. Indices in `order` that are live, repeated or out of range are skipped.
  void rebuild_free_list(std::uint32_t high_water, const std::vector<std::uint32_t>& order) {
    if (high_water > kCapacity) throw std::length_error("yadokari: handle table too large");
    grow_to(high_water);
    std::vector<bool> linked(high_water_, false);
    std::vector<std::uint32_t> chain;
    for (std::uint32_t i : order)
      if (i < high_water_ && !slot(i).live && !linked[i]) {
        linked[i] = true;
        chain.push_back(i);
      }
    for (std::uint32_t i = 0; i < high_water_; ++i)
      if (!slot(i).live && !linked[i]) chain.push_back(i);
    free_head_ = kNone;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      slot(*it).next_free = free_head_;
      free_head_ = *it;
    }
  }

 private:
  // remove_unlocked makes a default Entry in place of the freed one, which must not fail halfway.
  static_assert(std::is_nothrow_default_constructible_v<Entry>);

  struct Slot {
    Entry value{};  // a default Entry while the slot is free
    std::uint32_t next_free = kNone;
    bool live = false;
  };

  template <class Fill>
  std::uint32_t add_unlocked(Fill& fill) {
    std::uint32_t index = free_head_;
    if (index != kNone) {
      free_head_ = slot(index).next_free;
    } else {
      index = high_water_;
      if (index >= kCapacity) throw std::length_error("yadokari: too many live MPI objects of one kind");
      grow_to(index + 1);
    }
    Slot& s = slot(index);
    fill(s.value);
    s.live = true;
    s.next_free = kNone;
    ++live_;
    return index;
  }

  void remove_unlocked(std::uint32_t index) {
    Slot& s = slot(index);
    if (!s.live) return;
    s.live = false;
    // Back to a default Entry, which add_in_place relies on: destroyed and made again where it
    // is, not assigned from a temporary (that would build a second entry and move it over).
    std::destroy_at(&s.value);
    std::construct_at(&s.value);
    s.next_free = free_head_;
    free_head_ = index;
    --live_;
  }

  Slot& slot(std::uint32_t index) {
    return chunks_[index >> kChunkBits].load(std::memory_order_relaxed)[index & (kChunkSize - 1)];
  }
  const Slot& slot_const(std::uint32_t index) const {
    return chunks_[index >> kChunkBits].load(std::memory_order_relaxed)[index & (kChunkSize - 1)];
  }

  // Makes slots [high_water_, n) exist (not live, not linked). A new chunk is needed only where
  // one starts, and may already be there from before a clear().
  void grow_to(std::uint32_t n) {
    for (; high_water_ < n; ++high_water_) {
      if ((high_water_ & (kChunkSize - 1)) != 0) continue;
      auto& chunk = chunks_[high_water_ >> kChunkBits];
      if (chunk.load(std::memory_order_relaxed) == nullptr)
        chunk.store(new Slot[kChunkSize], std::memory_order_release);
    }
  }

  std::array<std::atomic<Slot*>, kMaxChunks> chunks_{};
  std::uint32_t free_head_ = kNone;
  std::uint32_t high_water_ = 0;
  std::uint32_t live_ = 0;
  std::mutex mutex_;
};

}  // namespace yadokari::shim
