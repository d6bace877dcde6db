#pragma once
// The application's openlog/setlogmask settings, carried and made again after a restore
// (syslog_state.cpp).
namespace yadokari::memory {

// After the restore, once memory is back: openlog and setlogmask as the application last called them.
void reapply_syslog_settings();

}  // namespace yadokari::memory
