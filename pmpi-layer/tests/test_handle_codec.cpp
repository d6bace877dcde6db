// The spelling of virtual handles in both ABIs: integer handles (MPICH) and pointer handles
// (Open MPI), checked against the real libraries' special values.
#include "objects/handle_codec.hpp"

#include <catch2/catch.hpp>

namespace {
struct opaque;
using PtrHandle = opaque*;
}  // namespace

TEST_CASE("integer handles: virtual ones never look like MPICH's", "[codec]") {
  using yk::codec::encode;
  using yk::codec::is_virtual;
  const int v = encode<int>(1, 5);
  CHECK(is_virtual(v));
  CHECK(yk::codec::index_of(v) == 5u);
  CHECK(v > 0);  // usable as a Fortran INTEGER unchanged
  // MPICH 4.0 values: MPI_COMM_WORLD, MPI_COMM_NULL, MPI_INT, MPI_REQUEST_NULL, a direct comm.
  for (unsigned real : {0x44000000u, 0x04000000u, 0x4c000405u, 0x2c000000u, 0x84000002u, 0xac000001u})
    CHECK_FALSE(is_virtual(static_cast<int>(real)));
  CHECK(is_virtual(encode<int>(12, yk::codec::kMaxIndex)));
  CHECK(yk::codec::index_of(encode<int>(12, yk::codec::kMaxIndex)) == yk::codec::kMaxIndex);
}

TEST_CASE("pointer handles: virtual ones are tagged outside user space", "[codec]") {
  const PtrHandle v = yk::codec::encode<PtrHandle>(3, 1234);
  CHECK(yk::codec::is_virtual(v));
  CHECK(yk::codec::index_of(v) == 1234u);
  int object = 0;
  CHECK_FALSE(yk::codec::is_virtual(reinterpret_cast<PtrHandle>(&object)));
  CHECK_FALSE(yk::codec::is_virtual(static_cast<PtrHandle>(nullptr)));
  CHECK(yk::codec::from_u64<PtrHandle>(yk::codec::to_u64(v)) == v);
}

TEST_CASE("Fortran integers of virtual handles are recognised", "[codec]") {
  CHECK(yk::codec::fortran_is_virtual(yk::codec::kFortranTag + 3));
  CHECK_FALSE(yk::codec::fortran_is_virtual(0));  // MPI_COMM_WORLD
  CHECK_FALSE(yk::codec::fortran_is_virtual(-1));
}
