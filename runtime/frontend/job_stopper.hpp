#pragma once
// Ending a whole job on purpose (--stop-after-epoch, a restart after a node loss): the launcher and every rank, with no rank
// process left behind.
#include <sys/types.h>

#include <set>
#include <vector>

namespace yadokari::frontend {

// SIGKILL to the launcher and its descendants on this host, and to every pid in `rank_pids`
// still alive (ranks whose pids this host can see), then up to 10 s for the launcher to be
// reaped and 5 s for the rest to be gone; then removes the Open MPI session directories of the
// launcher's (now dead) tree, which a killed mpirun leaves behind. `launcher` <= 0: it has already
// been reaped (and cleaned up after itself).
// `spared`: processes of the launcher's tree left running (a live move's kept ranks, whose
// parents were killed first: live_move.hpp).
// SIGSTOP to the launcher and its descendants on this host but `spared`: before a live move's kept
// processes leave their launch (live_move.hpp), so that a launcher seeing its daemons or proxies
// die prints no banner into the job's output and passes no signal on; stop_whole_job kills them.
void freeze_launcher(pid_t launcher, const std::set<pid_t>& spared);

void stop_whole_job(pid_t launcher, const std::vector<pid_t>& rank_pids, const std::set<pid_t>& spared = {});

}  // namespace yadokari::frontend
