#include "runtime/sim/host_files.hpp"

#include <fstream>

#include "runtime/sim/sim_error.hpp"
#include "runtime/sim/state_file.hpp"

namespace yadokari::sim {

std::string hosts_content(const Cluster& cluster) {
  std::string text = "# simulated cluster " + cluster.name +
                     " (yadokari sim)\n127.0.0.1\tlocalhost\n"
                     "::1\tlocalhost ip6-localhost ip6-loopback\n";
  text += cluster.frontend.address + "\t" + cluster.frontend.hostname + "\n";
  for (const auto& node : cluster.nodes) text += node.address + "\t" + node.hostname + "\n";
  return text;
}

std::string hostfile_openmpi_content(const Cluster& cluster) {
  std::string text;
  for (const auto& node : cluster.nodes) {
    if (node.alive && !node.draining) text += node.hostname + " slots=" + std::to_string(node.slots) + "\n";
  }
  return text;
}

std::string hostfile_mpich_content(const Cluster& cluster) {
  std::string text;
  for (const auto& node : cluster.nodes) {
    if (node.alive && !node.draining) text += node.hostname + ":" + std::to_string(node.slots) + "\n";
  }
  return text;
}

void write_hosts_file(const Cluster& cluster) { write_file(cluster.hosts_file(), hosts_content(cluster)); }

void rewrite_hosts_file_in_place(const Cluster& cluster) {
  std::ofstream out(cluster.hosts_file(), std::ios::in | std::ios::out | std::ios::trunc);
  out << hosts_content(cluster);
  out.close();
  if (!out) throw SimError("cannot rewrite " + cluster.hosts_file().string());
}

void write_hostfiles(const Cluster& cluster) {
  write_file(cluster.hostfile_openmpi(), hostfile_openmpi_content(cluster));
  write_file(cluster.hostfile_mpich(), hostfile_mpich_content(cluster));
}

}  // namespace yadokari::sim
