#include "runtime/frontend/previous_run.hpp"

#include <cstdio>
#include <system_error>

#include "runtime/frontend/frontend_error.hpp"
#include "checkpoint/storage/epoch_store.hpp"
#include "checkpoint/storage/storage_error.hpp"

namespace yadokari::frontend {
namespace fs = std::filesystem;
namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

std::string epoch_list(const std::vector<std::uint64_t>& epochs) {
  std::string text;
  for (const auto epoch : epochs) text += (text.empty() ? "" : ", ") + std::to_string(epoch);
  return text;
}

// What makes `earlier` another run than `wanted`, or "" when it is the same one.
std::string difference(const JobFile& earlier, const JobFile& wanted) {
  if (earlier.app != wanted.app) return "its program is " + earlier.app + ", not " + wanted.app;
  if (earlier.args != wanted.args)
    return "its arguments are '" + joined(earlier.args) + "', not '" + joined(wanted.args) + "'";
  if (earlier.world_size != wanted.world_size)
    return "it has " + std::to_string(earlier.world_size) + " ranks, not " + std::to_string(wanted.world_size);
  if (earlier.flavour != wanted.flavour) return "its MPI is " + earlier.flavour + ", not " + wanted.flavour;
  return "";
}

void move_into(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::rename(from, to, error);
  if (error)
    throw FrontendError(ErrorKind::failure, "--fresh: cannot move " + from.string() + " to " + to.string() + ": " +
                                                error.message() + " (nothing else was moved or deleted)");
}

PreviousRun start_over(const fs::path& dir, const std::string& shown_dir, const JobFile& wanted,
                       const storage::EpochStore& store) {
  const std::vector<std::uint64_t> epochs = store.all_epochs();
  const bool has_job_file = fs::exists(job_file_path(dir));
  PreviousRun result;
  if (epochs.empty() && !has_job_file) return result;
  // Named after this run, so it cannot collect another --fresh's leftovers.
  const fs::path aside = dir / ("previous-" + wanted.job_id);
  std::error_code error;
  if (!fs::create_directory(aside, error))
    throw FrontendError(ErrorKind::failure,
                        "--fresh: cannot create " + aside.string() + ": " + (error ? error.message() : "it exists"));
  // job.json last: until it moves, D still describes the earlier run it holds epochs of.
  for (const auto epoch : epochs) move_into(store.epoch_dir(epoch), aside / std::to_string(epoch));
  if (has_job_file) move_into(job_file_path(dir), job_file_path(aside));
  const std::vector<std::uint64_t> committed = storage::EpochStore(aside).committed_epochs();
  result.moved_aside = aside;
  result.lines.push_back(
      "--fresh: starting over in " + shown_dir + "; the earlier run's " +
      (committed.empty() ? std::string("uncommitted epochs") : "committed epochs " + epoch_list(committed)) +
      " moved to " + (fs::path(shown_dir) / aside.filename()).string() + ", deleted once this run commits an epoch");
  return result;
}

}  // namespace

PreviousRun look_at_previous_run(const fs::path& dir, const std::string& shown_dir, const JobFile& wanted,
                                 const fs::path& app, bool fresh) {
  const storage::EpochStore store(dir);
  try {
    if (fresh) return start_over(dir, shown_dir, wanted, store);
    const std::vector<std::uint64_t> committed = store.committed_epochs();
    // Nothing committed: nothing to continue and nothing to protect; the run starts from the top.
    if (committed.empty()) return {};
    const std::string keep_hint =
        "; give the same program, arguments and -n to continue it, --fresh to start over "
        "in it, or another --ckpt-dir";
    if (!fs::exists(job_file_path(dir)))
      throw FrontendError(ErrorKind::failure, shown_dir + " holds committed epochs (" + epoch_list(committed) +
                                                  ") but no job.json; --fresh starts over in it, or give another "
                                                  "--ckpt-dir");
    const JobFile earlier = read_job_file(dir);
    if (const std::string differs = difference(earlier, wanted); !differs.empty())
      throw FrontendError(ErrorKind::failure,
                          shown_dir + " holds the checkpoints of another run (" + differs + ")" + keep_hint);
    PreviousRun result;
    try {
      result.continue_from = choose_restart(dir, earlier, app, wanted.world_size);
    } catch (const FrontendError& e) {
      throw FrontendError(e.kind(), std::string(e.what()) + "; --fresh starts over in " + shown_dir);
    }
    const auto manifest = store.read_manifest(result.continue_from->epoch);
    result.lines.push_back("continuing from epoch " + std::to_string(result.continue_from->epoch) + " in " + shown_dir +
                           ", committed " + (manifest ? manifest->commit_time : std::string("?")) + " by job " +
                           (manifest ? manifest->job_id : earlier.job_id) + " (--fresh starts over)");
    for (const auto& note : result.continue_from->notes) result.lines.push_back(note);
    return result;
  } catch (const storage::StorageError& e) {
    throw FrontendError(ErrorKind::failure, e.what());
  }
}

void remove_previous_run(const fs::path& moved_aside, std::uint64_t epoch) {
  std::error_code error;
  fs::remove_all(moved_aside, error);
  if (error)
    std::fprintf(stderr, "yadokari: epoch %llu committed; the earlier run's epochs in %s could not be deleted: %s\n",
                 static_cast<unsigned long long>(epoch), moved_aside.c_str(), error.message().c_str());
  else
    std::fprintf(stderr, "yadokari: epoch %llu committed; deleted the earlier run's epochs (%s)\n",
                 static_cast<unsigned long long>(epoch), moved_aside.c_str());
}

}  // namespace yadokari::frontend
