#pragma once
// `yadokari run --ckpt-dir D` on a directory an earlier run left epochs in (a requeued batch job, a
// chained one, the same command typed again): the same program, arguments, MPI and rank count
// continue from its newest usable epoch; anything else is refused with what differs, and nothing
// in D is touched. `--fresh` starts over: the earlier run's epochs and job.json are moved aside into
// D/previous-<this job's id>/ (itself a checkpoint directory `yadokari restart` can use) and deleted
// only once this run has committed an epoch of its own, so no automatic restart of the new run can
// ever pick one of them, and nothing is lost if the new run never commits.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runtime/frontend/job_file.hpp"
#include "runtime/frontend/restart_checks.hpp"

namespace yadokari::frontend {

struct PreviousRun {
  std::optional<RestartChoice> continue_from;        // continue: restore this epoch
  std::optional<std::filesystem::path> moved_aside;  // --fresh: where the earlier run's epochs are now
  std::vector<std::string> lines;                    // for stderr, without "yadokari: "
};

// `dir` is the absolute, existing checkpoint directory, `shown_dir` as the user typed it; `wanted`
// is the job.json this run would write, `app` the resolved program. Throws FrontendError(failure)
// when D holds committed epochs this run cannot continue ("D holds the checkpoints of another run
// (its arguments are '1 2', not '3 4'); ...", "no usable checkpoint in D ...; --fresh starts over").
PreviousRun look_at_previous_run(const std::filesystem::path& dir, const std::string& shown_dir, const JobFile& wanted,
                                 const std::filesystem::path& app, bool fresh);

// Deletes what --fresh moved aside, once `epoch` of the new run is committed, and says so on stderr.
void remove_previous_run(const std::filesystem::path& moved_aside, std::uint64_t epoch);

}  // namespace yadokari::frontend
