// The control link's hooks for the composition root (shim/lifecycle.cpp), which alone calls them.
#pragma once

namespace yadokari::shim::link {

void on_init();      // after MPI_Init: registers with the front end; no-op without YADOKARI_CONTROL
bool up();           // registered (a front end to report to and a coordinator to agree with)
void on_finalize();  // in MPI_Finalize: closes the link

}  // namespace yadokari::shim::link
