#pragma once
// After a restore, before the application runs again: the files it was writing at the checkpoint
// are cut back to their size then, by every rank together (checkpoint/memory/written_files.hpp).
#include <cstdint>
#include <string>

namespace yadokari::shim::cut {

// Collective over the fresh library's world: every rank lists its files (a hash of the path and
// the size), each file is cut to the largest size any rank recorded for it (a file several ranks
// write was flushed by each at its own moment of the checkpoint), and no rank returns before all
// have cut, so none can write again into a file another still cuts. False with the reason when a
// file of this rank cannot be cut. Every rank of the job restarts together today; a restart of only
// some ranks (a live migration, issue 20) would have to run it among those, and must not cut a file
// the ranks that kept running still write.
// The files this rank journaled as opened for writing after the cut of `epoch` (or of a later
// epoch, in the run that failed) and that it did not have open at the checkpoint are cut back as
// well, each to the smallest size this rank found at such an open, or to the size at the
// checkpoint another rank had it open with, whichever is larger (checkpoint/memory/open_journal.hpp);
// Before anything is cut, every rank puts back the bytes it journaled as overwritten inside its
// files since that cut (checkpoint/memory/overwrite_journal.hpp); a range too long to have been
// copied whose bytes differ fails with the reason. Then those journal records are removed.
bool cut_back_written_files(std::uint64_t epoch, std::string& why);

}  // namespace yadokari::shim::cut
