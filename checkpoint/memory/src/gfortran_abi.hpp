#pragma once
// The parts of libgfortran.so.5's ABI the layer uses to carry the application's Fortran units and
// RANDOM_NUMBER state (fortran_units.hpp). Compiled Fortran code fills these parameter blocks and
// passes them to _gfortran_st_open/_gfortran_st_close; which fields are present is said by bits in
// `common.flags`, so a field is read only when its bit is set. Layout and bits as in GCC 12's
// libgfortran/io/io.h and gcc/fortran/ioparm.def (libgfortran.so.5, GCC 8 and later: string
// lengths are size_t); checked against gfortran 12's -fdump-tree-original.
#include <cstddef>
#include <cstdint>

namespace yadokari::memory::gfortran {

using charlen = std::size_t;

struct CommonParams {  // st_parameter_common
  std::int32_t flags;
  std::int32_t unit;
  const char* filename;  // source file of the statement
  std::int32_t line;
  charlen iomsg_len;
  char* iomsg;
  std::int32_t* iostat;
};

// common.flags: how the statement ended, and which common fields are present.
inline constexpr std::int32_t kLibReturnMask = 3;  // 0 = ok, 1 = error, 2 = end, 3 = eor
inline constexpr std::int32_t kLibReturnEnd = 2;
inline constexpr std::int32_t kHasEnd = 1 << 3;  // END= given: the end of file is not an error
inline constexpr std::int32_t kHasIostat = 1 << 5;
inline constexpr std::int32_t kHasIomsg = 1 << 6;

struct OpenParams {  // st_parameter_open
  CommonParams common;
  std::int32_t recl_in;
  charlen file_len;
  const char* file;
  const char* status;
  charlen status_len;
  charlen access_len;
  const char* access;
  const char* form;
  charlen form_len;
  charlen blank_len;
  const char* blank;
  const char* position;
  charlen position_len;
  charlen action_len;
  const char* action;
  const char* delim;
  charlen delim_len;
  charlen pad_len;
  const char* pad;
  const char* convert;
  charlen convert_len;
  charlen decimal_len;
  const char* decimal;
  const char* encoding;
  charlen encoding_len;
  charlen round_len;
  const char* round;
  const char* sign;
  charlen sign_len;
  charlen asynchronous_len;
  const char* asynchronous;
  std::int32_t* newunit;
  std::int32_t readonly;
  charlen cc_len;
  const char* cc;
  const char* share;
  charlen share_len;
};

// common.flags of an OPEN: one bit per specifier present.
inline constexpr std::int32_t kOpenRecl = 1 << 7;
inline constexpr std::int32_t kOpenFile = 1 << 8;
inline constexpr std::int32_t kOpenStatus = 1 << 9;
inline constexpr std::int32_t kOpenAccess = 1 << 10;
inline constexpr std::int32_t kOpenForm = 1 << 11;
inline constexpr std::int32_t kOpenBlank = 1 << 12;
inline constexpr std::int32_t kOpenPosition = 1 << 13;
inline constexpr std::int32_t kOpenAction = 1 << 14;
inline constexpr std::int32_t kOpenDelim = 1 << 15;
inline constexpr std::int32_t kOpenPad = 1 << 16;
inline constexpr std::int32_t kOpenConvert = 1 << 17;
inline constexpr std::int32_t kOpenDecimal = 1 << 18;
inline constexpr std::int32_t kOpenEncoding = 1 << 19;
inline constexpr std::int32_t kOpenRound = 1 << 20;
inline constexpr std::int32_t kOpenSign = 1 << 21;
inline constexpr std::int32_t kOpenAsynchronous = 1 << 22;
inline constexpr std::int32_t kOpenNewunit = 1 << 23;
inline constexpr std::int32_t kOpenReadonly = 1 << 24;
inline constexpr std::int32_t kOpenCc = 1 << 25;
inline constexpr std::int32_t kOpenShare = 1 << 26;

struct CloseParams {  // st_parameter_close
  CommonParams common;
  const char* status;
  charlen status_len;
};
inline constexpr std::int32_t kCloseStatus = 1 << 7;

// READ/WRITE (st_parameter_dt) starts with the common block; which other fields libgfortran reads is
// said by bits in common.flags, and it reserves private space after them (about 540 bytes in all
// in GCC 12). A statement with none of those bits (list-directed, no items) needs only the common
// block: the rest is zeroed space of this size. BACKSPACE, REWIND and ENDFILE (st_parameter_filepos)
// start with it too.
inline constexpr std::size_t kTransferParamsBytes = 2048;
inline constexpr std::int32_t kDtListFormat = 1 << 7;
inline constexpr std::int32_t kDtInternalUnit = 1 << 14;

// INQUIRE (st_parameter_inquire) up to NEXTREC=; libgfortran reads later fields only when their
// bits are set, so the rest is zeroed space of kTransferParamsBytes in all.
struct InquireHead {
  CommonParams common;
  std::int32_t *exist, *opened, *number, *named;
  std::int64_t* nextrec;  // GFC_IO_INT
};
inline constexpr std::int32_t kInquireNextrec = 1 << 11;
inline constexpr std::int32_t kInquireFile = 1 << 14;  // by FILE=, not by unit

// A rank-1 array descriptor (GCC 8 and later), as RANDOM_SEED's PUT= and GET= take it.
struct ArrayI4 {
  std::int32_t* base_addr;
  std::size_t offset;
  std::size_t elem_len;  // dtype
  std::int32_t version;
  signed char rank;
  signed char type;
  std::int16_t attribute;
  std::ptrdiff_t span;
  std::ptrdiff_t stride, lower_bound, upper_bound;  // dim[0]
};
inline constexpr signed char kTypeInteger = 1;

// libgfortran's functions the unit table calls (gfortran_entry_points.hpp resolves them).
struct Functions {
  void (*st_open)(OpenParams*);
  void (*st_close)(CloseParams*);
  void (*flush)(int*);                             // _gfortran_flush_i4: FLUSH(unit)
  int (*fnum)(int*);                               // _gfortran_fnum_i4: the unit's descriptor, -1 if none
  void (*ftell)(int*, std::int64_t*);              // _gfortran_ftell_i8_sub
  void (*fseek)(int*, std::int64_t*, int*, int*);  // _gfortran_fseek_sub(unit, offset, whence, status)
  void (*random_seed)(int*, ArrayI4*, ArrayI4*);   // _gfortran_random_seed_i4(size, put, get)
  void (*st_read)(CommonParams*);                  // a READ statement: start (of st_parameter_dt)
  void (*st_read_done)(CommonParams*);             // and end
  void (*st_inquire)(InquireHead*);                // _gfortran_st_inquire (by unit)
};

}  // namespace yadokari::memory::gfortran
