#include <catch2/catch.hpp>

#include "runtime/launch/mpi_flavour.hpp"

// Paths of the test programs built by tests/cli/CMakeLists.txt.
#ifndef TEST_PROGRAMS_DEFINED
#error "the test CMake must define the test program paths"
#endif

using namespace yadokari::launch;
using Outcome = FlavourDetection::Outcome;

TEST_CASE("library names map to flavours", "[flavour]") {
  CHECK(flavour_of_library("libmpi.so.40") == MpiFlavour::openmpi);
  CHECK(flavour_of_library("libmpi_mpifh.so.40") == MpiFlavour::openmpi);
  CHECK(flavour_of_library("libmpi_usempif08.so.40") == MpiFlavour::openmpi);
  CHECK(flavour_of_library("libmpi_usempi_ignore_tkr.so.40") == MpiFlavour::openmpi);
  CHECK(flavour_of_library("libmpi_cxx.so.40") == MpiFlavour::openmpi);
  CHECK(flavour_of_library("libmpich.so.12") == MpiFlavour::mpich);
  CHECK(flavour_of_library("libmpichfort.so.12") == MpiFlavour::mpich);
  CHECK(flavour_of_library("libmpifort.so.12") == MpiFlavour::mpich);
  CHECK(flavour_of_library("libmpi.so.12") == MpiFlavour::mpich);  // MPICH ABI (Intel MPI)
  CHECK_FALSE(flavour_of_library("libc.so.6"));
  CHECK_FALSE(flavour_of_library("libmpfr.so.6"));
  CHECK_FALSE(flavour_of_library("libopen-pal.so.40"));
}

TEST_CASE("flavour names parse", "[flavour]") {
  CHECK(parse_flavour("openmpi") == MpiFlavour::openmpi);
  CHECK(parse_flavour("mpich") == MpiFlavour::mpich);
  CHECK_FALSE(parse_flavour("auto"));
  CHECK(flavour_name(MpiFlavour::openmpi) == "openmpi");
  CHECK(flavour_name(MpiFlavour::mpich) == "mpich");
}

TEST_CASE("C programs are detected for each MPI", "[flavour]") {
  const auto ompi = detect_flavour(TEST_OPENMPI_C);
  CHECK(ompi.outcome == Outcome::detected);
  CHECK(ompi.flavour == MpiFlavour::openmpi);
  CHECK(ompi.evidence == "libmpi.so.40");

  const auto mpich = detect_flavour(TEST_MPICH_C);
  CHECK(mpich.outcome == Outcome::detected);
  CHECK(mpich.flavour == MpiFlavour::mpich);
  CHECK(mpich.evidence == "libmpich.so.12");
}

TEST_CASE("Fortran programs are detected for each MPI", "[flavour]") {
  const auto ompi = detect_flavour(TEST_OPENMPI_FORTRAN);
  CHECK(ompi.outcome == Outcome::detected);
  CHECK(ompi.flavour == MpiFlavour::openmpi);

  const auto mpich = detect_flavour(TEST_MPICH_FORTRAN);
  CHECK(mpich.outcome == Outcome::detected);
  CHECK(mpich.flavour == MpiFlavour::mpich);
}

TEST_CASE("MPI needed only by a library the program links is found", "[flavour]") {
  const auto detected = detect_flavour(TEST_USES_DEPENDENCY);
  CHECK(detected.outcome == Outcome::detected);
  CHECK(detected.flavour == MpiFlavour::mpich);
  CHECK(detected.evidence == "libmpich.so.12 (needed by libcli_test_mpi_dependency.so)");
}

TEST_CASE("a Fortran binding library leads to its MPI", "[flavour]") {
  // libmpi_mpifh needs libmpi: detection by name must not depend on looking inside it.
  const auto detected = detect_flavour("/usr/lib/x86_64-linux-gnu/libmpichfort.so.12");
  CHECK(detected.outcome == Outcome::detected);
  CHECK(detected.flavour == MpiFlavour::mpich);
}

TEST_CASE("non-MPI, non-ELF and missing files are told apart", "[flavour]") {
  CHECK(detect_flavour(TEST_PLAIN).outcome == Outcome::not_mpi);
  const auto script = detect_flavour(TEST_NOT_ELF);
  CHECK(script.outcome == Outcome::not_elf);
  CHECK(script.evidence == std::string(TEST_NOT_ELF) + " is not an ELF file");
  CHECK(detect_flavour("/nonexistent/program").outcome == Outcome::not_found);
}
