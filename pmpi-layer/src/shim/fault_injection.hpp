// Fault injection and test hooks: widen a window a test needs to hit on purpose.
//   YADOKARI_FAULT_SLOW_WRITE=E:MS      every rank sleeps MS milliseconds in the middle of writing
//                                       its image of epoch E (after the memory capture, before the
//                                       image is finished and renamed), so a test can kill a node
//                                       while epoch E is being written.
//   YADOKARI_FAULT_HOLD_FINALIZE=FILE   every rank waits at the entry of MPI_Finalize until FILE
//                                       exists, still taking part in checkpoints, so a job cannot
//                                       end before the epochs and faults a test or the demo waits
//                                       for, however fast the machine (they create FILE when done).
// Unset (always, outside tests): nothing happens.
#pragma once

#include <cstdint>

namespace yk {

void pause_in_image_write(std::uint64_t epoch);

// At MPI_Finalize, before the rank stops taking part in cuts. May checkpoint the process and
// return in a restarted one.
void hold_before_finalize();

}  // namespace yk
