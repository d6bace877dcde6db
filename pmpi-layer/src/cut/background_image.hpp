// Images written in the background (checkpoint/memory/README.md, "Background writing"). Once the
// memory capture has described the process, the rank forks a writer: the writer copies the memory
// from its copy-on-write snapshot into the image while the rank runs on, and a thread of the rank
// reports the writer's result to the coordinator as ImageWritten.
#pragma once

#include "protocol/rank_messages.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace yadokari::image {
struct WrittenImage;
}

namespace yadokari::shim::background_image {

// YADOKARI_CKPT_BACKGROUND: anything but "off" writes images in the background.
bool wanted();

enum class Side { writer, rank, failed };

// At the memory capture's split, in the rank. `writer`: this is the forked writer, which owns the
// image from here; `rank`: the writer runs (its pid is kept); `failed`: `error` says why.
Side fork_writer(std::uint64_t epoch, std::string& error);

// In the writer: how many background images this process wrote before this one.
unsigned earlier_images();

// In the writer: image bytes handed over so far, for `yadokari status`.
void add_progress(std::uint64_t bytes);

// In the writer, at the end: hands the result to the rank and exits. Never returns.
[[noreturn]] void finish_writer(bool ok, const yadokari::image::WrittenImage* written, const std::string& error);

// In the rank, right after the fork: the report to send once the writer is done, with what is
// known at the pause already filled in (drain time, traffic, compute time...). Starts the thread
// that waits for the writer.
void report_when_written(yadokari::protocol::ImageWritten report);

// In the rank: its part of the cut began (GO), and the cut let it run on again (CheckpointRelease
// or Resume; cut_protocol.cpp). The time between is the pause that the report carries, and the
// report waits for it.
void note_go(std::chrono::steady_clock::time_point when);
void rank_released();

// Returns once the report of the last background image was sent (MPI_Finalize calls it: the
// control link must outlive it).
void wait_for_report();

}  // namespace yadokari::shim::background_image
