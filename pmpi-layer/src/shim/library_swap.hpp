// A swap of the MPI library in a running process (library_swap.cpp; docs/flows/migrate.md, "Live
// moves: the kept ranks swap their MPI library"), for the composition root (lifecycle.cpp).
#pragma once

namespace yadokari::shim {

// Makes the cut call the swap when a live move keeps this rank (cut_protocol.hpp, MoveSwapper).
void install_move_swapper();

}  // namespace yadokari::shim
