#include "checkpoint/storage/manifest.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string_view>

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

// A JSON string: the escapes nlohmann writes for ASCII; text with other bytes goes through
// nlohmann, which also refuses invalid UTF-8 (a type_error, as before this writer).
void append_json_string(std::string& out, const std::string& text) {
  if (std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
    out += nlohmann::json(text).dump();
    return;
  }
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// The shortest text that reads back as the same double (std::to_chars), with ".0" on a whole
// number as nlohmann writes it; null for what JSON cannot hold, as nlohmann does.
void append_json_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char text[64];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  const std::string_view written(text, static_cast<std::size_t>(end - text));
  out += written;
  if (written.find_first_of(".eE") == std::string_view::npos) out += ".0";
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
  // Written by hand, in the layout nlohmann's dump(2) gives (keys sorted, two spaces): a MANIFEST
  // of 16,384 images took 80-220 ms through a json object, which the front end pays at every
  // commit (bench/scale); appending takes a few ms. manifest_from_json_text reads it back.
  std::string out;
  out.reserve(256 + manifest.images.size() * 260);
  out += "{\n  \"commit_time\": ";
  append_json_string(out, manifest.commit_time);
  out += ",\n  \"cut_seconds\": ";
  append_json_double(out, manifest.cut_seconds);
  out += ",\n  \"epoch\": " + std::to_string(manifest.epoch);
  out += ",\n  \"flavour\": ";
  append_json_string(out, manifest.flavour);
  out += ",\n  \"format\": " + std::to_string(kManifestFormat);
  out += ",\n  \"images\": [";
  bool first = true;
  for (const auto& image : manifest.images) {
    out += first ? "\n    {" : ",\n    {";
    first = false;
    out += "\n      \"drain_seconds\": ";
    append_json_double(out, image.drain_seconds);
    out += ",\n      \"file\": ";
    append_json_string(out, image.file);
    if (!image.layout.empty()) {  // DMTCP's layout only
      out += ",\n      \"layout\": ";
      append_json_string(out, image.layout);
    }
    if (!image.nodes.empty()) {  // node-local storage only
      out += ",\n      \"nodes\": [";
      for (std::size_t n = 0; n < image.nodes.size(); ++n) {
        out += n ? ",\n        " : "\n        ";
        append_json_string(out, image.nodes[n]);
      }
      out += "\n      ]";
    }
    if (image.parent_epoch != 0)  // increments only
      out += ",\n      \"parent_epoch\": " + std::to_string(image.parent_epoch);
    out += ",\n      \"pause_seconds\": ";
    append_json_double(out, image.pause_seconds);
    out += ",\n      \"rank\": " + std::to_string(image.rank);
    out += ",\n      \"size\": " + std::to_string(image.size);
    out += ",\n      \"write_seconds\": ";
    append_json_double(out, image.write_seconds);
    out += ",\n      \"xxh64\": \"" + image::hex64(image.xxh64) + "\"\n    }";
  }
  out += manifest.images.empty() ? "]" : "\n  ]";
  out += ",\n  \"job_id\": ";
  append_json_string(out, manifest.job_id);
  out += ",\n  \"world_size\": " + std::to_string(manifest.world_size) + "\n}\n";
  return out;
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
