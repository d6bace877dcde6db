#pragma once
// A rank's image as a chain: a full image (the base) and the increments taken after it, each
// against the one before. Reads an area of the newest image by putting the base's contents in
// place and applying every increment's changed pages in order, then checks the result against
// the hash the newest increment recorded for the whole area.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "checkpoint/image/image_reader.hpp"

namespace yadokari::image {

class ImageChain {
 public:
  // `links`: the base first, then each increment in order (one link: a full image alone). Checks
  // every link against the one before, without reading area data: the header names the previous
  // image (epoch and header checksum) and the same job, rank, world size, MPI flavour and
  // binaries; every delta area's parent area (same kind, name and address) exists with the length
  // the delta was taken against. Throws ImageError (corrupt, "broken chain: ...") naming the link
  // that fails, in its file.
  explicit ImageChain(std::vector<ImageReader> links);

  const std::vector<ImageReader>& links() const { return links_; }
  const ImageReader& newest() const { return links_.back(); }

  // Every link's verify(): every checksum of every link, so a damaged link is named.
  void verify() const;

  // Area `index` of the newest image, whole, into `out` (exactly its length). Throws
  // ImageError(checksum_mismatch) when a link's data is damaged or the applied chain does not
  // give the contents the newest increment hashed.
  void read_area(std::size_t index, std::span<std::byte> out) const;
  std::vector<std::byte> read_area(std::size_t index) const;

 private:
  // The area of link `link` that a delta area of link `link + 1` was taken against, or -1.
  long parent_area(std::size_t link, const AreaRecord& area) const;
  void check_link(std::size_t link) const;

  std::vector<ImageReader> links_;
};

// The chain that ends with the image at `newest`: when it is an increment, its parent is the file
// of the same name in the sibling directory named after the parent's epoch (the checkpoint
// directory's layout, `<dir>/<epoch>/rank-<L>.img`), and so on back to a full image. Throws
// ImageError (corrupt, "broken chain: ...", in the file of the link that names it) when a parent
// is missing or not older; the links are then checked as the constructor above does.
ImageChain open_image_chain(const std::string& newest);

}  // namespace yadokari::image
