#include "runtime/cli/inspect_dmtcp_format.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <vector>

#include "checkpoint/image/area_kind.hpp"
#include "runtime/cli/inspect_format.hpp"

namespace yadokari::cli {
namespace {

// As /proc/PID/maps writes it: "r-xp".
std::string protection_text(const image::DmtcpArea& area) {
  return image::protection_string(static_cast<std::uint32_t>(area.prot)) + ((area.flags & MAP_SHARED) ? "s" : "p");
}

std::string kind_text(const image::DmtcpArea& area) {
  if (area.parent()) return "anon, runs follow";
  if (area.child()) return area.zero() ? "zero run" : "data run";
  if (area.zero()) return "zero";
  return (area.flags & MAP_ANONYMOUS) ? "anon" : "file";
}

std::string address_text(std::uint64_t address) { return fmt::format("{:#018x}", address); }

}  // namespace

std::string dmtcp_text(const std::string& path, const image::DmtcpImage& image) {
  const auto& process = image.process;
  std::string out;
  out += fmt::format("image     {}\n", shown(path));
  out += fmt::format("format    {}{}, {} bytes uncompressed\n", shown(process.signature), image.gzip ? ", gzip" : "",
                     image.image_bytes);
  out += fmt::format("process   {} (pid {}, parent {}), {}\n", shown(process.program), process.pid, process.ppid,
                     shown(process.executable));
  out += fmt::format("peers     {} process(es) in the checkpointed computation\n", process.peers);
  std::uint64_t mapped = 0;
  std::uint64_t stored = 0;
  std::size_t mappings = 0;
  for (const auto& area : image.areas) {
    if (!area.child()) {
      mapped += area.size;
      ++mappings;
    }
    stored += area.stored_bytes;
  }
  out += fmt::format("areas     {} mappings ({} records), {} bytes in memory, {} bytes stored\n", mappings,
                     image.areas.size(), mapped, stored);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "start", "end", "prot", "kind", "stored", "name"});
  for (std::size_t i = 0; i < image.areas.size(); ++i) {
    const auto& area = image.areas[i];
    rows.push_back({std::to_string(i), address_text(area.start), address_text(area.end), protection_text(area),
                    kind_text(area), std::to_string(area.stored_bytes), shown(area.name)});
  }
  out += aligned_table(rows, {true, false, false, false, false, true, false});
  return out;
}

nlohmann::json dmtcp_json(const std::string& path, const image::DmtcpImage& image) {
  nlohmann::json areas = nlohmann::json::array();
  for (const auto& area : image.areas)
    areas.push_back({{"start", fmt::format("{:#x}", area.start)},
                     {"end", fmt::format("{:#x}", area.end)},
                     {"size", area.size},
                     {"offset", area.offset},
                     {"protection", protection_text(area)},
                     {"kind", kind_text(area)},
                     {"properties", area.properties},
                     {"name", area.name},
                     {"stored_bytes", area.stored_bytes}});
  return {{"path", path},
          {"format", "dmtcp"},
          {"signature", image.process.signature},
          {"gzip", image.gzip},
          {"image_bytes", image.image_bytes},
          {"program", image.process.program},
          {"executable", image.process.executable},
          {"pid", image.process.pid},
          {"ppid", image.process.ppid},
          {"peers", image.process.peers},
          {"areas", areas}};
}

}  // namespace yadokari::cli
