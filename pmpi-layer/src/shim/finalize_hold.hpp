// A test and demo hook at MPI_Finalize:
//   YADOKARI_FAULT_HOLD_FINALIZE=FILE   every rank waits at the entry of MPI_Finalize until FILE
//                                       exists, still taking part in checkpoints, so a job cannot
//                                       end before the epochs and faults a test or the demo waits
//                                       for, however fast the machine (they create FILE when done).
// Unset (always, outside tests): nothing happens.
#pragma once

namespace yadokari::shim {

// At MPI_Finalize, before the rank stops taking part in cuts. May checkpoint the process and
// return in a restarted one.
void hold_before_finalize();

}  // namespace yadokari::shim
