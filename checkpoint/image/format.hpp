#pragma once
// The on-disk layout (internal; docs/formats/image.md has the same table). All integers are
// little-endian.
//
//   header       magic, version, length, prefix checksum, fields..., header checksum
//   area record  128 bytes, then `stored length` bytes of data      (repeated)
//   end record   128 bytes
//
// Records have a fixed size so that a flipped bit can never send the reader to a wrong offset
// before a checksum has caught it.
#include <cstddef>
#include <cstdint>

namespace yadokari::image::format {

inline constexpr char kMagic[8] = {'Y', 'A', 'D', 'O', 'K', 'A', 'R', 'I'};

// Header: a fixed prefix whose own checksum lets a reader trust the version and the header
// length before it knows how to parse the rest.
inline constexpr std::size_t kMagicOffset = 0;
inline constexpr std::size_t kVersionOffset = 8;
inline constexpr std::size_t kHeaderLengthOffset = 12;
inline constexpr std::size_t kPrefixChecksumOffset = 16;
inline constexpr std::size_t kPrefixSize = 24;
// Then: rank u32, world size u32, epoch u64, created unix ns i64, binary count u32,
// job id (u16 length + bytes), flavour (u16 + bytes), per binary: path (u16 + bytes),
// identity kind u8, identity length u8, identity bytes, size u64; in version 2 (an increment)
// then the parent's epoch u64 and header checksum u64; then the header checksum u64 (xxh64 of
// every header byte before it).
inline constexpr std::size_t kMaxHeaderSize = 16u << 20;

// Area and end records.
inline constexpr std::size_t kRecordSize = 128;
inline constexpr char kAreaTag[4] = {'A', 'R', 'E', 'A'};
inline constexpr char kEndTag[4] = {'E', 'N', 'D', '\0'};
inline constexpr std::size_t kTagOffset = 0;
inline constexpr std::size_t kRecordChecksumOffset = 120;  // xxh64 of bytes [0, 120)
// area record
inline constexpr std::size_t kKindOffset = 4;           // u16
inline constexpr std::size_t kFlagsOffset = 6;          // u16
inline constexpr std::size_t kAddressOffset = 8;        // u64
inline constexpr std::size_t kLengthOffset = 16;        // u64
inline constexpr std::size_t kStoredLengthOffset = 24;  // u64: data bytes after the record
inline constexpr std::size_t kZeroPagesOffset = 32;     // u64: pages elided
inline constexpr std::size_t kDataChecksumOffset = 40;  // u64: xxh64 of the full uncompressed contents
inline constexpr std::size_t kProtectionOffset = 48;    // u32
inline constexpr std::size_t kNameOffset = 56;          // NUL-padded
inline constexpr std::size_t kMaxNameLength = 64;
// end record
inline constexpr std::size_t kAreaCountOffset = 8;           // u64
inline constexpr std::size_t kEndHeaderChecksumOffset = 16;  // u64: the header checksum again

// Area flags.
inline constexpr std::uint16_t kFlagCompressed = 1;       // payload is one zstd frame
inline constexpr std::uint16_t kFlagZeroPagesElided = 2;  // data starts with a stored-page run list
inline constexpr std::uint16_t kFlagDelta = 4;            // only changed pages, against the parent image
// The area's bytes are in the DMTCP part of an image in DMTCP's layout (docs/formats/dmtcp-image.md):
// the N-th such record is the N-th DMTCP area record, which its `length` raw bytes follow; nothing
// follows this record. Never with the other flags.
inline constexpr std::uint16_t kFlagInDmtcpPart = 8;
// The zstd frame holds the stored pages byte-shuffled (byte_shuffle.hpp); only with kFlagCompressed.
inline constexpr std::uint16_t kFlagShuffled = 16;

// Zero-page elision works on 4 KiB pages counted from the area's start; the last page may be short.
// With kFlagZeroPagesElided the data is: u64 run count, then per run (u64 first page,
// u64 page count) of the pages that ARE stored, then the payload of those pages in order.
inline constexpr std::size_t kPageSize = 4096;
inline constexpr std::size_t kRunSize = 16;

// A delta area (kFlagDelta, only in increments): the data is u64 xxh64 of the area's full contents
// after the increment is applied, u64 the length of the parent image's area (0: none), u64 run
// count, the runs of pages stored, then those pages' payload (raw or one zstd frame). A page not
// stored keeps the parent's contents if it lies wholly inside the parent's length, else it is zero.
// The record's checksum is the xxh64 of all of that data uncompressed (header, runs, pages).
inline constexpr std::size_t kDeltaHeaderSize = 24;

}  // namespace yadokari::image::format
