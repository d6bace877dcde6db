#include "checkpoint/image/area_kind.hpp"

namespace yadokari::image {

std::string to_string(AreaKind kind) {
  switch (kind) {
    case AreaKind::data_bss:
      return "data-bss";
    case AreaKind::heap_arena:
      return "heap-arena";
    case AreaKind::stack:
      return "stack";
    case AreaKind::tls:
      return "tls";
    case AreaKind::registers:
      return "registers";
    case AreaKind::mpi_records:
      return "mpi-records";
    case AreaKind::drained_messages:
      return "drained-messages";
    case AreaKind::fd_table:
      return "fd-table";
    case AreaKind::environment:
      return "environment";
    case AreaKind::other:
      return "other";
    case AreaKind::library_state:
      return "library-state";
    case AreaKind::mappings:
      return "mappings";
    case AreaKind::process_state:
      return "process-state";
    case AreaKind::libraries:
      return "libraries";
    case AreaKind::library_tls:
      return "library-tls";
  }
  return "kind-" + std::to_string(static_cast<unsigned>(kind));
}

std::string protection_string(std::uint32_t protection) {
  std::string text = "---";
  if (protection & kProtRead) text[0] = 'r';
  if (protection & kProtWrite) text[1] = 'w';
  if (protection & kProtExec) text[2] = 'x';
  return text;
}

}  // namespace yadokari::image
