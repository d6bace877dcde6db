// The application's Fortran units and RANDOM_NUMBER state across a restart: see fortran_units.hpp.
#include "checkpoint/memory/src/fortran_units.hpp"
#include "checkpoint/memory/src/spin_lock.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/memory/src/deferred_truncation.hpp"
#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/gfortran_abi.hpp"
#include "checkpoint/memory/src/gfortran_entry_points.hpp"
#include "checkpoint/memory/src/process.hpp"
#include "checkpoint/memory/src/refusal.hpp"
#include "checkpoint/memory/src/routing.hpp"
#include "common/export.hpp"

namespace yadokari::memory {
namespace {

namespace gf = gfortran;

// What this process's application connected with OPEN (in this library's .bss: library state).
struct Slot {
  bool used = false;
  bool newunit = false;
  bool scratch = false;
  bool after_endfile = false;  // FortranUnitRecord::after_endfile
  bool readonly = false;
  // A restored direct-access unit's NEXTREC until its next transfer (libgfortran's fresh unit
  // would say 1): what INQUIRE answers meanwhile. 0: libgfortran's answer stands.
  std::int64_t carried_next_record = 0;
  std::int32_t unit = 0;
  std::uint32_t specs = 0;
  std::int32_t recl = 0;
  char spec[kFortranSpecCount][kFortranSpecLen] = {};
  dev_t dev = 0;
  ino_t ino = 0;
};

Slot g_slots[kMaxFortranUnits];
bool g_slots_full;
// Units the application read or wrote without having OPENed them (preconnected, or connected
// implicitly by a READ/WRITE on an unconnected unit: that one is refused).
constexpr int kMaxSeen = 64;
std::int32_t g_seen[kMaxSeen];
int g_seen_count;
bool g_seen_full;
bool g_random_used;
// A thread other than the main one (an OpenMP thread) used the generator: libgfortran keeps its
// stream in that thread's TLS, which no capture reads, and a restarted pool thread would start a
// new stream from the master state: refused (README, "RANDOM_NUMBER").
std::atomic<bool> g_random_used_off_main;
constexpr std::int32_t kSeedMax = sizeof FortranState::seed / sizeof FortranState::seed[0];
SpinLock g_lock;

struct Locked : SpinGuard {
  Locked() : SpinGuard(g_lock) {}
};

Slot* find(std::int32_t unit) {
  for (Slot& s : g_slots)
    if (s.used && s.unit == unit) return &s;
  return nullptr;
}

Slot* free_slot() {
  for (Slot& s : g_slots)
    if (!s.used) return &s;
  return nullptr;
}

// A Fortran string specifier: blank-padded, any case. Stored trimmed, lower case.
void copy_spec(char* dst, const char* src, gf::charlen len) {
  while (len > 0 && src[len - 1] == ' ') --len;
  if (len > kFortranSpecLen - 1) len = kFortranSpecLen - 1;
  for (gf::charlen i = 0; i < len; ++i) {
    char c = src[i];
    dst[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  }
  dst[len] = '\0';
}

struct SpecField {
  std::int32_t bit;
  const char* gf::OpenParams::*text;
  gf::charlen gf::OpenParams::*len;
};
constexpr SpecField kSpecFields[kFortranSpecCount] = {
    {gf::kOpenAccess, &gf::OpenParams::access, &gf::OpenParams::access_len},
    {gf::kOpenForm, &gf::OpenParams::form, &gf::OpenParams::form_len},
    {gf::kOpenAction, &gf::OpenParams::action, &gf::OpenParams::action_len},
    {gf::kOpenBlank, &gf::OpenParams::blank, &gf::OpenParams::blank_len},
    {gf::kOpenDelim, &gf::OpenParams::delim, &gf::OpenParams::delim_len},
    {gf::kOpenPad, &gf::OpenParams::pad, &gf::OpenParams::pad_len},
    {gf::kOpenConvert, &gf::OpenParams::convert, &gf::OpenParams::convert_len},
    {gf::kOpenDecimal, &gf::OpenParams::decimal, &gf::OpenParams::decimal_len},
    {gf::kOpenEncoding, &gf::OpenParams::encoding, &gf::OpenParams::encoding_len},
    {gf::kOpenRound, &gf::OpenParams::round, &gf::OpenParams::round_len},
    {gf::kOpenSign, &gf::OpenParams::sign, &gf::OpenParams::sign_len},
    {gf::kOpenAsynchronous, &gf::OpenParams::asynchronous, &gf::OpenParams::asynchronous_len},
    {gf::kOpenCc, &gf::OpenParams::cc, &gf::OpenParams::cc_len},
    {gf::kOpenShare, &gf::OpenParams::share, &gf::OpenParams::share_len},
};

bool file_id(std::int32_t unit, struct stat& st) {
  int fd = gf::functions().fnum(&unit);
  return fd >= 0 && fstat(fd, &st) == 0;
}

// After a successful OPEN in application context.
void record_open(const gf::OpenParams& p) {
  const std::int32_t flags = p.common.flags;
  std::int32_t unit = (flags & gf::kOpenNewunit) && p.newunit ? *p.newunit : p.common.unit;
  struct stat st {};
  if (!file_id(unit, st)) return;
  Locked l;
  Slot* s = find(unit);
  // OPEN of a connected unit either changes its modes (same file) or connects another file.
  if (s && (s->dev != st.st_dev || s->ino != st.st_ino)) s->used = false, s = nullptr;
  if (!s) {
    s = free_slot();
    if (!s) {
      g_slots_full = true;
      return;
    }
    *s = Slot{};
    s->used = true;
    s->unit = unit;
    s->newunit = (flags & gf::kOpenNewunit) != 0;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
  }
  for (int i = 0; i < kFortranSpecCount; ++i) {
    const SpecField& f = kSpecFields[i];
    if (!(flags & f.bit) || !(p.*f.text)) continue;
    copy_spec(s->spec[i], p.*f.text, p.*f.len);
    s->specs |= 1u << i;
  }
  if (flags & gf::kOpenRecl) s->recl = p.recl_in;
  if (flags & gf::kOpenReadonly) s->readonly = p.readonly != 0;
  if ((flags & gf::kOpenStatus) && p.status) {
    char status[kFortranSpecLen];
    copy_spec(status, p.status, p.status_len);
    s->scratch = std::strcmp(status, "scratch") == 0;
  }
}

void note_transfer(std::int32_t unit) {
  Locked l;
  if (Slot* s = find(unit)) {
    s->carried_next_record = 0;  // a transfer gives libgfortran its own record number again
    return;
  }
  for (int i = 0; i < g_seen_count; ++i)
    if (g_seen[i] == unit) return;
  if (g_seen_count == kMaxSeen) {
    g_seen_full = true;
    return;
  }
  g_seen[g_seen_count++] = unit;
}

bool unit_path(std::int32_t unit, char* out, int* fd_out = nullptr) {
  int fd = gf::functions().fnum(&unit);
  if (fd_out) *fd_out = fd;
  if (fd < 0) return false;
  char link[40];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, out, kFdPathMax - 1);
  if (n <= 0) return false;
  out[n] = '\0';
  return true;
}

bool is_direct(const FortranUnitRecord& r) {
  return (r.specs & (1u << kSpecAccess)) && std::strcmp(r.spec[kSpecAccess], "direct") == 0;
}

// INQUIRE (unit, NEXTREC=) through libgfortran's own function; 0 if it fails.
std::int64_t next_record(std::int32_t unit) {
  alignas(16) unsigned char parameters[gf::kTransferParamsBytes] = {};
  auto* p = reinterpret_cast<gf::InquireHead*>(parameters);
  std::int32_t iostat = 0;
  std::int64_t next = 0;
  p->common.flags = gf::kHasIostat | gf::kInquireNextrec;
  p->common.unit = unit;
  p->common.filename = "yadokari checkpoint";
  p->common.iostat = &iostat;
  p->nextrec = &next;
  gf::functions().st_inquire(p);
  return iostat == 0 ? next : 0;
}

bool deleted(const char* path) {
  constexpr char kDeleted[] = " (deleted)";
  std::size_t len = std::strlen(path);
  return len >= sizeof kDeleted - 1 && std::strcmp(path + len - (sizeof kDeleted - 1), kDeleted) == 0;
}

}  // namespace

bool is_fortran_unit_fd(int fd) {
  if (!gf::functions().fnum || fd < 0) return false;
  Locked l;
  for (const Slot& s : g_slots) {
    std::int32_t unit = s.unit;
    if (s.used && gf::functions().fnum(&unit) == fd) return true;
  }
  return false;
}

namespace {

// The refusal check: state the restore could not bring back.
void check_fortran() {
  if (!gf::functions().fnum) return;  // libgfortran not loaded
  char n[24], path[kFdPathMax];
  Locked l;
  if (g_slots_full) refusal_add("more than 64 Fortran units were connected with OPEN, which is not carried");
  if (g_seen_full) refusal_add("more than 64 Fortran units were used without OPEN, which is not carried");
  for (const Slot& s : g_slots) {
    if (!s.used) continue;
    format_u64(n, static_cast<unsigned long long>(s.unit < 0 ? -s.unit : s.unit));
    const char* unit = s.unit < 0 ? "unit -" : "unit ";
    int fd = -1;
    if (!unit_path(s.unit, path, &fd)) {
      if (fd >= 0) refusal_add(unit, n, "'s file cannot be found in /proc/self/fd, which is not carried");
      continue;  // not connected any more: dropped at the capture
    }
    struct stat st {};
    if (s.scratch) {
      refusal_add(unit, n, " is a scratch file, which is not carried");
    } else if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)) || path[0] != '/') {
      refusal_add(unit, n, " is connected to ", path);
      refusal_add("  (not a regular file or a character device), which is not carried");
    } else if (deleted(path)) {
      refusal_add(unit, n, " is connected to a deleted file, which is not carried: ", path);
    }
  }
  for (int i = 0; i < g_seen_count; ++i) {
    int fd = -1;
    if (find(g_seen[i]) || !unit_path(g_seen[i], path, &fd) || fd <= 2) continue;
    format_u64(n, static_cast<unsigned long long>(g_seen[i] < 0 ? -g_seen[i] : g_seen[i]));
    refusal_add(g_seen[i] < 0 ? "unit -" : "unit ", n, " was connected without OPEN, which is not carried: ", path);
  }
  if (g_random_used_off_main.load(std::memory_order_relaxed))
    refusal_add(
        "RANDOM_NUMBER was used on a thread other than the main one (an OpenMP thread), whose generator "
        "is not carried");
  if (g_random_used) {
    std::int32_t size = 0;
    if (gf::functions().random_seed) gf::functions().random_seed(&size, nullptr, nullptr);
    if (size <= 0 || size > kSeedMax)
      refusal_add("the Fortran RANDOM_NUMBER state cannot be read (RANDOM_SEED size ",
                  format_u64(n, static_cast<unsigned long long>(size)), "), which is not carried");
  }
}

