#include "checkpoint/image/binary_identity.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "checkpoint/image/fd_io.hpp"
#include "checkpoint/image/file_hash.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image {
namespace {

constexpr std::size_t kMaxNoteSegment = 1u << 20;

std::size_t align_up(std::size_t value, std::size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// The NT_GNU_BUILD_ID note in a PT_NOTE segment's bytes, if there is one.
std::optional<std::string> find_build_id(const std::byte* notes, std::size_t size, std::size_t alignment) {
  if (alignment != 8) alignment = 4;
  std::size_t at = 0;
  while (at + sizeof(Elf64_Nhdr) <= size) {
    Elf64_Nhdr note;
    std::memcpy(&note, notes + at, sizeof note);
    const std::size_t name_at = at + sizeof note;
    const std::size_t desc_at = name_at + align_up(note.n_namesz, alignment);
    const std::size_t next = desc_at + align_up(note.n_descsz, alignment);
    if (desc_at > size || next > size || next <= at) return std::nullopt;
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(notes + name_at, "GNU", 4) == 0)
      return std::string(reinterpret_cast<const char*>(notes + desc_at), note.n_descsz);
    at = next;
  }
  return std::nullopt;
}

std::optional<std::string> build_id_of_file(int fd, const std::string& path) {
  Elf64_Ehdr elf;
  if (io::read_at(fd, 0, &elf, sizeof elf, path) != sizeof elf) return std::nullopt;
  if (std::memcmp(elf.e_ident, ELFMAG, SELFMAG) != 0 || elf.e_ident[EI_CLASS] != ELFCLASS64 ||
      elf.e_ident[EI_DATA] != ELFDATA2LSB || elf.e_phentsize != sizeof(Elf64_Phdr))
    return std::nullopt;
  for (unsigned i = 0; i < elf.e_phnum; ++i) {
    Elf64_Phdr segment;
    if (io::read_at(fd, elf.e_phoff + i * sizeof segment, &segment, sizeof segment, path) != sizeof segment)
      return std::nullopt;
    if (segment.p_type != PT_NOTE || segment.p_filesz > kMaxNoteSegment) continue;
    std::string notes(segment.p_filesz, '\0');
    if (io::read_at(fd, segment.p_offset, notes.data(), notes.size(), path) != notes.size()) continue;
    if (auto id = find_build_id(reinterpret_cast<const std::byte*>(notes.data()), notes.size(), segment.p_align))
      return id;
  }
  return std::nullopt;
}

std::uint64_t size_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw io_error(path, "reading its size", errno);
  return static_cast<std::uint64_t>(st.st_size);
}

BinaryIdentity content_identity(const std::string& path) {
  const std::uint64_t hash = xxh64_of_file(path);
  std::string id(8, '\0');
  for (int i = 0; i < 8; ++i) id[i] = static_cast<char>(hash >> (56 - 8 * i));  // big-endian: reads as hex64
  return {path, IdentityKind::content_xxh64, id, size_of(path)};
}

std::string executable_path() {
  char buffer[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n < 0) throw io_error("/proc/self/exe", "reading the link", errno);
  return std::string(buffer, static_cast<std::size_t>(n));
}

struct LoadedObject {
  std::string path;
  std::optional<std::string> build_id;
};

// dl_iterate_phdr calls back through C: nothing may throw out of this function.
int collect_object(dl_phdr_info* info, std::size_t, void* data) noexcept {
  auto& objects = *static_cast<std::vector<LoadedObject>*>(data);
  try {
    LoadedObject object;
    const bool main_program = objects.empty();
    if (info->dlpi_name && info->dlpi_name[0] == '/')
      object.path = info->dlpi_name;
    else if (!main_program)
      return 0;  // the vDSO: no file behind it
    for (int i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr)& segment = info->dlpi_phdr[i];
      if (segment.p_type != PT_NOTE) continue;
      const auto* notes = reinterpret_cast<const std::byte*>(info->dlpi_addr + segment.p_vaddr);
      if ((object.build_id = find_build_id(notes, segment.p_memsz, segment.p_align))) break;
    }
    objects.push_back(std::move(object));
    return 0;
  } catch (...) {
    return 1;
  }
}

std::string describe_with_size(const BinaryIdentity& binary) {
  return describe_identity(binary) + ", " + std::to_string(binary.size) + " bytes";
}

}  // namespace

std::string describe_identity(const BinaryIdentity& binary) {
  switch (binary.kind) {
    case IdentityKind::build_id:
      return "build-id " + hex_bytes(binary.id);
    case IdentityKind::content_xxh64:
      return "xxh64 " + hex_bytes(binary.id);
  }
  return "identity kind " + std::to_string(static_cast<unsigned>(binary.kind)) + " " + hex_bytes(binary.id);
}

BinaryIdentity identify_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io_error(path, "opening", errno);
  std::optional<std::string> build_id;
  try {
    build_id = build_id_of_file(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (!build_id) return content_identity(path);
  return {path, IdentityKind::build_id, *build_id, size_of(path)};
}

std::vector<BinaryIdentity> loaded_binaries() {
  std::vector<LoadedObject> objects;
  dl_iterate_phdr(collect_object, &objects);
  std::vector<BinaryIdentity> binaries;
  for (auto& object : objects) {
    if (object.path.empty()) object.path = executable_path();
    if (object.build_id)
      binaries.push_back({object.path, IdentityKind::build_id, *object.build_id, size_of(object.path)});
    else
      binaries.push_back(content_identity(object.path));
  }
  return binaries;
}

std::vector<std::string> identity_mismatches(const std::vector<BinaryIdentity>& saved,
                                             const std::vector<BinaryIdentity>& current) {
  std::map<std::string, const BinaryIdentity*> now;
  for (const auto& binary : current) now.emplace(binary.path, &binary);
  std::vector<std::string> differences;
  for (const auto& then : saved) {
    const auto found = now.find(then.path);
    if (found == now.end()) {
      differences.push_back(then.path + " was loaded at the checkpoint but is not loaded now");
      continue;
    }
    if (!(*found->second == then))
      differences.push_back(then.path + " changed since the checkpoint (was " + describe_with_size(then) + "; now " +
                            describe_with_size(*found->second) + ")");
    now.erase(found);
  }
  for (const auto& binary : current)
    if (now.count(binary.path)) differences.push_back(binary.path + " is loaded now but was not at the checkpoint");
  return differences;
}

}  // namespace yadokari::image
