#pragma once
// The application's changes to its environment across a restart (checkpoint/memory/README.md,
// "Library state the layer carries", getenv). The application's getenv is answered from the copy
// of the environment made at main's start (args_region.hpp), which the image carries: a restarted
// process sees the values of the first run, not those of its own environment. Names the
// application sets, unsets or puts (setenv, unsetenv, putenv; every name after clearenv) are
// answered from the live environment instead, and they are what the capture records: each with
// its value at the checkpoint (or unset). The replay applies them to the fresh process's live
// environment (clearenv first if the application had called it), so both kinds of answer are the
// first run's.
#include <cstddef>
#include <cstdint>

namespace yadokari::memory {

inline constexpr std::uint32_t kMaxEnvNames = 128;
inline constexpr std::size_t kEnvNameMax = 256;
inline constexpr std::size_t kEnvTextMax = 32768;

struct EnvChanges {
  std::uint32_t cleared;   // clearenv was called
  std::uint32_t count;     // entries in `text`
  char text[kEnvTextMax];  // "NAME=value\0" (set at the checkpoint) or "NAME\0" (unset), `count` of them
};

// Capture: the names the application touched, with their values now. False if they do not fit
// (the refusal check says so).
bool capture_env_changes(EnvChanges& out);

// In the restarted process: applied to the live environment; the names become the touched ones.
void replay_env_changes(const EnvChanges& in);

}  // namespace yadokari::memory
