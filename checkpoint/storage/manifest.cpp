#include "checkpoint/storage/manifest.hpp"

#include <nlohmann/json.hpp>

#include <ctime>
#include <limits>
#include <stdexcept>

#include "common/json_whole.hpp"
#include "checkpoint/image/file_hash.hpp"
#include "checkpoint/storage/storage_error.hpp"

namespace yadokari::storage {
namespace {

// The MANIFEST layout version, independent of the image format version.
constexpr int kManifestFormat = 1;

std::uint64_t parse_hex64(const std::string& text) {
  if (text.size() != 16 || text.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw std::invalid_argument("xxh64 must be 16 lower-case hex digits, not '" + text + "'");
  return std::stoull(text, nullptr, 16);
}

// A whole number of type T, or an error naming the field: nlohmann's get<uint32_t>() would turn
// -1 or 2^40 silently into another number (a world size of 0, a rank that looks valid).
template <class T>
T whole(const nlohmann::json& object, const char* field) {
  const nlohmann::json& value = object.at(field);
  const bool fits = value.is_number_unsigned() ? value.get<std::uint64_t>() <= std::numeric_limits<T>::max()
                    : value.is_number_integer()
                        ? value.get<std::int64_t>() >= 0 &&
                              static_cast<std::uint64_t>(value.get<std::int64_t>()) <= std::numeric_limits<T>::max()
                        : false;
  if (!fits)
    throw std::invalid_argument(std::string(field) + " must be a whole number from 0 to " +
                                std::to_string(std::numeric_limits<T>::max()) + ", not " + value.dump());
  return static_cast<T>(value.get<std::uint64_t>());
}

}  // namespace

ManifestImage manifest_image(std::uint32_t rank, const image::WrittenImage& written) {
  ManifestImage entry;
  entry.rank = rank;
  entry.file = std::filesystem::path(written.path).filename().string();
  entry.size = written.size;
  entry.xxh64 = written.xxh64;
  entry.parent_epoch = written.parent_epoch;
  if (written.layout == image::ImageLayout::dmtcp) entry.layout = image::to_string(written.layout);
  return entry;
}

std::string to_json_text(const Manifest& manifest) {
  nlohmann::json images = nlohmann::json::array();
  for (const auto& image : manifest.images) {
    nlohmann::json entry = {
        {"rank", image.rank}, {"file", image.file}, {"size", image.size}, {"xxh64", image::hex64(image.xxh64)}};
    if (!image.nodes.empty()) entry["nodes"] = image.nodes;  // node-local storage only
    entry["drain_seconds"] = image.drain_seconds;
    entry["write_seconds"] = image.write_seconds;
    if (image.parent_epoch != 0) entry["parent_epoch"] = image.parent_epoch;  // increments only
    entry["pause_seconds"] = image.pause_seconds;
    if (!image.layout.empty()) entry["layout"] = image.layout;  // DMTCP's layout only
    images.push_back(std::move(entry));
  }
  const nlohmann::json json = {{"format", kManifestFormat},           {"epoch", manifest.epoch},
                               {"job_id", manifest.job_id},           {"world_size", manifest.world_size},
                               {"flavour", manifest.flavour},         {"commit_time", manifest.commit_time},
                               {"cut_seconds", manifest.cut_seconds}, {"images", images}};
  return json.dump(2) + "\n";
}

Manifest manifest_from_json_text(const std::string& text, const std::string& origin) {
  try {
    const auto json = nlohmann::json::parse(text);
    if (json_whole<int>(json, "format") != kManifestFormat)
      throw std::invalid_argument("unsupported MANIFEST format " + json.at("format").dump());
    Manifest manifest;
    manifest.epoch = whole<std::uint64_t>(json, "epoch");
    manifest.job_id = json.at("job_id").get<std::string>();
    manifest.world_size = whole<std::uint32_t>(json, "world_size");
    manifest.flavour = json.at("flavour").get<std::string>();
    manifest.commit_time = json.at("commit_time").get<std::string>();
    manifest.cut_seconds = json.value("cut_seconds", 0.0);
    for (const auto& image : json.at("images")) {
      ManifestImage entry;
      entry.rank = whole<std::uint32_t>(image, "rank");
      entry.file = image.at("file").get<std::string>();
      entry.size = whole<std::uint64_t>(image, "size");
      entry.xxh64 = parse_hex64(image.at("xxh64").get<std::string>());
      entry.nodes = image.value("nodes", std::vector<std::string>{});
      entry.drain_seconds = image.value("drain_seconds", 0.0);
      entry.write_seconds = image.value("write_seconds", 0.0);
      if (image.contains("parent_epoch")) entry.parent_epoch = whole<std::uint64_t>(image, "parent_epoch");
      entry.pause_seconds = image.value("pause_seconds", 0.0);
      entry.layout = image.value("layout", std::string{});
      manifest.images.push_back(std::move(entry));
    }
    return manifest;
  } catch (const std::exception& e) {
    throw StorageError(origin + ": unreadable: " + e.what());
  }
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace yadokari::storage