gf::ArrayI4 seed_array(std::int32_t* data, std::int32_t n) {
  gf::ArrayI4 a{};
  a.base_addr = data;
  a.elem_len = sizeof(std::int32_t);
  a.rank = 1;
  a.type = gf::kTypeInteger;
  a.span = sizeof(std::int32_t);
  a.stride = 1;
  a.lower_bound = 1;
  a.upper_bound = n;
  a.offset = static_cast<std::size_t>(-1);  // -lower_bound*stride, as gfortran sets it
  return a;
}

__attribute__((constructor(102))) void register_check() { register_refusal_check(check_fortran); }

// ---- restore ---------------------------------------------------------------------------------

struct Reconnect {
  char* why;
  std::size_t why_len;
  char msg[256];

  bool fail_unit(const char* what, std::int32_t unit, const char* detail) {
    std::snprintf(why, why_len, "%s Fortran unit %d: %s", what, unit, detail);
    return false;
  }

  // libgfortran's OPEN with the record's specifiers, STATUS='OLD' (or a scratch filler).
  bool open(const FortranUnitRecord* r, std::int32_t unit, bool newunit, std::int32_t* got) {
    gf::OpenParams p{};
    std::int32_t iostat = 0;
    std::memset(msg, 0, sizeof msg);
    p.common.flags = gf::kHasIostat | gf::kHasIomsg | gf::kOpenStatus;
    p.common.unit = unit;
    p.common.filename = "yadokari restore";
    p.common.iostat = &iostat;
    p.common.iomsg = msg;
    p.common.iomsg_len = sizeof msg - 1;
    if (newunit) {
      p.common.flags |= gf::kOpenNewunit;
      p.newunit = got;
    }
    if (!r) {
      p.status = "scratch";
      p.status_len = 7;
    } else {
      p.status = "old";
      p.status_len = 3;
      p.common.flags |= gf::kOpenFile;
      p.file = r->path;
      p.file_len = std::strlen(r->path);
      for (int i = 0; i < kFortranSpecCount; ++i) {
        if (!(r->specs & (1u << i))) continue;
        p.common.flags |= kSpecFields[i].bit;
        p.*kSpecFields[i].text = r->spec[i];
        p.*kSpecFields[i].len = std::strlen(r->spec[i]);
      }
      if (r->recl) {
        p.common.flags |= gf::kOpenRecl;
        p.recl_in = r->recl;
      }
      if (r->readonly) {
        p.common.flags |= gf::kOpenReadonly;
        p.readonly = 1;
      }
    }
    {
      // The unit's descriptor goes exactly where the image had it (reopen_fds put a copy there).
      AdoptOpens adopt(r && r->regular && r->fd >= kFdBase ? r->fd : -1);
      gf::functions().st_open(&p);
    }
    for (int i = static_cast<int>(sizeof msg) - 2; i >= 0 && (msg[i] == ' ' || msg[i] == 0); --i) msg[i] = 0;
    return iostat == 0 && (p.common.flags & gf::kLibReturnMask) == 0;
  }

