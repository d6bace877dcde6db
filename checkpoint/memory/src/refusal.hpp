#pragma once
// Why a checkpoint is refused: state the layer cannot carry is named before anything is captured,
// one line per problem (checkpoint/memory/README.md, "Refused, with the reason"). Modules that know
// of such state register a check at load time; the capture runs them all first. No allocation:
// the checks run inside the capture, the text lives in a static buffer.
namespace yadokari::memory {

using RefusalCheck = void (*)();

// At load time (a constructor); at most 32 checks.
void register_refusal_check(RefusalCheck check);

// One problem, as one line (the parts are concatenated). Called by checks and by the capture.
void refusal_add(const char* a, const char* b = "", const char* c = "", const char* d = "");

// Forgets the last refusal (at the start of every checkpoint).
void refusal_begin();

// Runs every registered check. True when no problem was found since refusal_begin().
bool refusal_run_checks();

// The problems of the last refused checkpoint, '\n'-separated, or "".
const char* refusal_text();

}  // namespace yadokari::memory
