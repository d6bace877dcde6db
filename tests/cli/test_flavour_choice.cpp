#include <catch2/catch.hpp>

#include "cli/cli_error.hpp"
#include "cli/flavour_choice.hpp"

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
