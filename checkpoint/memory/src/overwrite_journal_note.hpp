#pragma once
// The interposed calls' side of overwrite_journal.hpp.
#include <cstdint>
#include <cstdio>

#include "checkpoint/memory/src/app_mappings.hpp"

namespace yadokari::memory {

// Called by start_open_journal / stop_open_journal with the journal's directory (the descriptor is
// duplicated) and generation.
void start_overwrite_journal(int dir_fd, std::uint64_t generation);
void stop_overwrite_journal();

// True while a generation is being journaled; cheap (an atomic load).
bool overwrite_journal_on();
// Changes at every start: what the interposed calls know about descriptors is per generation.
std::uint64_t overwrite_generation_serial();

// The interposed calls (overwrite_watch.cpp) tell the watch: before `length` bytes are written at
// `offset` of descriptor `fd` (offset -1: its current offset; length UINT64_MAX: to the end of
// what the file held), application context. Keeps errno.
void before_write_at(int fd, std::int64_t offset, std::uint64_t length);
// truncate(2) by path: the bytes from `length` on are kept (the application's file, by its path).
void before_truncate_path(const char* path, std::uint64_t length);
// A descriptor closed or replaced: what the watch knew of it is forgotten.
void forget_watched_fd(int fd);
// A stream the application just opened with `mode`: an "r+" one writes over the file from its start.
void note_stream_opened(FILE* f, const char* mode);
// A stream made with fdopen(mode) on an application descriptor: it writes where that one stands.
void note_stream_made_on_fd(FILE* f, const char* mode);

// The shared file mappings' side (mapping_overwrites.cpp), application context, keeps errno:
// [addr, addr + len) of the mapping `r` becomes writable (an mmap, an mremap that grows it) and
// its file bytes are kept first;
void before_mapping_writes(const MapRecord& r, std::uint64_t addr, std::uint64_t len);
// mprotect adds PROT_WRITE over [lo, hi): the shared file mappings there that were not writable;
void before_protection_adds_write(std::uint64_t lo, std::uint64_t hi);
// at a generation start (library context): under every writable shared file mapping.
void keep_under_writable_shared_mappings();

}  // namespace yadokari::memory
