// MPI_Alloc_mem / MPI_Free_mem. Inside an MPI call allocations go to glibc
// (docs/architecture.md pitfall 7), so the library's block would not be in the image, while the
// application keeps its address: after a restart that address holds whatever the fresh process
// put there. With the memory layer on, the block comes from the application's arena instead (MPI
// allows any memory here; what is lost is the library's pinned memory for RDMA, which a restart
// could not keep).
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/call_scope.hpp"

#include "checkpoint/memory/library_scope.hpp"
#include "checkpoint/memory/memory.h"
#include "pmpi-layer/src/objects/virtual_handles.hpp"

#include <cstdlib>
#include <cstring>

using namespace yadokari::shim;

extern "C" YK_API int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  CallScope scope(Fn::MPI_Alloc_mem);
  if (!yk_mem_enabled()) return PMPI_Alloc_mem(size, to_real<InfoK>(info), baseptr);
  if (size < 0) {
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_SIZE);
    return MPI_ERR_SIZE;
  }
  void* block = nullptr;
  {
    const yadokari::memory::ApplicationCallback as_application;  // the arena, not glibc
    block = std::malloc(size > 0 ? static_cast<std::size_t>(size) : 1);
  }
  if (!block) {
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
  }
  std::memcpy(baseptr, &block, sizeof block);  // baseptr is a void** passed as void*
  return MPI_SUCCESS;
}

extern "C" YK_API int MPI_Free_mem(void* base) {
  CallScope scope(Fn::MPI_Free_mem);
  if (!yk_mem_enabled()) return PMPI_Free_mem(base);
  std::free(base);  // free goes by address: the block goes back to the arena it came from
  return MPI_SUCCESS;
}
