// The spelling of virtual handles in both ABIs: integer handles (MPICH) and pointer handles
// (Open MPI), checked against the real libraries' special values.
#include "pmpi-layer/src/objects/handle_codec.hpp"

#include <catch2/catch.hpp>

namespace {
struct opaque;
using PtrHandle = opaque*;
}  // namespace

TEST_CASE("integer handles: virtual ones never look like MPICH's", "[codec]") {
  using yadokari::shim::codec::encode;
  using yadokari::shim::codec::is_virtual;
  const int v = encode<int>(1, 5);
  CHECK(is_virtual(v));
  CHECK(yadokari::shim::codec::index_of(v) == 5u);
  CHECK(v > 0);  // usable as a Fortran INTEGER unchanged
  // MPICH 4.0 values: MPI_COMM_WORLD, MPI_COMM_NULL, MPI_INT, MPI_REQUEST_NULL, a direct comm.
  for (unsigned real : {0x44000000u, 0x04000000u, 0x4c000405u, 0x2c000000u, 0x84000002u, 0xac000001u})
    CHECK_FALSE(is_virtual(static_cast<int>(real)));
  CHECK(is_virtual(encode<int>(12, yadokari::shim::codec::kMaxIndex)));
  CHECK(yadokari::shim::codec::index_of(encode<int>(12, yadokari::shim::codec::kMaxIndex)) ==
        yadokari::shim::codec::kMaxIndex);
}

TEST_CASE("pointer handles: virtual ones are tagged outside user space", "[codec]") {
  const PtrHandle v = yadokari::shim::codec::encode<PtrHandle>(3, 1234);
  CHECK(yadokari::shim::codec::is_virtual(v));
  CHECK(yadokari::shim::codec::index_of(v) == 1234u);
  int object = 0;
  CHECK_FALSE(yadokari::shim::codec::is_virtual(reinterpret_cast<PtrHandle>(&object)));
  CHECK_FALSE(yadokari::shim::codec::is_virtual(static_cast<PtrHandle>(nullptr)));
  CHECK(yadokari::shim::codec::from_u64<PtrHandle>(yadokari::shim::codec::to_u64(v)) == v);
}

TEST_CASE("Fortran integers of virtual handles are recognised", "[codec]") {
  CHECK(yadokari::shim::codec::fortran_is_virtual(yadokari::shim::codec::kFortranTag + 3));
  CHECK_FALSE(yadokari::shim::codec::fortran_is_virtual(0));  // MPI_COMM_WORLD
  CHECK_FALSE(yadokari::shim::codec::fortran_is_virtual(-1));
}
