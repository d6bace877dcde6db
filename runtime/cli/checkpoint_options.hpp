#pragma once
// The checkpoint options of `yadokari run` / `yadokari restart`: each flag, else its YADOKARI_*
// variable, else the default (runtime/README.md, docs/CONTRACTS.md). Pure: the environment is
// passed in as a lookup.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "runtime/cli/option_source.hpp"
#include "runtime/frontend/checkpoint_settings.hpp"

namespace yadokari::cli {

// As typed on the command line; empty = not given.
struct CheckpointFlags {
  std::string ckpt_dir;          // --ckpt-dir        YADOKARI_CKPT_DIR
  std::string interval;          // --interval        YADOKARI_CKPT_INTERVAL (seconds, float)
  std::string stop_after_epoch;  // --stop-after-epoch YADOKARI_STOP_AFTER_EPOCH
  std::string keep;              // --keep            YADOKARI_KEEP (default 2)
  std::string compress;          // --compress        YADOKARI_CKPT_COMPRESS (zstd level, 0 = off)
  std::string full_every{};      // --full-every      YADOKARI_CKPT_FULL_EVERY (full image every N epochs)
  std::string node_dir{};        // --node-dir        YADOKARI_NODE_DIR (node-local images + replicas)
  std::string image_format{};    // --image-format    YADOKARI_IMAGE_FORMAT (yadokari | dmtcp)
  // --ckpt-dir was on the command line, even with an empty value ("$UNSET_VARIABLE"), which must
  // not mean "no checkpoints": the job would run unprotected.
  bool ckpt_dir_given = false;
};

// Throws CliError(usage) for a --ckpt-dir given empty or named like an option.
void check_ckpt_dir_flag(const CheckpointFlags& flags);

using frontend::CheckpointSettings;

EnvLookup process_environment();

// Throws CliError(usage) for a value that does not parse, or options that need --ckpt-dir.
// (--node-dir also needs node agents: the caller checks that the job has them.)
CheckpointSettings resolve_checkpoint_settings(const CheckpointFlags& flags, const EnvLookup& env);

// Makes sure checkpoints can be written to `dir` (created if missing; its parent must exist) and
// returns its absolute form. Throws CliError(failure) "checkpoint directory D is not writable:
// ...".
std::filesystem::path prepare_checkpoint_dir(const std::filesystem::path& dir);

}  // namespace yadokari::cli
