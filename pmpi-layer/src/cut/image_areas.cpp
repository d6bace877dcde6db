#include "pmpi-layer/src/cut/image_areas.hpp"

#include "pmpi-layer/src/cut/background_image.hpp"
#include "checkpoint/image/area_kind.hpp"
#include "checkpoint/image/delta_area.hpp"

#include <optional>
#include <span>

namespace yadokari::shim {
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

bool ImageAreaSink::write_delta(img::AreaInfo info, const void* data, std::uint64_t len) {
  const std::uint64_t parent_length = plan_.parent_length(info.kind, info.name, info.address);
  // Without a list (the tracking failed at this capture) every page counts as written: the
  // increment is as large as a full image, but right.
  const std::vector<mem::WrittenRange> all{{info.address, info.address + len}};
  const auto runs = img::pages_touching(info.address, len, pages_listed_ ? written_ : all);
  writer_.add_delta_area(info, data, static_cast<std::size_t>(len), runs, parent_length);
  return true;
}

bool ImageAreaSink::area(mem::AreaKind kind, std::uint64_t addr, std::uint64_t len, std::uint32_t prot,
                         const char* name, const void* data) {
  try {
    if (plan_.parent && mem::tracks_written_pages(kind, addr, len))
      write_delta({to_image(kind), name, addr, prot}, data, len);
    else
      writer_.add_area({to_image(kind), name, addr, prot}, data, static_cast<std::size_t>(len));
    if (side_ == Side::writer) background_image::add_progress(len);
    return true;
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
}

// In the rank, before the writer forks: the tracking belongs to this process.
void ImageAreaSink::collect_written_pages() {
  if (epoch_ == 0 || incremental_image::full_every() <= 1) return;
  std::string why;
  switch (mem::collect_written_pages(written_, why)) {
    case mem::WrittenPages::listed:
      pages_listed_ = true;
      incremental_image::collected(epoch_, plan_.parent.has_value());
      break;
    case mem::WrittenPages::baseline:
      incremental_image::collected(epoch_, plan_.parent.has_value());
      break;
    case mem::WrittenPages::unavailable:
      incremental_image::tracking_unavailable(why);
      break;
  }
}

ImageAreaSink::Split ImageAreaSink::split() {
  collect_written_pages();
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
  const auto& areas = chain_.newest().areas();
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
    const img::AreaRecord& a = chain_.newest().areas()[current_];
    chain_.read_area(current_, std::span<std::byte>(static_cast<std::byte*>(dst), a.length));
    return true;
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
}

}  // namespace yadokari::shim
