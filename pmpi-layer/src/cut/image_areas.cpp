#include "cut/image_areas.hpp"

#include "cut/background_image.hpp"
#include "image/area_kind.hpp"

#include <optional>
#include <span>

namespace yk {
namespace {

namespace mem = yadokari::memory;
namespace img = yadokari::image;

img::AreaKind to_image(mem::AreaKind k) {
  switch (k) {
    case mem::AreaKind::meta:
      return img::AreaKind::registers;
    case mem::AreaKind::args:
      return img::AreaKind::environment;
    case mem::AreaKind::carried:
      return img::AreaKind::other;
    case mem::AreaKind::exe_data:
      return img::AreaKind::data_bss;
    case mem::AreaKind::exe_tls:
      return img::AreaKind::tls;
    case mem::AreaKind::arena:
      return img::AreaKind::heap_arena;
    case mem::AreaKind::stack:
      return img::AreaKind::stack;
    case mem::AreaKind::fds:
      return img::AreaKind::fd_table;
    case mem::AreaKind::fortran_units:
      return img::AreaKind::library_state;
    case mem::AreaKind::mappings:
      return img::AreaKind::mappings;
    case mem::AreaKind::process_state:
      return img::AreaKind::process_state;
    case mem::AreaKind::libraries:
      return img::AreaKind::libraries;
    case mem::AreaKind::library_tls:
      return img::AreaKind::library_tls;
  }
  return img::AreaKind::other;
}

// The memory layer's areas, by image kind; the shim's blobs (mpi_records...) are not memory.
std::optional<mem::AreaKind> to_memory(img::AreaKind k) {
  switch (k) {
    case img::AreaKind::registers:
      return mem::AreaKind::meta;
    case img::AreaKind::environment:
      return mem::AreaKind::args;
    case img::AreaKind::other:
      return mem::AreaKind::carried;
    case img::AreaKind::data_bss:
      return mem::AreaKind::exe_data;
    case img::AreaKind::tls:
      return mem::AreaKind::exe_tls;
    case img::AreaKind::heap_arena:
      return mem::AreaKind::arena;
    case img::AreaKind::stack:
      return mem::AreaKind::stack;
    case img::AreaKind::fd_table:
      return mem::AreaKind::fds;
    case img::AreaKind::library_state:
      return mem::AreaKind::fortran_units;
    case img::AreaKind::mappings:
      return mem::AreaKind::mappings;
    case img::AreaKind::process_state:
      return mem::AreaKind::process_state;
    case img::AreaKind::libraries:
      return mem::AreaKind::libraries;
    case img::AreaKind::library_tls:
      return mem::AreaKind::library_tls;
    default:
      return std::nullopt;
  }
}

}  // namespace

bool ImageAreaSink::area(mem::AreaKind kind, std::uint64_t addr, std::uint64_t len, std::uint32_t prot,
                         const char* name, const void* data) {
  try {
    writer_.add_area({to_image(kind), name, addr, prot}, data, static_cast<std::size_t>(len));
    if (side_ == Side::writer) background_image::add_progress(len);
    return true;
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
}

ImageAreaSink::Split ImageAreaSink::split() {
  if (background_epoch_ == 0) return Split::here;
  switch (background_image::fork_writer(background_epoch_, error_)) {
    case background_image::Side::writer:
      side_ = Side::writer;
      return Split::here;
    case background_image::Side::rank:
      side_ = Side::rank;
      writer_.hand_over();  // the writer process finishes the image; this one must not touch it
      return Split::parent;
    case background_image::Side::failed:
      break;
  }
  return Split::failed;
}

bool ImageAreaSource::next(mem::AreaHeader& header) {
  const auto& areas = reader_.areas();
  while (next_ < areas.size()) {
    const img::AreaRecord& a = areas[next_++];
    const auto kind = to_memory(a.kind);
    if (!kind) continue;
    current_ = next_ - 1;
    header.kind = *kind;
    header.addr = a.address;
    header.len = a.length;
    header.prot = a.protection;
    return true;
  }
  return false;
}

bool ImageAreaSource::read(void* dst) {
  try {
    const img::AreaRecord& a = reader_.areas()[current_];
    reader_.read_area(current_, std::span<std::byte>(static_cast<std::byte*>(dst), a.length));
    return true;
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
}

}  // namespace yk
