#include "checkpoint/memory/src/restore_prelude.hpp"

#include <cstdio>

#include "checkpoint/memory/src/app_mappings.hpp"
#include "checkpoint/memory/src/loaded_libraries.hpp"
#include "checkpoint/memory/src/process_state.hpp"

namespace yadokari::memory {
namespace {

MapRecord g_maps[kMaxMappings];  // .bss: the restore's stack is about to be overwritten
ProcessState g_state;
LibTable g_libraries;
bool have_libraries;

bool malformed(const char* what, char* why, std::size_t why_len) {
  std::snprintf(why, why_len, "the image's %s is malformed or could not be read", what);
  return false;
}

}  // namespace

bool read_restore_prelude(AreaSource& src, AreaHeader& h, bool& more, char* why, std::size_t why_len) {
  if (more && h.kind == AreaKind::mappings && h.addr == 0) {
    if (h.len > sizeof g_maps || h.len % sizeof(MapRecord) != 0 || !src.read(g_maps))
      return malformed("mapping table", why, why_len);
    if (!prepare_mappings(g_maps, static_cast<int>(h.len / sizeof(MapRecord)), why, why_len)) return false;
    more = src.next(h);
  }
  if (more && h.kind == AreaKind::process_state) {
    if (h.len != sizeof g_state || !src.read(&g_state))
      return abandon_mappings(), malformed("process state", why, why_len);
    if (!prepare_process_state(&g_state, sizeof g_state, why, why_len)) return abandon_mappings(), false;
    more = src.next(h);
  }
  if (more && h.kind == AreaKind::libraries && h.addr == 0) {
    if (h.len != sizeof g_libraries || !src.read(&g_libraries))
      return abandon_mappings(), malformed("library table", why, why_len);
    have_libraries = true;
    more = src.next(h);
  }
  return true;
}

bool place_restored_libraries(char* why, std::size_t why_len) {
  return !have_libraries || place_libraries(&g_libraries, sizeof g_libraries, why, why_len);
}

}  // namespace yadokari::memory
