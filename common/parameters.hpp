#pragma once
// Every YADOKARI_* environment variable the product reads, in one table: its name, the kind of
// value, its default, who reads it and what it means. docs/CONTRACTS.md's parameter table is
// printed from this one (tests/docs/check_parameters.sh fails when they differ, or when code reads
// a YADOKARI_* name missing here). A flag that overrides a variable is named in its meaning.
#include <array>
#include <string_view>

namespace yadokari::parameters {

struct Parameter {
  std::string_view name;
  std::string_view type;           // what the value looks like
  std::string_view default_value;  // "" when unset means "off" or "not given"
  std::string_view read_by;        // rank (the shim), front end, agent, memory layer, sim
  std::string_view meaning;
};

// The names, for the code that reads or sets them: no YADOKARI_* string literal elsewhere in
// the product's C++ code (common/tests/check_parameters.sh).
inline constexpr char kFlavour[] = "YADOKARI_FLAVOUR";
inline constexpr char kControl[] = "YADOKARI_CONTROL";
inline constexpr char kJobId[] = "YADOKARI_JOB_ID";
inline constexpr char kJobSecret[] = "YADOKARI_JOB_SECRET";
inline constexpr char kAgentRelay[] = "YADOKARI_AGENT_RELAY";
inline constexpr char kStats[] = "YADOKARI_STATS";
inline constexpr char kCkptDir[] = "YADOKARI_CKPT_DIR";
inline constexpr char kRestore[] = "YADOKARI_RESTORE";
inline constexpr char kRestoreEpoch[] = "YADOKARI_RESTORE_EPOCH";
inline constexpr char kRankMap[] = "YADOKARI_RANK_MAP";
inline constexpr char kMemory[] = "YADOKARI_MEMORY";
inline constexpr char kFreshLibraries[] = "YADOKARI_FRESH_LIBRARIES";
inline constexpr char kCkptBackground[] = "YADOKARI_CKPT_BACKGROUND";
inline constexpr char kCkptFullEvery[] = "YADOKARI_CKPT_FULL_EVERY";
inline constexpr char kImageFormat[] = "YADOKARI_IMAGE_FORMAT";
inline constexpr char kAslrReexec[] = "YADOKARI_ASLR_REEXEC";
inline constexpr char kFaultSlowWrite[] = "YADOKARI_FAULT_SLOW_WRITE";
inline constexpr char kFaultKillWriter[] = "YADOKARI_FAULT_KILL_WRITER";
inline constexpr char kFaultHoldFinalize[] = "YADOKARI_FAULT_HOLD_FINALIZE";
inline constexpr char kSwapDir[] = "YADOKARI_SWAP_DIR";
inline constexpr char kKeptRanks[] = "YADOKARI_KEPT_RANKS";
inline constexpr char kCkptInterval[] = "YADOKARI_CKPT_INTERVAL";
inline constexpr char kStopAfterEpoch[] = "YADOKARI_STOP_AFTER_EPOCH";
inline constexpr char kKeep[] = "YADOKARI_KEEP";
inline constexpr char kCkptCompress[] = "YADOKARI_CKPT_COMPRESS";
inline constexpr char kNodeDir[] = "YADOKARI_NODE_DIR";
inline constexpr char kPort[] = "YADOKARI_PORT";
inline constexpr char kBindAddress[] = "YADOKARI_BIND_ADDRESS";
inline constexpr char kRsh[] = "YADOKARI_RSH";
inline constexpr char kShimDir[] = "YADOKARI_SHIM_DIR";
inline constexpr char kStateDir[] = "YADOKARI_STATE_DIR";
inline constexpr char kPolicy[] = "YADOKARI_POLICY";
inline constexpr char kMaxRestarts[] = "YADOKARI_MAX_RESTARTS";
inline constexpr char kMaxOversubscribe[] = "YADOKARI_MAX_OVERSUBSCRIBE";
inline constexpr char kLiveMoves[] = "YADOKARI_LIVE_MOVES";
inline constexpr char kHeartbeatMs[] = "YADOKARI_HEARTBEAT_MS";
inline constexpr char kHeartbeatMisses[] = "YADOKARI_HEARTBEAT_MISSES";
inline constexpr char kAgent[] = "YADOKARI_AGENT";
inline constexpr char kSimDir[] = "YADOKARI_SIM_DIR";

inline constexpr std::array kAll = std::to_array<Parameter>({
    // What a rank receives from the front end.
    {kFlavour, "openmpi|mpich", "", "rank",
     "the MPI the job runs with; a shim built for the other ABI stops with a clear message"},
    {kControl, "tcp://host:port", "", "rank",
     "the coordinator's endpoint; unset: no control plane (plain mpirun of a relinked app)"},
    {kJobId, "name", "", "rank, agent",
     "the job's identifier (also names its state); agents and `yadokari join` need it"},
    {kJobSecret, "text", "", "rank, agent",
     "the job's credential: its secret, presented when registering (the coordinator refuses others), and the "
     "coordinator's public CURVE key, which encrypts the link"},
    {kAgentRelay, "on|off", "on", "rank",
     "`off`: a rank connects to the coordinator itself even where its node's agent relays its node's ranks "
     "(one connection and one message per rank and round at the front end instead of one per node)"},
    {kStats, "path", "", "rank", "at MPI_Finalize each rank writes its channel table and call counts there as JSON"},
    {kCkptDir, "absolute path", "", "front end, rank",
     "checkpoint directory (`--ckpt-dir`); set for the ranks when the job checkpoints"},
    {kRestore, "absolute path", "", "rank, memory layer",
     "restart only: the epoch directory each rank restores `rank-<L>.img` from"},
    {kRestoreEpoch, "integer", "", "rank", "restart only: that epoch's number"},
    {kRankMap, "comma list", "", "rank",
     "`--rank-map` or an automatic restart's placement: real rank i hosts logical rank LIST[i]"},
    {kMemory, "on|off", "", "memory layer",
     "`off` disables the memory layer (checkpoints refused); unset: on when checkpointing or restoring"},
    {kFreshLibraries, "names separated by : or ,", "", "memory layer",
     "libraries linked with the application whose data stays the fresh process's after a restart (a file name "
     "starting with a listed name); the same at the restart as at the checkpoint, or the restore refuses"},
    {kCkptBackground, "on|off", "on", "rank",
     "`off`: each rank writes its image while the application waits, instead of in a forked writer after "
     "its state is captured"},
    {kCkptFullEvery, "integer", "8", "rank",
     "a full image every N checkpoints of a rank process, increments of the pages written since the previous "
     "image in between; 1: full images only (`--full-every`, which the front end passes on)"},
    {kImageFormat, "yadokari|dmtcp", "yadokari", "rank",
     "the images' layout: `dmtcp` writes each rank's memory areas in DMTCP's checkpoint layout, yadokari's "
     "records after them, full images only (`--image-format`, which the front end passes on)"},
    {kAslrReexec, "internal", "", "memory layer",
     "guard against a re-exec loop while turning address randomisation off, holding the process's name "
     "across it; removed after the re-exec"},
    // Tests and the demo.
    {kFaultSlowWrite, "E:MS", "", "rank",
     "tests: every rank pauses MS ms inside its image write of epoch E (in the background writer when there is one)"},
    {kFaultKillWriter, "rank", "", "rank",
     "tests: the background writer of that logical rank's first image in each process kills itself mid-image"},
    {kFaultHoldFinalize, "path", "", "rank",
     "tests and the demo: ranks wait at MPI_Finalize until the file exists (at most 5 minutes), still checkpointable"},
    {kSwapDir, "path", "", "rank",
     "set by the front end in a live move (`migrate --live`), or by tests: where a rank that swapped its MPI "
     "library in place waits for its stand-in, at `rank-<L>.sock`"},
    {kKeptRanks, "comma list", "", "rank",
     "set by the front end in a live move, or by tests: logical ranks whose processes are kept; in a launch, the "
     "process of such a rank stands in for it (hands the launch over to the process waiting at "
     "`YADOKARI_SWAP_DIR`) and ends with its status"},
    // What the front end reads; each is overridden by its flag.
    {kCkptInterval, "seconds", "", "front end", "seconds between checkpoints (`--interval`)"},
    {kStopAfterEpoch, "integer", "", "front end",
     "stop the job (exit 75) once that epoch commits (`--stop-after-epoch`)"},
    {kKeep, "integer", "2", "front end", "committed epochs to keep (`--keep`)"},
    {kCkptCompress, "0-19", "0", "front end", "zstd level of the images (`--compress`)"},
    {kNodeDir, "absolute path", "", "front end",
     "node-local image storage with a partner copy (`--node-dir`); needs node agents"},
    {kPort, "port", "any free port", "front end", "the coordinator's control port (`--port`)"},
    {kBindAddress, "address", "", "front end", "the address the coordinator binds (`--bind-address`)"},
    {kRsh, "command", "ssh -o BatchMode=yes", "front end", "how agents are started on other hosts"},
    {kShimDir, "path", "<dir of yadokari>/../lib", "front end", "where the shims are"},
    {kStateDir, "path", "/run/user/<uid>/yadokari or /tmp/yadokari-<uid>", "front end",
     "where running jobs are recorded (`yadokari status`, `checkpoint`, `join`)"},
    {kPolicy, "name", "balanced", "front end", "placement policy of restarts (`--policy`)"},
    {kMaxRestarts, "integer", "3", "front end", "automatic restarts before giving up (`--max-restarts`)"},
    {kMaxOversubscribe, "integer", "2", "front end", "ranks per slot a restart may place (`--max-oversubscribe`)"},
    {kLiveMoves, "on|off", "off", "front end",
     "`on`: the job's moves (`yadokari migrate`, `rebalance`, a draining node) are live where the job can move "
     "live: the ranks that stay keep their processes (`--live-moves`)"},
    {kHeartbeatMs, "milliseconds", "200", "front end", "interval of the agents' heartbeats"},
    {kHeartbeatMisses, "integer", "6", "front end", "heartbeats missed in a row before a node is declared lost"},
    {kAgent, "path", "this yadokari", "front end", "the yadokari executable to run on the nodes"},
    {kSimDir, "path", "/run/yadokari/sim", "sim", "where simulated clusters keep their state"},
});

}  // namespace yadokari::parameters
