#pragma once
// Namespace holder processes: a detached `sleep infinity` (argv[0] = a tag naming the cluster
// directory and the node) started in fresh namespaces. As long as it lives, the namespaces exist
// and `nsenter -t PID` enters them; SIGKILL to it and to everything else inside frees them.
#include <sys/types.h>

#include <filesystem>
#include <string>

namespace yadokari::sim {

struct HolderSpec {
  std::string tag;                   // argv[0], see holder_tag()
  bool full_node = false;            // network only (the switch), or network+UTS+IPC+mount
  std::string hostname;              // full_node: the node's hostname
  std::filesystem::path hosts_file;  // full_node: bind-mounted on /etc/hosts
};

// Every simulated node has a private tmpfs here: its local disk for node-local checkpoint images
// (`yadokari run --node-dir /run/yadokari/node-disk`), gone with the node like a real one.
inline constexpr const char* kNodeDiskPath = "/run/yadokari/node-disk";

// "yadokari-sim:<dir>:<id>": how `sim down` recognises holders even without state.json.
std::string holder_tag(const std::filesystem::path& cluster_dir, const std::string& id);

// Starts the holder (double fork: it is reparented to init, never our zombie) and returns its pid
// once its namespaces are set up. A private tmpfs on /dev/shm makes shared-memory files node-local
// and lets them vanish with the node; another one on kNodeDiskPath is the node's local disk. Throws SimError if a step failed.
pid_t spawn_holder(const HolderSpec& spec);

// readlink("/proc/<pid>/ns/<kind>"), e.g. "net:[4026532301]"; "" if the process is gone.
std::string namespace_of(pid_t pid, const std::string& kind);

// argv[0] of a live process ("" if gone).
std::string process_argv0(pid_t pid);

}  // namespace yadokari::sim
