#include "checkpoint/image/image_error.hpp"

#include <cstring>

namespace yadokari::image {

ImageError::ImageError(ImageErrorKind kind, const std::string& file, const std::string& detail)
    : yadokari::Error(file + ": " + detail), kind_(kind), file_(file), detail_(detail) {}

ImageError io_error(const std::string& file, const std::string& doing, int error_number) {
  return ImageError(ImageErrorKind::io, file, "I/O error while " + doing + ": " + std::strerror(error_number));
}

}  // namespace yadokari::image
