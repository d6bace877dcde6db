#pragma once
// The OpenMP runtime's settings across a restart: libgomp is a library, so its state is the
// fresh process's after a restart. The settings the application can change (number of threads,
// dynamic adjustment, schedule, active levels) are saved at every checkpoint and set again right
// after the restore; a checkpoint inside a parallel region is refused.

namespace yadokari::memory {

// In the restarted process, on the application thread right after the restore: sets the saved
// settings again (nothing when libgomp is not loaded).
void reapply_openmp_settings();

}  // namespace yadokari::memory
