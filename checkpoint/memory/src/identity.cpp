#include "checkpoint/memory/src/identity.hpp"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/mapped_file.hpp"

namespace yadokari::memory {
namespace {

ObjectList g_premain;
char g_exe_path[512];

void read_build_id(const struct dl_phdr_info* info, ObjectId& id) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_NOTE) continue;
    auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + p.p_vaddr);
    auto* end = at + p.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      auto* n = reinterpret_cast<const ElfW(Nhdr)*>(at);
      const unsigned char* name = at + sizeof(ElfW(Nhdr));
      const unsigned char* desc = name + ((n->n_namesz + 3) & ~3u);
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        id.build_id_len = n->n_descsz < sizeof id.build_id ? n->n_descsz : sizeof id.build_id;
        std::memcpy(id.build_id, desc, id.build_id_len);
        return;
      }
      at = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
}

int add_object(struct dl_phdr_info* info, std::size_t, void* arg) {
  auto& list = *static_cast<ObjectList*>(arg);
  if (info->dlpi_addr && info->dlpi_addr == getauxval(AT_SYSINFO_EHDR)) return 0;  // vDSO
  if (list.count == kMaxObjects) {
    list.truncated = 1;
    return 0;
  }
  ObjectId& id = list.objects[list.count++];
  std::memset(&id, 0, sizeof id);
  std::snprintf(id.name, sizeof id.name, "%s", info->dlpi_name ? info->dlpi_name : "");
  id.base = info->dlpi_addr;
  read_build_id(info, id);
  return 0;
}

const char* display_name(const ObjectId& id) { return id.name[0] ? id.name : exe_path(); }

}  // namespace

void list_objects(ObjectList& out) {
  out.count = 0;
  out.truncated = 0;
  dl_iterate_phdr(add_object, &out);
}

void record_premain_objects() { list_objects(g_premain); }
const ObjectList& premain_objects() { return g_premain; }

bool exe_hash(std::uint64_t& out) {
  static std::uint64_t cached;
  static bool have;
  if (!have) {
    MappedFile f("/proc/self/exe");
    if (!f.ok()) return false;
    cached = XXH3_64bits(f.data(), f.size());
    have = true;
  }
  out = cached;
  return true;
}

const char* exe_path() {
  if (!g_exe_path[0]) {
    ssize_t n = readlink("/proc/self/exe", g_exe_path, sizeof g_exe_path - 1);
    if (n <= 0) return "?";
    g_exe_path[n] = 0;
  }
  return g_exe_path;
}

const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// The same object: the same file name (the executable has none; a library may be found in
// another directory, e.g. through LD_LIBRARY_PATH), or the same build-id at the same address.
bool same_object(const ObjectId& a, const ObjectId& b) {
  if (std::strcmp(base_name(a.name), base_name(b.name)) == 0) return true;
  return a.base == b.base && a.build_id_len && a.build_id_len == b.build_id_len &&
         std::memcmp(a.build_id, b.build_id, a.build_id_len) == 0;
}

const ObjectId* find(const ObjectList& in, const ObjectId& what) {
  for (std::uint32_t i = 0; i < in.count; ++i)
    if (same_object(in.objects[i], what)) return &in.objects[i];
  return nullptr;
}

bool same_objects(const ObjectList& saved, const ObjectList& now, char* why, std::size_t why_len) {
  char a[80], b[80];
  // Extra objects first: they also move the others, so they are the cause worth naming.
  for (std::uint32_t j = 0; j < now.count; ++j)
    if (!find(saved, now.objects[j])) {
      std::snprintf(why, why_len, "%s is loaded now but was not when the checkpoint was taken",
                    display_name(now.objects[j]));
      return false;
    }
  for (std::uint32_t i = 0; i < saved.count; ++i) {
    const ObjectId& s = saved.objects[i];
    const ObjectId* n = find(now, s);
    if (!n) {
      std::snprintf(why, why_len, "%s was loaded when the checkpoint was taken and is not now", s.name);
      return false;
    }
    if (n->build_id_len != s.build_id_len || std::memcmp(n->build_id, s.build_id, s.build_id_len) != 0) {
      std::snprintf(why, why_len, "%s changed since the checkpoint (build-id %s, image has %s)", display_name(*n),
                    format_hex(a, n->build_id, n->build_id_len < 16 ? n->build_id_len : 16),
                    format_hex(b, s.build_id, s.build_id_len < 16 ? s.build_id_len : 16));
      return false;
    }
    if (n->base != s.base) {
      std::snprintf(why, why_len, "%s is loaded at %s, not at %s as when the checkpoint was taken", display_name(*n),
                    format_x64(a, n->base), format_x64(b, s.base));
      return false;
    }
  }
  return true;
}

}  // namespace yadokari::memory
