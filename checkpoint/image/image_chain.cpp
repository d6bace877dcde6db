#include "checkpoint/image/image_chain.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "checkpoint/image/file_hash.hpp"
#include "checkpoint/image/image_error.hpp"

namespace yadokari::image {
namespace {

ImageError broken(const ImageReader& link, const std::string& what) {
  return ImageError(ImageErrorKind::corrupt, link.path(), "broken chain: " + what);
}

std::string epoch_text(const ImageReader& link) { return "epoch " + std::to_string(link.header().epoch); }

}  // namespace

ImageChain::ImageChain(std::vector<ImageReader> links) : links_(std::move(links)) {
  if (links_.empty()) throw ImageError(ImageErrorKind::usage, "", "an image chain needs at least one image");
  if (links_.front().header().increment())
    throw broken(links_.front(), "it is an increment of epoch " +
                                     std::to_string(links_.front().header().parent->epoch) +
                                     ", whose image is not in the chain");
  for (std::size_t i = 1; i < links_.size(); ++i) check_link(i);
}

void ImageChain::check_link(std::size_t i) const {
  const ImageReader& link = links_[i];
  const ImageReader& before = links_[i - 1];
  const auto& header = link.header();
  const auto& previous = before.header();
  if (!header.increment()) throw broken(link, "it is a full image, not an increment of " + epoch_text(before));
  if (header.parent->epoch != previous.epoch || header.parent->header_checksum != before.header_checksum())
    throw broken(link, "it is an increment of epoch " + std::to_string(header.parent->epoch) + " (header " +
                           hex64(header.parent->header_checksum) + "), not of " + before.path() + " (" +
                           epoch_text(before) + ", header " + hex64(before.header_checksum()) + ")");
  if (header.job_id != previous.job_id || header.rank != previous.rank || header.world_size != previous.world_size ||
      header.flavour != previous.flavour || header.binaries != previous.binaries)
    throw broken(link, "its job, rank, world size, MPI flavour or binaries differ from " + before.path());
  for (const auto& area : link.areas()) {
    if (!area.delta()) continue;
    const auto parent_length = link.delta_header(area.index).parent_length;
    if (parent_length == 0) continue;
    const long parent = parent_area(i - 1, area);
    if (parent < 0)
      throw broken(link, "area '" + area.name + "' is a delta against an area that " + epoch_text(before) +
                             "'s image does not have");
    if (before.areas()[parent].length != parent_length)
      throw broken(link, "area '" + area.name + "' is a delta against " + std::to_string(parent_length) +
                             " bytes, but " + epoch_text(before) + "'s area has " +
                             std::to_string(before.areas()[parent].length));
  }
}

long ImageChain::parent_area(std::size_t link, const AreaRecord& area) const {
  for (const auto& candidate : links_[link].areas())
    if (candidate.kind == area.kind && candidate.name == area.name && candidate.address == area.address)
      return static_cast<long>(candidate.index);
  return -1;
}

void ImageChain::verify() const {
  for (const auto& link : links_) link.verify();
}

void ImageChain::read_area(std::size_t index, std::span<std::byte> out) const {
  const ImageReader& newest = links_.back();
  const AreaRecord& wanted = newest.areas().at(index);
  if (out.size() != wanted.length)
    throw ImageError(ImageErrorKind::usage, newest.path(),
                     "area '" + wanted.name + "' has " + std::to_string(wanted.length) + " bytes, not " +
                         std::to_string(out.size()));
  // Back from the newest link to the area's last full copy (or a delta taken against nothing).
  std::vector<std::pair<std::size_t, std::size_t>> steps;  // (link, area index), newest first
  std::size_t link = links_.size() - 1;
  std::size_t area = index;
  for (;;) {
    steps.emplace_back(link, area);
    const AreaRecord& record = links_[link].areas()[area];
    if (!record.delta() || links_[link].delta_header(area).parent_length == 0) break;
    const long parent = parent_area(link - 1, record);  // found: the constructor checked it
    area = static_cast<std::size_t>(parent);
    --link;
  }
  std::reverse(steps.begin(), steps.end());

  std::uint64_t expected = 0;
  for (const auto& [at, which] : steps) {
    const ImageReader& reader = links_[at];
    const AreaRecord& record = reader.areas()[which];
    if (record.delta()) {
      expected = reader.apply_delta(which, out);
    } else if (record.length == out.size()) {
      reader.read_area(which, out);
    } else {
      const auto contents = reader.read_area(which);
      std::memcpy(out.data(), contents.data(), std::min(contents.size(), out.size()));
    }
  }
  if (wanted.delta() && XXH64(out.data(), out.size(), 0) != expected)
    throw ImageError(ImageErrorKind::checksum_mismatch, newest.path(),
                     "checksum mismatch in area '" + wanted.name + "' restored from the chain of " +
                         std::to_string(links_.size()) + " images");
}

std::vector<std::byte> ImageChain::read_area(std::size_t index) const {
  std::vector<std::byte> data(links_.back().areas().at(index).length);
  read_area(index, data);
  return data;
}

ImageChain open_image_chain(const std::string& newest) {
  namespace fs = std::filesystem;
  const fs::path epochs = fs::path(newest).parent_path().parent_path();
  const std::string name = fs::path(newest).filename().string();
  std::vector<std::string> paths{newest};  // newest first
  for (;;) {
    const ImageReader child(paths.back());
    if (!child.header().increment()) break;
    const std::uint64_t parent = child.header().parent->epoch;
    const std::string link = "it is an increment of epoch " + std::to_string(parent);
    if (parent >= child.header().epoch) throw broken(child, link + ", which is not older");
    const std::string parent_path = (epochs / std::to_string(parent) / name).string();
    std::error_code error;
    if (!fs::exists(parent_path, error)) throw broken(child, link + ", but " + parent_path + " is missing");
    paths.push_back(parent_path);
  }
  std::vector<ImageReader> links;
  links.reserve(paths.size());
  for (auto at = paths.rbegin(); at != paths.rend(); ++at) links.emplace_back(*at);
  return ImageChain(std::move(links));
}

}  // namespace yadokari::image
