#pragma once
// The application's Fortran state that lives inside libgfortran, which a restart makes fresh
// (docs/architecture.md, pitfall 10): the units it connected with OPEN and the RANDOM_NUMBER
// generator. OPEN/CLOSE are interposed and recorded; the capture saves, per connected unit, its
// file, the OPEN specifiers that shape its records, its position (FTELL), whether it is after its
// end of file and a direct-access unit's next record, plus the generator's
// state (RANDOM_SEED GET=) if the application used it; the restore reconnects each unit with
// libgfortran's own OPEN (STATUS='OLD', never truncating) onto the same descriptor, seeks it, and
// puts the generator's state back. Units that cannot be carried refuse the checkpoint.
#include <cstddef>
#include <cstdint>

#include "checkpoint/memory/src/fd_table.hpp"

namespace yadokari::memory {

inline constexpr int kMaxFortranUnits = 64;
inline constexpr int kFortranSpecLen = 16;

// The OPEN specifiers carried, in this order (changeable modes are carried as last set by OPEN).
enum FortranSpec : int {
  kSpecAccess,
  kSpecForm,
  kSpecAction,
  kSpecBlank,
  kSpecDelim,
  kSpecPad,
  kSpecConvert,
  kSpecDecimal,
  kSpecEncoding,
  kSpecRound,
  kSpecSign,
  kSpecAsynchronous,
  kSpecCc,  // CC= and SHARE= (-fdec): CC='FORTRAN' changes the bytes a WRITE puts in the file
  kSpecShare,
  kFortranSpecCount
};

// One connected unit, as stored in the fortran_units area.
struct FortranUnitRecord {
  std::int32_t unit;      // NEWUNIT numbers are negative
  std::int32_t fd;        // its descriptor at the checkpoint (FNUM)
  std::uint32_t specs;    // bit i: spec[i] was given
  std::int32_t recl;      // RECL=, 0 if not given
  std::uint32_t newunit;  // connected with NEWUNIT=
  std::uint32_t regular;  // a regular file (else a character device: reconnected, not positioned)
  // A READ hit the end of file (or ENDFILE ran) and nothing repositioned the unit since: it is
  // after its endfile record, where BACKSPACE goes back to the end of the data, not before the last
  // record. Put back by a READ that hits the end again.
  std::uint32_t after_endfile;
  std::uint32_t readonly;  // READONLY (-fdec)
  std::int64_t position;   // FTELL at the checkpoint (after the flush)
  std::int64_t size;       // the file's size at the checkpoint
  // A direct-access unit's INQUIRE(NEXTREC=) at the checkpoint (0: not direct access). After the
  // restore, INQUIRE answers it until the unit's next transfer.
  std::int64_t next_record;
  char spec[kFortranSpecCount][kFortranSpecLen];  // lower case, NUL-terminated
  char path[kFdPathMax];                          // absolute
};

inline constexpr char kFortranMagic[8] = {'Y', 'K', 'F', 'O', 'R', 'T', '4', 0};

struct FortranState {
  char magic[8];
  std::uint32_t size;         // sizeof(FortranState): the layout check
  std::uint32_t unit_count;   // units[0..unit_count) are stored
  std::uint32_t random_used;  // the application called RANDOM_NUMBER/RANDOM_SEED/RANDOM_INIT
  std::int32_t seed_size;     // RANDOM_SEED(SIZE=)
  std::int32_t seed[32];      // RANDOM_SEED(GET=) of the application thread
  FortranUnitRecord units[kMaxFortranUnits];
};

// How many bytes of `s` the fortran_units area holds (the header and unit_count records).
inline std::size_t fortran_state_bytes(const FortranState& s) {
  return offsetof(FortranState, units) + sizeof(FortranUnitRecord) * s.unit_count;
}

// libgfortran's FLUSH of all units skips NEWUNIT (negative) numbers: those are flushed here, one
// by one, when the capture flushes all output.
void flush_fortran_units();

// Whether `fd` is the descriptor of a unit the application connected with OPEN: the unit's own
// refusal line names what is wrong with it (a scratch unit, a deleted file), not deleted_files.cpp's.
bool is_fortran_unit_fd(int fd);

// Capture (after the Fortran units were flushed): fills `out`; false if there is nothing to
// carry (no unit connected, the generator unused).
bool capture_fortran(FortranState& out);

// Restore, before any memory is modified: checks every unit's file, then closes the units the
// fresh process connected itself (code before the restore point ran again), reconnects the
// image's units and puts the generator's state back. False with a one-line reason if the image's
// units cannot be reconnected (checked before anything is changed).
bool restore_fortran(const FortranState& state, std::size_t len, char* why, std::size_t why_len);

}  // namespace yadokari::memory
