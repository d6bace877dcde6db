#include "runtime/cli/inspect_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "checkpoint/image/binary_identity.hpp"
#include "checkpoint/image/file_hash.hpp"

namespace yadokari::cli {
namespace {

std::string utc_time(std::int64_t unix_ns) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string address_text(std::uint64_t address) { return address == 0 ? "-" : fmt::format("{:#018x}", address); }

// An area of an image in DMTCP's layout is stored raw in the DMTCP part.
std::string compression_text(const image::AreaRecord& area) {
  if (area.in_dmtcp_part()) return "dmtcp part";
  if (area.shuffled()) return "zstd, shuffled";
  return area.compressed() ? "zstd" : "none";
}

std::uint64_t stored_pages(const image::ImageReader& image, const image::AreaRecord& area) {
  std::uint64_t pages = 0;
  for (const auto& run : image.delta_header(area.index).runs) pages += run.count;
  return pages;
}

// A delta area stores the pages changed since the parent image instead of eliding zero pages.
std::string zero_pages_text(const image::ImageReader& image, const image::AreaRecord& area) {
  if (area.delta()) return fmt::format("delta {}/{}", stored_pages(image, area), area.pages());
  return fmt::format("{}/{}", area.zero_pages, area.pages());
}

std::string chain_text(const std::vector<ChainLink>& chain) {
  std::string out = fmt::format("chain     {} images, base epoch {}\n", chain.size(), chain.front().epoch);
  for (const auto& link : chain)
    out += fmt::format("  epoch {:<6} {:<9} {:>12}  {}\n", link.epoch, link.increment ? "increment" : "full",
                       link.size ? std::to_string(*link.size) + " bytes" : "missing", shown(link.path));
  return out;
}

}  // namespace

std::string shown(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

std::string aligned_table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned) {
  // Column widths fit the longest cell, so the table stays aligned for any image.
  std::vector<std::size_t> widths(right_aligned.size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < widths.size(); ++i)
      line +=
          right_aligned[i] ? fmt::format("  {:>{}}", row[i], widths[i]) : fmt::format("  {:<{}}", row[i], widths[i]);
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

std::string inspect_text(const image::ImageReader& image, const bool verified, const std::vector<ChainLink>& chain) {
  const auto& header = image.header();
  std::string out;
  out += fmt::format("image     {}\n", shown(image.path()));
  if (image.layout() == image::ImageLayout::dmtcp)
    out += fmt::format("format    version {} in DMTCP's layout (DMTCP_CHECKPOINT_IMAGE_v4.0), {} bytes\n",
                       header.version, image.file_size());
  else
    out += fmt::format("format    version {}, {} bytes\n", header.version, image.file_size());
  out += fmt::format("job       {}\n", shown(header.job_id));
  out += fmt::format("rank      {} of {}\n", header.rank, header.world_size);
  out += fmt::format("epoch     {}\n", header.epoch);
  out += fmt::format("flavour   {}\n", shown(header.flavour));
  out += fmt::format("created   {}\n", utc_time(header.created_unix_ns));
  if (header.parent)
    out += fmt::format("parent    epoch {} (header {}): an increment\n", header.parent->epoch,
                       image::hex64(header.parent->header_checksum));
  out += fmt::format("binaries  {}\n", header.binaries.size());
  std::size_t path_width = 0;
  std::size_t identity_width = 0;
  for (const auto& binary : header.binaries) {
    path_width = std::max(path_width, shown(binary.path).size());
    identity_width = std::max(identity_width, image::describe_identity(binary).size());
  }
  for (const auto& binary : header.binaries)
    out += fmt::format("  {:<{}}  {:<{}}  {} bytes\n", shown(binary.path), path_width, image::describe_identity(binary),
                       identity_width, binary.size);

  std::uint64_t in_memory = 0;
  std::uint64_t stored = 0;
  for (const auto& area : image.areas()) {
    in_memory += area.length;
    stored += area.stored_length;
  }
  out += fmt::format("areas     {}, {} bytes in memory, {} bytes stored\n", image.areas().size(), in_memory, stored);

  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "address", "length", "prot", "kind", "name", "stored", "compression", "zero pages", "checksum"});
  for (const auto& area : image.areas())
    rows.push_back({std::to_string(area.index), address_text(area.address), std::to_string(area.length),
                    image::protection_string(area.protection), image::to_string(area.kind), shown(area.name),
                    std::to_string(area.stored_length), compression_text(area), zero_pages_text(image, area),
                    image::hex64(area.checksum)});
  out += aligned_table(rows, {true, false, true, false, false, false, true, false, true, false});
  if (!chain.empty()) out += chain_text(chain);
  if (verified) out += fmt::format("verified  all {} area checksums match\n", image.areas().size());
  if (verified && !chain.empty()) out += fmt::format("verified  every image of the chain, and its links\n");
  return out;
}

nlohmann::json inspect_json(const image::ImageReader& image, const bool verified, const std::vector<ChainLink>& chain) {
  const auto& header = image.header();
  nlohmann::json binaries = nlohmann::json::array();
  for (const auto& binary : header.binaries)
    binaries.push_back({{"path", binary.path},
                        {"identity", binary.kind == image::IdentityKind::build_id ? "build-id" : "xxh64"},
                        {"id", image::hex_bytes(binary.id)},
                        {"size", binary.size}});
  nlohmann::json areas = nlohmann::json::array();
  for (const auto& area : image.areas()) {
    areas.push_back({{"index", area.index},
                     {"address", fmt::format("{:#x}", area.address)},
                     {"length", area.length},
                     {"protection", image::protection_string(area.protection)},
                     {"kind", image::to_string(area.kind)},
                     {"name", area.name},
                     {"stored_length", area.stored_length},
                     {"compression", compression_text(area)},
                     {"pages", area.pages()},
                     {"zero_pages", area.zero_pages},
                     {"delta", area.delta()},
                     {"checksum", image::hex64(area.checksum)}});
    if (area.delta()) areas.back()["delta_pages"] = stored_pages(image, area);
  }
  nlohmann::json json = {{"path", image.path()},
                         {"format_version", header.version},
                         {"file_size", image.file_size()},
                         {"job_id", header.job_id},
                         {"rank", header.rank},
                         {"world_size", header.world_size},
                         {"epoch", header.epoch},
                         {"flavour", header.flavour},
                         {"created", utc_time(header.created_unix_ns)},
                         {"created_unix_ns", header.created_unix_ns},
                         {"binaries", binaries},
                         {"areas", areas}};
  if (image.layout() == image::ImageLayout::dmtcp) json["layout"] = "dmtcp";
  if (header.parent)
    json["parent"] = {{"epoch", header.parent->epoch},
                      {"header_checksum", image::hex64(header.parent->header_checksum)}};
  if (!chain.empty()) {
    nlohmann::json links = nlohmann::json::array();
    for (const auto& link : chain)
      links.push_back({{"epoch", link.epoch},
                       {"kind", link.increment ? "increment" : "full"},
                       {"path", link.path},
                       {"size", link.size ? nlohmann::json(*link.size) : nlohmann::json(nullptr)}});
    json["chain"] = links;
  }
  if (verified) json["verified"] = true;
  return json;
}

}  // namespace yadokari::cli
