#include <catch2/catch.hpp>

#include <filesystem>

#include "runtime/cli/cli_error.hpp"
#include "runtime/cli/flavour_choice.hpp"
#include "runtime/cli/python_mpi_module.hpp"

using namespace yadokari::cli;
using yadokari::launch::MpiFlavour;

TEST_CASE("mpi option values", "[flavour-choice]") {
  CHECK_FALSE(requested_flavour("auto"));
  CHECK(requested_flavour("openmpi") == MpiFlavour::openmpi);
  CHECK(requested_flavour("mpich") == MpiFlavour::mpich);
  CHECK_THROWS_AS(requested_flavour("OpenMPI"), CliError);
}

TEST_CASE("auto takes the detected flavour", "[flavour-choice]") {
  CHECK(choose_flavour(TEST_OPENMPI_C, "app", std::nullopt) == MpiFlavour::openmpi);
  CHECK(choose_flavour(TEST_MPICH_C, "app", MpiFlavour::mpich) == MpiFlavour::mpich);
}

TEST_CASE("an explicit --mpi is trusted only where detection cannot tell", "[flavour-choice]") {
  CHECK(choose_flavour(TEST_NOT_ELF, "script", MpiFlavour::mpich) == MpiFlavour::mpich);
  CHECK(choose_flavour(TEST_PLAIN, "python", MpiFlavour::openmpi) == MpiFlavour::openmpi);
  CHECK_THROWS_WITH(choose_flavour(TEST_OPENMPI_C, "app", MpiFlavour::mpich),
                    "app is linked against openmpi but --mpi mpich was given");
  try {
    choose_flavour(TEST_PLAIN, "app", std::nullopt);
    FAIL("no error");
  } catch (const CliError& e) {
    CHECK(e.exit_code() == exit_code::usage);
  }
}

TEST_CASE("a Python interpreter's MPI is the one its mpi4py module links", "[flavour-choice]") {
  CHECK(is_python_interpreter("/usr/bin/python3"));
  CHECK(is_python_interpreter("python3.11"));
  CHECK_FALSE(is_python_interpreter("/usr/bin/mypython"));
  // Debian's python3-mpi4py is built against Open MPI (ci/ installs it).
  if (!std::filesystem::exists("/usr/lib/python3/dist-packages/mpi4py/__init__.py")) return;
  const PythonMpiModule module = find_python_mpi_module("/usr/bin/python3");
  REQUIRE(module.path);
  CHECK(module.path->filename().string().rfind("MPI.", 0) == 0);
  CHECK(choose_flavour("/usr/bin/python3", "python3", std::nullopt) == MpiFlavour::openmpi);
}
