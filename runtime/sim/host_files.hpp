#pragma once
// The cluster's name files: the private /etc/hosts every node and the frontend see, and the
// launchers' hostfiles (Open MPI `host slots=S`, Hydra `host:S`; Hydra rejects `slots=`).
#include <string>

#include "runtime/sim/cluster.hpp"

namespace yadokari::sim {

std::string hosts_content(const Cluster& cluster);
std::string hostfile_openmpi_content(const Cluster& cluster);  // live nodes only
std::string hostfile_mpich_content(const Cluster& cluster);    // live nodes only

// Writes hosts (before any holder bind-mounts it: it is never rewritten afterwards).
void write_hosts_file(const Cluster& cluster);
// Rewrites hosts in the same inode, which every holder has bind-mounted on /etc/hosts (a new
// file renamed over it would not be seen by them).
void rewrite_hosts_file_in_place(const Cluster& cluster);
// Writes both hostfiles (rewritten when a node is killed).
void write_hostfiles(const Cluster& cluster);

}  // namespace yadokari::sim
