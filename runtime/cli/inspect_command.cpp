#include "runtime/cli/inspect_command.hpp"

#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/inspect_dmtcp_format.hpp"
#include "runtime/cli/inspect_format.hpp"
#include "checkpoint/image/dmtcp_image.hpp"
#include "checkpoint/image/image_chain.hpp"
#include "checkpoint/image/image_error.hpp"
#include "checkpoint/image/image_reader.hpp"

namespace yadokari::cli {
namespace {

namespace fs = std::filesystem;

// An increment's parents are the same file name in the epoch directories next to its own
// (<dir>/<epoch>/rank-<L>.img, checkpoint/README.md). Followed back to the base, or to the first
// link that is not there.
std::vector<ChainLink> chain_of(const image::ImageReader& newest) {
  std::vector<ChainLink> chain;
  if (!newest.header().increment()) return chain;
  chain.push_back({newest.header().epoch, newest.path(), true, newest.file_size()});
  std::optional<image::ParentImage> parent = newest.header().parent;
  const fs::path name = fs::path(newest.path()).filename();
  const fs::path dir = fs::path(newest.path()).parent_path().parent_path();
  while (parent) {
    const std::string path = (dir / std::to_string(parent->epoch) / name).string();
    ChainLink link{parent->epoch, path, false, std::nullopt};
    parent.reset();
    try {
      const image::ImageReader reader(path);
      link.increment = reader.header().increment();
      link.size = reader.file_size();
      parent = reader.header().parent;
    } catch (const image::ImageError&) {
      // Shown as missing; --verify names the error.
    }
    chain.insert(chain.begin(), link);
  }
  return chain;
}

void verify_chain(const std::vector<ChainLink>& chain) {
  std::vector<image::ImageReader> links;
  for (const auto& link : chain) links.emplace_back(link.path);
  image::ImageChain(std::move(links)).verify();
}

// An image DMTCP wrote is read whole (its structure is the only check it offers: no checksums),
// with or without --verify.
int inspect_dmtcp_image(const InspectOptions& options) {
  image::DmtcpImage dmtcp;
  try {
    dmtcp = image::read_dmtcp_image(options.image);
  } catch (const image::ImageError& e) {
    throw CliError(exit_code::failure, e.what());
  }
  std::cout << (options.json ? dmtcp_json(options.image, dmtcp).dump(2) + "\n" : dmtcp_text(options.image, dmtcp));
  return 0;
}

}  // namespace

int inspect_image(const InspectOptions& options) {
  // DMTCP's signature: an image yadokari wrote in DMTCP's layout (yadokari's records follow DMTCP's
  // areas: the listing below), or one DMTCP wrote (gzip-compressed or without those records).
  if (image::is_dmtcp_image(options.image) && !image::holds_yadokari_records(options.image))
    return inspect_dmtcp_image(options);
  // Verification happens before anything is printed, so a damaged image gives only the error.
  std::optional<image::ImageReader> reader;
  std::vector<ChainLink> chain;
  try {
    reader.emplace(options.image);
    chain = chain_of(*reader);
    if (options.verify) reader->verify();
    if (options.verify && !chain.empty()) verify_chain(chain);
  } catch (const image::ImageError& e) {
    throw CliError(exit_code::failure, e.what());  // "IMAGE: checksum mismatch in area 'heap'"
  }
  std::cout << (options.json ? inspect_json(*reader, options.verify, chain).dump(2) + "\n"
                             : inspect_text(*reader, options.verify, chain));
  return 0;
}

}  // namespace yadokari::cli