  bool close(std::int32_t unit) {
    gf::CloseParams c{};
    std::int32_t iostat = 0;
    c.common.flags = gf::kHasIostat;
    c.common.unit = unit;
    c.common.filename = "yadokari restore";
    c.common.iostat = &iostat;
    gf::functions().st_close(&c);
    return iostat == 0;
  }

  bool position(const FortranUnitRecord& r) {
    if (!r.regular) return true;
    std::int32_t unit = r.unit, whence = 0, status = 0;
    std::int64_t offset = r.position;
    gf::functions().fseek(&unit, &offset, &whence, &status);
    if (status != 0) return fail_unit("cannot position", r.unit, r.path);
    return !r.after_endfile || read_to_endfile(r);
  }

  // `READ (unit, *, END=...)` with no items, at the end of the file: libgfortran then holds the
  // unit after its endfile record, as the image's unit was.
  bool read_to_endfile(const FortranUnitRecord& r) {
    alignas(16) unsigned char dt[gf::kTransferParamsBytes] = {};
    auto* common = reinterpret_cast<gf::CommonParams*>(dt);
    common->flags = gf::kDtListFormat | gf::kHasEnd;
    common->unit = r.unit;
    common->filename = "yadokari restore";
    gf::functions().st_read(common);
    gf::functions().st_read_done(common);
    if ((common->flags & gf::kLibReturnMask) != gf::kLibReturnEnd)
      return fail_unit("cannot put back the end-of-file state of", r.unit, r.path);
    return true;
  }

