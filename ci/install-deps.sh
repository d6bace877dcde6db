#!/usr/bin/env bash
# Installs everything yadokari builds and tests with, from Debian 12 packages. Run as root.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake g++ gfortran pkg-config python3 python3-matplotlib git
  openmpi-bin libopenmpi-dev mpich libmpich-dev
  libzmq3-dev cppzmq-dev libcereal-dev nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev
  catch2 libzstd-dev libxxhash-dev zlib1g-dev
  iproute2 util-linux procps
  slurmctld slurmd slurm-client munge
  clang-format
  lammps elk-lapw python3-meep-openmpi  # real applications of bench/apps (tests apps.real.*)
  python3-mpi4py python3-numpy  # the Python application tests (tests/apps/python_numpy.py)
  stress-ng  # CPU load for bench/heartbeat_load.sh
)
missing=()
for p in "${packages[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == "install ok installed" ]] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci/install-deps.sh: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
