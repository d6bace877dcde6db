// The rank's link to the front end (runtime/control): registration and status answers.
#pragma once

namespace yk {

void start_control_link();  // after MPI_Init; no-op without YADOKARI_CONTROL
void stop_control_link();   // in MPI_Finalize

}  // namespace yk