  bool connect(const FortranUnitRecord& r) {
    // Written after the checkpoint by the failed incarnation: the restarted one writes it again.
    bool writes = !((r.specs & (1u << kSpecAction)) && std::strcmp(r.spec[kSpecAction], "read") == 0);
    bool direct = is_direct(r);
    struct stat st {};
    if (r.regular && writes && !direct && stat(r.path, &st) == 0 && st.st_size > r.size &&
        real_truncate(r.path, static_cast<off_t>(r.size)) != 0)
      say("cannot cut ", r.path, " back to its size at the checkpoint");
    if (!r.newunit) {
      std::int32_t none = 0;
      if (!open(&r, r.unit, false, &none)) return fail_unit("libgfortran cannot reconnect", r.unit, msg);
      return position(r);
    }
    return true;
  }
};

std::int32_t g_fillers[256];

// NEWUNIT numbers come back identical: libgfortran hands out the lowest free one (-10, -11, ...),
// so the gaps below each are held by scratch fillers until all are connected.
bool connect_newunits(Reconnect& rc, const FortranState& s) {
  int nfill = 0;
  bool ok = true;
  bool done[kMaxFortranUnits] = {};
  for (;;) {
    const FortranUnitRecord* next = nullptr;  // the highest (closest to zero) not yet connected
    int idx = -1;
    for (std::uint32_t i = 0; i < s.unit_count; ++i)
      if (s.units[i].newunit && !done[i] && (!next || s.units[i].unit > next->unit)) next = &s.units[i], idx = int(i);
    if (!next || !ok) break;
    done[idx] = true;
    for (;;) {
      std::int32_t got = 0;
      if (!rc.open(nullptr, 0, true, &got)) {
        ok = rc.fail_unit("cannot hold a NEWUNIT number below", next->unit, rc.msg);
        break;
      }
      if (got == next->unit) {
        rc.close(got);
        std::int32_t again = 0;
        if (!rc.open(next, 0, true, &again)) {
          ok = rc.fail_unit("libgfortran cannot reconnect", next->unit, rc.msg);
        } else if (again != next->unit) {
          ok = rc.fail_unit("libgfortran gave another NEWUNIT number to", next->unit, next->path);
        } else {
          ok = rc.position(*next);
        }
        break;
      }
      if (got < next->unit || nfill == static_cast<int>(sizeof g_fillers / sizeof g_fillers[0])) {
        rc.close(got);
        ok = rc.fail_unit("this process already uses the NEWUNIT number of", next->unit, next->path);
        break;
      }
      g_fillers[nfill++] = got;
    }
  }
  for (int i = 0; i < nfill; ++i) rc.close(g_fillers[i]);
  return ok;
}

}  // namespace

