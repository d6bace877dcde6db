// Fuzz target: a checkpoint image file (image::ImageReader: the header, every area record, then
// every area's data, docs/formats/image.md).
#include "tests/fuzz/fuzz_target.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "tests/fuzz/scratch_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace image = yadokari::image;
  const auto path = yadokari::fuzz::scratch_dir() / "rank-0.img";
  yadokari::fuzz::write_scratch_file(path, data, size);
  try {
    const image::ImageReader reader(path.string());
    reader.verify();
  } catch (const image::ImageError&) {
  }
  return 0;
}
