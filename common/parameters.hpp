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

inline constexpr std::array kAll = std::to_array<Parameter>({
    // What a rank receives from the front end.
    {"YADOKARI_FLAVOUR", "openmpi|mpich", "", "rank",
     "the MPI the job runs with; a shim built for the other ABI stops with a clear message"},
    {"YADOKARI_CONTROL", "tcp://host:port", "", "rank",
     "the coordinator's endpoint; unset: no control plane (plain mpirun of a relinked app)"},
    {"YADOKARI_JOB_ID", "name", "", "rank, agent",
     "the job's identifier (also names its state); agents and `yadokari join` need it"},
    {"YADOKARI_JOB_SECRET", "text", "", "rank, agent",
     "the job's credential: its secret, presented when registering (the coordinator refuses others), and the "
     "coordinator's public CURVE key, which encrypts the link"},
    {"YADOKARI_STATS", "path", "", "rank",
     "at MPI_Finalize each rank writes its channel table and call counts there as JSON"},
    {"YADOKARI_CKPT_DIR", "absolute path", "", "front end, rank",
     "checkpoint directory (`--ckpt-dir`); set for the ranks when the job checkpoints"},
    {"YADOKARI_RESTORE", "absolute path", "", "rank, memory layer",
     "restart only: the epoch directory each rank restores `rank-<L>.img` from"},
    {"YADOKARI_RESTORE_EPOCH", "integer", "", "rank", "restart only: that epoch's number"},
    {"YADOKARI_RANK_MAP", "comma list", "", "rank",
     "`--rank-map` or an automatic restart's placement: real rank i hosts logical rank LIST[i]"},
    {"YADOKARI_MEMORY", "on|off", "", "memory layer",
     "`off` disables the memory layer (checkpoints refused); unset: on when checkpointing or restoring"},
    {"YADOKARI_CKPT_BACKGROUND", "on|off", "on", "rank",
     "`off`: each rank writes its image while the application waits, instead of in a forked writer after "
     "its state is captured"},
    {"YADOKARI_CKPT_FULL_EVERY", "integer", "8", "rank",
     "a full image every N checkpoints of a rank process, increments of the pages written since the previous "
     "image in between; 1: full images only (`--full-every`, which the front end passes on)"},
    {"YADOKARI_ASLR_REEXEC", "internal", "", "memory layer",
     "guard against a re-exec loop while turning address randomisation off; removed after the re-exec"},
    // Tests and the demo.
    {"YADOKARI_FAULT_SLOW_WRITE", "E:MS", "", "rank",
     "tests: every rank pauses MS ms inside its image write of epoch E (in the background writer when there is one)"},
    {"YADOKARI_FAULT_KILL_WRITER", "rank", "", "rank",
     "tests: the background writer of that logical rank's first image in each process kills itself mid-image"},
    {"YADOKARI_FAULT_HOLD_FINALIZE", "path", "", "rank",
     "tests and the demo: ranks wait at MPI_Finalize until the file exists (at most 5 minutes), still checkpointable"},
    // What the front end reads; each is overridden by its flag.
    {"YADOKARI_CKPT_INTERVAL", "seconds", "", "front end", "seconds between checkpoints (`--interval`)"},
    {"YADOKARI_STOP_AFTER_EPOCH", "integer", "", "front end",
     "stop the job (exit 75) once that epoch commits (`--stop-after-epoch`)"},
    {"YADOKARI_KEEP", "integer", "2", "front end", "committed epochs to keep (`--keep`)"},
    {"YADOKARI_CKPT_COMPRESS", "0-19", "0", "front end", "zstd level of the images (`--compress`)"},
    {"YADOKARI_NODE_DIR", "absolute path", "", "front end",
     "node-local image storage with a partner copy (`--node-dir`); needs node agents"},
    {"YADOKARI_PORT", "port", "any free port", "front end", "the coordinator's control port (`--port`)"},
    {"YADOKARI_BIND_ADDRESS", "address", "", "front end", "the address the coordinator binds (`--bind-address`)"},
    {"YADOKARI_RSH", "command", "ssh -o BatchMode=yes", "front end", "how agents are started on other hosts"},
    {"YADOKARI_SHIM_DIR", "path", "<dir of yadokari>/../lib", "front end", "where the shims are"},
    {"YADOKARI_STATE_DIR", "path", "/run/user/<uid>/yadokari or /tmp/yadokari-<uid>", "front end",
     "where running jobs are recorded (`yadokari status`, `checkpoint`, `join`)"},
    {"YADOKARI_POLICY", "name", "balanced", "front end", "placement policy of restarts (`--policy`)"},
    {"YADOKARI_MAX_RESTARTS", "integer", "3", "front end", "automatic restarts before giving up (`--max-restarts`)"},
    {"YADOKARI_MAX_OVERSUBSCRIBE", "integer", "2", "front end",
     "ranks per slot a restart may place (`--max-oversubscribe`)"},
    {"YADOKARI_HEARTBEAT_MS", "milliseconds", "200", "front end", "interval of the agents' heartbeats"},
    {"YADOKARI_HEARTBEAT_MISSES", "integer", "6", "front end",
     "heartbeats missed in a row before a node is declared lost"},
    {"YADOKARI_AGENT", "path", "this yadokari", "front end", "the yadokari executable to run on the nodes"},
    {"YADOKARI_SIM_DIR", "path", "/run/yadokari/sim", "sim", "where simulated clusters keep their state"},
});

}  // namespace yadokari::parameters