void flush_fortran_units() {
  if (!gf::functions().flush) return;
  Locked l;
  for (Slot& s : g_slots) {
    std::int32_t unit = s.unit;
    if (s.used && s.unit < 0) gf::functions().flush(&unit);
  }
}

bool capture_fortran(FortranState& out) {
  std::memset(&out, 0, offsetof(FortranState, units));
  std::memcpy(out.magic, kFortranMagic, sizeof out.magic);
  out.size = sizeof out;
  if (!gf::functions().fnum) return false;
  Locked l;
  for (Slot& s : g_slots) {
    if (!s.used) continue;
    FortranUnitRecord& r = out.units[out.unit_count];
    std::memset(&r, 0, sizeof r);
    int fd = -1;
    struct stat st {};
    if (!unit_path(s.unit, r.path, &fd) || fstat(fd, &st) != 0) {
      s.used = false;  // closed behind our back (an error, END=...): nothing to carry
      continue;
    }
    r.unit = s.unit;
    r.fd = fd;
    r.specs = s.specs;
    r.recl = s.recl;
    r.readonly = s.readonly;
    r.newunit = s.newunit;
    r.regular = S_ISREG(st.st_mode);
    r.after_endfile = s.after_endfile && r.regular;
    std::memcpy(r.spec, s.spec, sizeof r.spec);
    if (r.regular) {
      std::int32_t unit = s.unit;
      std::int64_t pos = 0;
      gf::functions().ftell(&unit, &pos);
      r.position = pos;
      r.size = st.st_size;
      if (is_direct(r)) r.next_record = s.carried_next_record ? s.carried_next_record : next_record(s.unit);
    }
    ++out.unit_count;
  }
  out.random_used = g_random_used;
  if (g_random_used && gf::functions().random_seed) {
    gf::functions().random_seed(&out.seed_size, nullptr, nullptr);
    gf::ArrayI4 get = seed_array(out.seed, out.seed_size);
    gf::functions().random_seed(nullptr, nullptr, &get);
  }
  return out.unit_count > 0 || out.random_used;
}

