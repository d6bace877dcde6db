#include "cli/inspect_command.hpp"

#include <iostream>
#include <optional>

#include "cli/cli_error.hpp"
#include "cli/inspect_format.hpp"
#include "image/image_error.hpp"
#include "image/image_reader.hpp"

namespace yadokari::cli {

int inspect_image(const InspectOptions& options) {
  // Verification happens before anything is printed, so a damaged image gives only the error.
  std::optional<image::ImageReader> reader;
  try {
    reader.emplace(options.image);
    if (options.verify) reader->verify();
  } catch (const image::ImageError& e) {
    throw CliError(exit_code::failure, e.what());  // "IMAGE: checksum mismatch in area 'heap'"
  }
  std::cout << (options.json ? inspect_json(*reader, options.verify).dump(2) + "\n"
                             : inspect_text(*reader, options.verify));
  return 0;
}

}  // namespace yadokari::cli
