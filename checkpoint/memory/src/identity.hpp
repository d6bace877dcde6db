#pragma once
// Binary identity (docs/architecture.md, pitfalls 1 and 2): an image is valid only for the same
// executable and the same libraries at the same addresses. The objects loaded before main are
// listed when main starts (from the build-id notes already in memory); the executable is also
// hashed (its build-id alone would not notice e.g. a patched string). The vDSO is skipped: it
// belongs to the kernel.
#include <cstdint>

namespace yadokari::memory {

struct ObjectId {
  char name[160];      // path as the loader knows it ("" for the executable)
  std::uint64_t base;  // load address
  std::uint8_t build_id[32];
  std::uint32_t build_id_len;
  std::uint32_t pad;
};

// A program that links a scientific stack brings many (LAMMPS under the shim: 64 with the executable).
inline constexpr int kMaxObjects = 256;

struct ObjectList {
  std::uint32_t count;
  std::uint32_t truncated;  // more than kMaxObjects objects: the rest were not recorded
  ObjectId objects[kMaxObjects];
};

// Fills `out` with the objects loaded now.
void list_objects(ObjectList& out);
// The list taken when main started (record_premain_objects() is called by the trampoline).
void record_premain_objects();
const ObjectList& premain_objects();

// xxh3-64 of the running executable's file (/proc/self/exe), computed once; false if unreadable.
bool exe_hash(std::uint64_t& out);
// Path of the running executable (readlink /proc/self/exe), "?" if unknown.
const char* exe_path();

// Compares saved and current; writes the first difference as one sentence into `why` and
// returns false, or returns true.
bool same_objects(const ObjectList& saved, const ObjectList& now, char* why, std::size_t why_len);

}  // namespace yadokari::memory