bool restore_fortran(const FortranState& s, std::size_t len, char* why, std::size_t why_len) {
  if (len < offsetof(FortranState, units) || std::memcmp(s.magic, kFortranMagic, sizeof s.magic) != 0 ||
      s.size != sizeof s || s.unit_count > kMaxFortranUnits || len != fortran_state_bytes(s) || s.seed_size < 0 ||
      s.seed_size > kSeedMax)
    return std::snprintf(why, why_len, "the image's Fortran unit table is malformed"), false;
  if ((s.unit_count > 0 || s.random_used) && (!gf::functions().st_open || !gf::functions().random_seed))
    return std::snprintf(why, why_len, "the image has Fortran state but libgfortran is not loaded"), false;
  // First check everything (nothing of this process changes), then reconnect.
  for (std::uint32_t i = 0; i < s.unit_count; ++i) {
    const FortranUnitRecord& r = s.units[i];
    struct stat st {};
    if (std::memchr(r.path, '\0', sizeof r.path) == nullptr || r.path[0] != '/')
      return std::snprintf(why, why_len, "the image's Fortran unit table is malformed"), false;
    if (stat(r.path, &st) != 0)
      return std::snprintf(why, why_len, "the application's Fortran unit %d (%s) cannot be reconnected: %s", r.unit,
                           r.path, std::strerror(errno)),
             false;
    if (r.regular ? !S_ISREG(st.st_mode) : !S_ISCHR(st.st_mode))
      return std::snprintf(why, why_len, "the application's Fortran unit %d (%s) is not the kind of file it was",
                           r.unit, r.path),
             false;
  }
  if (!gf::functions().st_open) return true;
  Reconnect rc{why, why_len, {}};
  {
    // Units the fresh process connected itself (its code before the restore point ran again):
    // the image's state replaces them; a unit is never connected twice.
    Locked l;
    for (Slot& slot : g_slots)
      if (slot.used) rc.close(slot.unit), slot.used = false;
    g_seen_count = 0;
    g_slots_full = g_seen_full = false;
  }
  for (std::uint32_t i = 0; i < s.unit_count; ++i)
    if (!rc.connect(s.units[i])) return false;
  if (!connect_newunits(rc, s)) return false;
  {
    Locked l;
    for (std::uint32_t i = 0; i < s.unit_count; ++i) {
      const FortranUnitRecord& r = s.units[i];
      Slot& slot = g_slots[i];
      struct stat st {};
      file_id(r.unit, st);
      slot = Slot{};
      slot.used = true;
      slot.unit = r.unit;
      slot.newunit = r.newunit;
      slot.after_endfile = r.after_endfile;
      slot.carried_next_record = r.next_record;
      slot.specs = r.specs;
      slot.recl = r.recl;
      slot.readonly = r.readonly != 0;
      std::memcpy(slot.spec, r.spec, sizeof slot.spec);
      slot.dev = st.st_dev;
      slot.ino = st.st_ino;
    }
  }
  if (s.random_used) {
    std::int32_t seed[kSeedMax];
    std::memcpy(seed, s.seed, sizeof seed);
    gf::ArrayI4 put = seed_array(seed, s.seed_size);
    gf::functions().random_seed(nullptr, &put, nullptr);
    g_random_used = true;
  }
  return true;
}

}  // namespace yadokari::memory

using namespace yadokari::memory;
namespace gf = yadokari::memory::gfortran;

// ---- the interposed libgfortran entry points --------------------------------------------------

YK_C_API void _gfortran_st_open(gf::OpenParams* p) {
  const auto st_open = reinterpret_cast<void (*)(gf::OpenParams*)>(gf::real(gf::Entry::st_open));
  if (!app_context()) return st_open(p);
  {
    ApplicationOpens opens;  // STATUS='REPLACE' before a restore must not empty the file again
    // The unit libgfortran builds is library state (reconnected at a restart, never restored
    // from the arena); the file it opens is the application's (reserved range, carried).
    LibraryScope scope;
    if (g_arena_on.load(std::memory_order_relaxed)) {
      AdoptOpens adopt;
      st_open(p);
    } else {
      st_open(p);  // before a restore: the fd table leaves such files alone
    }
  }
  if ((p->common.flags & gf::kLibReturnMask) == 0) record_open(*p);
}

YK_C_API void _gfortran_st_close(gf::CloseParams* p) {
  std::int32_t unit = p->common.unit;
  reinterpret_cast<void (*)(gf::CloseParams*)>(gf::real(gf::Entry::st_close))(p);
  if (!app_context() || (p->common.flags & gf::kLibReturnMask) != 0) return;
  Locked l;
  if (Slot* s = find(unit)) s->used = false;
}

