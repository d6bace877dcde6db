// Fuzz target: a checkpoint image whose header and record checksums are made to match before it
// is read (docs/formats/image.md). Random bytes almost never carry a valid xxh64, so image_reader.cpp
// mostly exercises the checksum refusals; repairing them here lets the fuzzer reach the header
// fields, the record fields, the run lists and the zstd payloads behind them. Area data checksums
// are left as they are: the data is decoded before its checksum is compared.
#include <xxhash.h>

#include <cstring>
#include <vector>

#include "tests/fuzz/fuzz_target.hpp"
#include "checkpoint/image/format.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "tests/fuzz/scratch_file.hpp"

namespace {
namespace format = yadokari::image::format;

template <class T>
T load(const std::uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof value);  // the format is little-endian, like every host we build for
  return value;
}

void store(std::uint8_t* at, std::uint64_t value) { std::memcpy(at, &value, sizeof value); }

void repair_checksums(std::vector<std::uint8_t>& bytes) {
  if (bytes.size() < format::kPrefixSize) return;
  std::uint8_t* data = bytes.data();
  store(data + format::kPrefixChecksumOffset, XXH64(data, format::kPrefixChecksumOffset, 0));
  const std::uint64_t header_length = load<std::uint32_t>(data + format::kHeaderLengthOffset);
  if (header_length < format::kPrefixSize + 8 || header_length > bytes.size()) return;
  const std::uint64_t header_checksum = XXH64(data, header_length - 8, 0);
  store(data + header_length - 8, header_checksum);
  for (std::uint64_t offset = header_length; bytes.size() - offset >= format::kRecordSize;) {
    std::uint8_t* record = data + offset;
    const bool end = std::memcmp(record + format::kTagOffset, format::kEndTag, 4) == 0;
    if (end) store(record + format::kEndHeaderChecksumOffset, header_checksum);
    store(record + format::kRecordChecksumOffset, XXH64(record, format::kRecordChecksumOffset, 0));
    if (end) return;
    const std::uint64_t stored = load<std::uint64_t>(record + format::kStoredLengthOffset);
    offset += format::kRecordSize;
    if (stored > bytes.size() - offset) return;
    offset += stored;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace image = yadokari::image;
  std::vector<std::uint8_t> bytes(data, data + size);
  repair_checksums(bytes);
  const auto path = yadokari::fuzz::scratch_dir() / "rank-0.img";
  yadokari::fuzz::write_scratch_file(path, bytes.data(), bytes.size());
  try {
    const image::ImageReader reader(path.string());
    reader.verify();
  } catch (const image::ImageError&) {
  }
  return 0;
}
