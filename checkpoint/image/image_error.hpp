#pragma once
// The one exception the image library throws. what() is "<file>: <detail>"; detail() is the
// part without the file, for callers that name the file their own way ("epoch 3: rank-1.img: ...").
#include <stdexcept>
#include <string>

#include "common/error.hpp"

namespace yadokari::image {

enum class ImageErrorKind {
  not_an_image,         // bad magic
  unsupported_version,  // a format version this build cannot read
  truncated,            // the file ends early (detail says where)
  checksum_mismatch,    // header, a record or an area's data does not match its checksum
  corrupt,              // checksums fine but the structure is inconsistent
  io,                   // a system call failed (detail carries the errno text)
  usage,                // the caller broke the API's rules (e.g. area name too long)
};

class ImageError : public yadokari::Error {
 public:
  ImageError(ImageErrorKind kind, const std::string& file, const std::string& detail);

  ImageErrorKind kind() const { return kind_; }
  const std::string& file() const { return file_; }
  const std::string& detail() const { return detail_; }

 private:
  ImageErrorKind kind_;
  std::string file_;
  std::string detail_;
};

// "I/O error while <doing>: <strerror(errno)>" for the given errno value.
ImageError io_error(const std::string& file, const std::string& doing, int error_number);

}  // namespace yadokari::image