// READ/WRITE: to notice units connected without OPEN (a WRITE on an unconnected unit opens fort.N
// implicitly), which the checkpoint then refuses instead of losing them; and, with BACKSPACE,
// REWIND and ENDFILE, whether a unit is after its end of file (FortranUnitRecord::after_endfile).
namespace {

void note(const gf::CommonParams* p) {
  if (app_context() && !(p->flags & gf::kDtInternalUnit)) note_transfer(p->unit);
}

// After a statement on `unit` that ended with `flags`: an end of file puts the unit after its
// endfile record, a successful statement leaves it there only if `ok_means` (ENDFILE); after an
// error the state stays as it was.
void note_endfile_state(std::int32_t unit, std::int32_t flags, bool ok_means) {
  if (!app_context() || (flags & gf::kDtInternalUnit)) return;
  const std::int32_t result = flags & gf::kLibReturnMask;
  if (result != 0 && result != gf::kLibReturnEnd) return;  // an error: where it is is libgfortran's
  Locked l;
  if (Slot* s = find(unit)) s->after_endfile = result == gf::kLibReturnEnd || ok_means;
}

// INQUIRE (unit, NEXTREC=) of a restored direct-access unit before its first transfer: the record
// number the image's unit had, not the fresh unit's 1.
void answer_next_record(gf::InquireHead* p) {
  const std::int32_t f = p->common.flags;
  if (!(f & gf::kInquireNextrec) || (f & gf::kInquireFile) || (f & gf::kLibReturnMask) != 0 || !p->nextrec) return;
  Locked l;
  if (Slot* s = find(p->common.unit); s && s->carried_next_record) *p->nextrec = s->carried_next_record;
}

// RANDOM_NUMBER, RANDOM_SEED, RANDOM_INIT: only to know that the application uses the generator
// (its state is saved only then: a GET would initialise a generator nobody used). Every argument
// is a pointer or an int, passed on unchanged as machine words.
using Words = void (*)(std::uintptr_t, std::uintptr_t, std::uintptr_t);

void random_call(gf::Entry e, std::uintptr_t a, std::uintptr_t b, std::uintptr_t c) {
  // RANDOM_SEED(SIZE=) alone reads no state.
  bool size_only = (e == gf::Entry::random_seed_i4 || e == gf::Entry::random_seed_i8) && a != 0 && b == 0 && c == 0;
  if (app_context() && !size_only) {
    g_random_used = true;
    if (!on_main_thread()) g_random_used_off_main.store(true, std::memory_order_relaxed);
  }
  reinterpret_cast<Words>(gf::real(e))(a, b, c);
}

// The statement `e`'s own function in libgfortran.
void forward(gf::Entry e, gf::CommonParams* p) { reinterpret_cast<void (*)(gf::CommonParams*)>(gf::real(e))(p); }
}  // namespace

YK_C_API void _gfortran_st_read(gf::CommonParams* p) {
  note(p);
  forward(gf::Entry::st_read, p);
}
YK_C_API void _gfortran_st_read_done(gf::CommonParams* p) {
  forward(gf::Entry::st_read_done, p);
  note_endfile_state(p->unit, p->flags, false);
}
YK_C_API void _gfortran_st_write(gf::CommonParams* p) {
  note(p);
  forward(gf::Entry::st_write, p);
}
YK_C_API void _gfortran_st_write_done(gf::CommonParams* p) {
  forward(gf::Entry::st_write_done, p);
  note_endfile_state(p->unit, p->flags, false);
}
YK_C_API void _gfortran_st_backspace(gf::CommonParams* p) {
  forward(gf::Entry::st_backspace, p);
  note_endfile_state(p->unit, p->flags, false);
}
YK_C_API void _gfortran_st_rewind(gf::CommonParams* p) {
  forward(gf::Entry::st_rewind, p);
  note_endfile_state(p->unit, p->flags, false);
}
YK_C_API void _gfortran_st_endfile(gf::CommonParams* p) {
  forward(gf::Entry::st_endfile, p);
  note_endfile_state(p->unit, p->flags, true);
}
YK_C_API void _gfortran_st_inquire(gf::InquireHead* p) {
  forward(gf::Entry::st_inquire, &p->common);
  answer_next_record(p);
}

#define YK_RANDOM_ENTRY(name, entry) \
  YK_C_API void name(std::uintptr_t a, std::uintptr_t b, std::uintptr_t c) { random_call(entry, a, b, c); }
YK_RANDOM_ENTRY(_gfortran_random_r4, gf::Entry::random_r4)
YK_RANDOM_ENTRY(_gfortran_random_r8, gf::Entry::random_r8)
YK_RANDOM_ENTRY(_gfortran_random_r10, gf::Entry::random_r10)
YK_RANDOM_ENTRY(_gfortran_random_r16, gf::Entry::random_r16)
YK_RANDOM_ENTRY(_gfortran_arandom_r4, gf::Entry::arandom_r4)
YK_RANDOM_ENTRY(_gfortran_arandom_r8, gf::Entry::arandom_r8)
YK_RANDOM_ENTRY(_gfortran_arandom_r10, gf::Entry::arandom_r10)
YK_RANDOM_ENTRY(_gfortran_arandom_r16, gf::Entry::arandom_r16)
YK_RANDOM_ENTRY(_gfortran_random_seed_i4, gf::Entry::random_seed_i4)
YK_RANDOM_ENTRY(_gfortran_random_seed_i8, gf::Entry::random_seed_i8)
YK_RANDOM_ENTRY(_gfortran_random_init, gf::Entry::random_init)
