#include "runtime/launch/elf_dynamic.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <optional>

namespace yadokari::launch {
namespace {

// Caps against corrupt headers making us allocate or loop without end.
constexpr std::uint64_t kMaxProgramHeaders = 4096;
constexpr std::uint64_t kMaxDynamicBytes = 1 << 20;
constexpr std::uint64_t kMaxStringTableBytes = 64 << 20;

class FileRange {
 public:
  explicit FileRange(const std::filesystem::path& file) : in_(file, std::ios::binary) {
    if (in_) {
      in_.seekg(0, std::ios::end);
      size_ = static_cast<std::uint64_t>(in_.tellg());
    }
  }
  bool is_open() const { return static_cast<bool>(in_); }

  // Bytes [offset, offset+length), or nothing if that is not inside the file.
  std::optional<std::string> read(std::uint64_t offset, std::uint64_t length) {
    if (offset > size_ || length > size_ - offset) return std::nullopt;
    std::string bytes(length, '\0');
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    if (!in_.read(bytes.data(), static_cast<std::streamsize>(length))) return std::nullopt;
    return bytes;
  }

 private:
  std::ifstream in_;
  std::uint64_t size_ = 0;
};

template <class T>
T copy_out(const std::string& bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(':', start), list.size());
    if (end > start) parts.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

ElfDynamic failure(ElfDynamic::Status status, std::string error) {
  ElfDynamic result;
  result.status = status;
  result.error = std::move(error);
  return result;
}

}  // namespace

ElfDynamic read_elf_dynamic(const std::filesystem::path& file) {
  using Status = ElfDynamic::Status;
  FileRange in(file);
  if (!in.is_open()) return failure(Status::cannot_open, "cannot open " + file.string());

  const auto header_bytes = in.read(0, sizeof(Elf64_Ehdr));
  if (!header_bytes || std::memcmp(header_bytes->data(), ELFMAG, SELFMAG) != 0)
    return failure(Status::not_elf, file.string() + " is not an ELF file");
  const auto header = copy_out<Elf64_Ehdr>(*header_bytes, 0);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    return failure(Status::unsupported, file.string() + " is not a 64-bit little-endian ELF file");
  if (header.e_phnum > kMaxProgramHeaders || header.e_phentsize != sizeof(Elf64_Phdr))
    return failure(Status::unsupported, file.string() + " has malformed program headers");

  const auto phdr_bytes = in.read(header.e_phoff, std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr));
  if (!phdr_bytes) return failure(Status::unsupported, file.string() + " is truncated");
  std::vector<Elf64_Phdr> loads;
  std::optional<Elf64_Phdr> dynamic;
  for (std::size_t i = 0; i < header.e_phnum; ++i) {
    const auto phdr = copy_out<Elf64_Phdr>(*phdr_bytes, i * sizeof(Elf64_Phdr));
    if (phdr.p_type == PT_LOAD) loads.push_back(phdr);
    if (phdr.p_type == PT_DYNAMIC) dynamic = phdr;
  }
  ElfDynamic result;
  if (!dynamic) return result;  // statically linked

  const auto malformed = [&] {
    return failure(Status::unsupported, file.string() + " has a malformed dynamic section");
  };
  if (dynamic->p_filesz > kMaxDynamicBytes) return malformed();
  const auto dyn_bytes = in.read(dynamic->p_offset, dynamic->p_filesz);
  if (!dyn_bytes) return malformed();

  std::vector<Elf64_Dyn> entries;
  std::uint64_t strtab_address = 0, strtab_size = 0;
  for (std::size_t at = 0; at + sizeof(Elf64_Dyn) <= dyn_bytes->size(); at += sizeof(Elf64_Dyn)) {
    const auto entry = copy_out<Elf64_Dyn>(*dyn_bytes, at);
    if (entry.d_tag == DT_NULL) break;
    if (entry.d_tag == DT_STRTAB) strtab_address = entry.d_un.d_ptr;
    if (entry.d_tag == DT_STRSZ) strtab_size = entry.d_un.d_val;
    entries.push_back(entry);
  }
  if (strtab_size > kMaxStringTableBytes) return malformed();

  // DT_STRTAB is a virtual address: find the file bytes through the segment that maps it.
  std::optional<std::string> strtab;
  for (const auto& load : loads) {
    if (strtab_address >= load.p_vaddr && strtab_address - load.p_vaddr < load.p_filesz) {
      strtab = in.read(strtab_address - load.p_vaddr + load.p_offset, strtab_size);
      break;
    }
  }
  if (!strtab) return malformed();

  for (const auto& entry : entries) {
    if (entry.d_tag != DT_NEEDED && entry.d_tag != DT_SONAME && entry.d_tag != DT_RPATH && entry.d_tag != DT_RUNPATH)
      continue;
    if (entry.d_un.d_val >= strtab->size()) return malformed();
    const std::size_t end = strtab->find('\0', entry.d_un.d_val);
    if (end == std::string::npos) return malformed();
    std::string text = strtab->substr(entry.d_un.d_val, end - entry.d_un.d_val);
    switch (entry.d_tag) {
      case DT_NEEDED:
        result.needed.push_back(std::move(text));
        break;
      case DT_SONAME:
        result.soname = std::move(text);
        break;
      case DT_RPATH:
        result.rpath = split_path_list(text);
        break;
      case DT_RUNPATH:
        result.runpath = split_path_list(text);
        break;
    }
  }
  return result;
}

}  // namespace yadokari::launch
