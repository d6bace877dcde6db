#include "runtime/frontend/shim_locator.hpp"

#include <cstdlib>
#include <string>

#include "runtime/frontend/frontend_error.hpp"
#include "common/parameters.hpp"

namespace yadokari::frontend {
namespace fs = std::filesystem;

fs::path locate_shim(launch::MpiFlavour flavour) {
  const std::string file_name = "libyadokari-" + std::string(launch::flavour_name(flavour)) + ".so";
  fs::path dir;
  if (const char* override_dir = std::getenv(yadokari::parameters::kShimDir); override_dir && *override_dir) {
    dir = override_dir;
  } else {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw FrontendError(ErrorKind::failure, "cannot find my own executable: " + ec.message());
    // The build tree has bin/ and lib/; an install may use a multiarch libdir
    // (lib/x86_64-linux-gnu under /usr), recorded at configure time.
    const fs::path prefix = self.parent_path().parent_path();
    dir = prefix / "lib";
    std::error_code exists_ec;
    if (!fs::is_regular_file(dir / file_name, exists_ec) &&
        fs::is_regular_file(prefix / YADOKARI_INSTALL_LIBDIR / file_name, exists_ec))
      dir = prefix / YADOKARI_INSTALL_LIBDIR;
  }
  // Absolute: the ranks' working directory may differ from ours.
  const fs::path shim = fs::absolute(dir / file_name).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(shim, ec))
    throw FrontendError(ErrorKind::failure,
                        "shim not found: " + shim.string() + " (set YADOKARI_SHIM_DIR to its directory)");
  return shim;
}

}  // namespace yadokari::frontend
