#include "runtime/sim/agent_script.hpp"

#include "runtime/sim/cpu_limit.hpp"
#include "runtime/sim/state_file.hpp"

namespace yadokari::sim {

namespace {

std::string case_entry(const Cluster& cluster, const Node& node) {
  std::string entry = "    " + node.id + "|" + node.hostname + "|" + node.address + ")\n";
  if (node.alive) {
    const std::string cgroup = node.slots > 0 ? node_cgroup(cluster, node) : std::string();
    entry += "        pid=" + std::to_string(node.pid) + " netns='" + node.netns + "' cgroup='" + cgroup + "' ;;\n";
  } else {
    entry += "        unreachable ;;\n";
  }
  return entry;
}

}  // namespace

std::string agent_script(const Cluster& cluster) {
  std::string script = R"SH(#!/bin/bash
# Launch agent of the simulated cluster )SH" +
                       cluster.name + R"SH( (written by yadokari sim; do not edit).
# usage, like ssh: agent [ssh options] HOST COMMAND...
# Extra variables to pass into the node: YADOKARI_SIM_AGENT_ENV="NAME1 NAME2". YADOKARI_JOB_ID always
# goes in: it marks what a launcher starts on a node (Open MPI's orted, Hydra's proxies) as the job's,
# so that the node's yadokari agent can stop it.
unreachable() {
    echo "ssh: connect to host $host port 22: No route to host" >&2
    exit 255
}
while [ $# -gt 0 ]; do
    case "$1" in
        --) shift; break ;;
        -[BbcDEeFIiJLlmOopQRSWw]) shift 2 ;;
        -*) shift ;;
        *) break ;;
    esac
done
if [ $# -lt 1 ]; then
    echo "usage: agent [ssh options] HOST COMMAND..." >&2
    exit 255
fi
host="${1#*@}"
shift
if [ $# -lt 1 ]; then
    echo "agent: no command for $host (interactive logins are not supported)" >&2
    exit 255
fi
case "$host" in
)SH";
  for (const auto& node : cluster.nodes) script += case_entry(cluster, node);
  script += case_entry(cluster, cluster.frontend);
  script += R"SH(    *)
        echo "ssh: Could not resolve hostname $host: Name or service not known" >&2
        exit 255 ;;
esac
# The pid must still be the node's holder (not a reused pid elsewhere).
[ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" = "$netns" ] || unreachable
USER="${USER:-$(id -un 2>/dev/null)}"
LOGNAME="${LOGNAME:-$USER}"
keep=()
for name in PATH LD_LIBRARY_PATH HOME USER LOGNAME LANG LC_ALL TERM TMPDIR YADOKARI_JOB_ID $YADOKARI_SIM_AGENT_ENV; do
    [ -n "${!name+set}" ] && keep+=("$name=${!name}")
done
home="${HOME:-/}"
[ -d "$home" ] || home=/
# The node's CPU limit (sim up --cpu-per-slot): what runs there from now on is charged to it.
[ -z "$cgroup" ] || echo $$ > "$cgroup/cgroup.procs" || exit 255
exec nsenter -t "$pid" -n -u -i -m --wd="$home" -- env -i "${keep[@]}" SHELL=/bin/sh /bin/sh -c "$*"
)SH";
  return script;
}

void write_agent(const Cluster& cluster) { write_file(cluster.agent(), agent_script(cluster), 0755); }

}  // namespace yadokari::sim
