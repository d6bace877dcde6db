// A file the application deleted while it keeps it open (a scratch file): a restart reopens files
// by path, and this one has none any more. Refused at the checkpoint, so that no epoch is committed
// that no restart could use (checkpoint/memory/README.md, "Refused, with the reason"); a file
// deleted only after the checkpoint is refused at the restore, before anything changes
// (fd_table.cpp). A Fortran unit's file is named by the unit's own line instead (fortran_units.cpp:
// a scratch unit is such a file).
#include <cstdio>

#include "checkpoint/memory/src/fd_table.hpp"
#include "checkpoint/memory/src/fortran_units.hpp"
#include "checkpoint/memory/src/refusal.hpp"

namespace yadokari::memory {
namespace {

DeletedFile g_deleted[kMaxAppFds];  // .bss: the capture's stack is being saved

void check_deleted() {
  static char line[kFdPathMax + 160];
  const int n = deleted_app_files(g_deleted, kMaxAppFds);
  for (int i = 0; i < n; ++i) {
    if (is_fortran_unit_fd(g_deleted[i].fd)) continue;
    std::snprintf(line, sizeof line,
                  "descriptor %d is the application's file %s, deleted while open, which is not carried",
                  g_deleted[i].fd, g_deleted[i].path);
    refusal_add(line);
  }
}

__attribute__((constructor)) void register_check() { register_refusal_check(check_deleted); }

}  // namespace
}  // namespace yadokari::memory
