// A test hook in the image write: widens the window a test needs to hit on purpose.
//   YADOKARI_FAULT_SLOW_WRITE=E:MS   every rank sleeps MS milliseconds in the middle of writing its
//                                    image of epoch E (after the memory capture, before the image
//                                    is finished and renamed), so a test can kill a node while
//                                    epoch E is being written.
// Unset (always, outside tests): nothing happens.
#pragma once

#include <cstdint>

namespace yadokari::shim {

void pause_in_image_write(std::uint64_t epoch);

// Fault injection for tests: YADOKARI_FAULT_KILL_WRITER=R makes the background writer of logical
// rank R's first image in this process kill itself (SIGKILL) before it finishes the image.
void kill_writer_if_asked(int logical_rank, unsigned earlier_images);

}  // namespace yadokari::shim
