#!/usr/bin/env bash
# bench/slurm/npb.sbatch: syntax (bash -n, shellcheck when installed), the #SBATCH header, and that it
# runs bench/npb.sh with the documented arguments (checked by running it with a stub npb.sh, no Slurm).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sb="$here/../slurm/npb.sbatch"
fail() { echo "FAIL: $*"; exit 1; }
[[ -f "$sb" ]] || fail "$sb missing"
bash -n "$sb" || fail "bash -n"
if command -v shellcheck >/dev/null; then shellcheck "$sb" || fail "shellcheck"; else echo "note: shellcheck not installed"; fi
head -1 "$sb" | grep -q '^#!/usr/bin/env bash$' || fail "shebang"
# the #SBATCH lines must come before the first command (Slurm stops reading at the first non-comment line)
first_cmd=$(grep -n -v -E '^(#|[[:space:]]*$)' "$sb" | head -1 | cut -d: -f1)
for opt in job-name nodes ntasks time output; do
  n=$(grep -n -E "^#SBATCH --$opt=" "$sb" | head -1 | cut -d: -f1)
  [[ -n "$n" ]] || fail "no #SBATCH --$opt"
  (( n < first_cmd )) || fail "#SBATCH --$opt after the first command (line $first_cmd)"
done
grep -q -E '^#SBATCH --time=[0-9]+:[0-9]{2}:[0-9]{2}$' "$sb" || fail "--time format"
! grep -q -E '^[^#]*module (load|add)' "$sb" || fail "must be module-free"
grep -q 'npb\.sh' "$sb" || fail "does not call npb.sh"

# Run it against a stub repository whose bench/npb.sh records its arguments.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/repo/bench" "$tmp/bin"
printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$@" >"%s/args"\n' "$tmp" >"$tmp/repo/bench/npb.sh"
chmod +x "$tmp/repo/bench/npb.sh"
# stub scontrol: expands the node list
# shellcheck disable=SC2016  # the stub's own $1 $2
printf '#!/bin/sh\n[ "$1 $2" = "show hostnames" ] && printf "n1\\nn2\\n"\n' >"$tmp/bin/scontrol"
chmod +x "$tmp/bin/scontrol"
(cd "$tmp/repo" && env -u SLURM_JOB_ID PATH="$tmp/bin:$PATH" SLURM_SUBMIT_DIR="$tmp/repo" SLURM_NTASKS=4 \
   SLURM_JOB_NODELIST="n[1-2]" SLURM_TASKS_PER_NODE="2(x2)" NPB_DIR=/opt/npb BENCH_MPI=mpich BENCH_SIM=colocate \
   BENCH_EXTRA="--timeout 900" bash "$sb") || fail "running with a stub npb.sh failed"
mapfile -t a <"$tmp/args"
want=(--npb-dir /opt/npb --mpi mpich --np 4 --kernels "cg ep ft is mg" --classes A --reps 3
      --modes "native shim ckpt restart" --interval 10 --out "$tmp/repo/npb-local.jsonl"
      --report "$tmp/repo/report-local" --sim colocate --hosts "n1:2,n2:2" --timeout 900)
[[ "$(printf '%s\n' "${a[@]}")" == "$(printf '%s\n' "${want[@]}")" ]] || fail "npb.sh called with:
${a[*]}
expected:
${want[*]}"
# a bad BENCH_MPI is refused
(cd "$tmp/repo" && SLURM_SUBMIT_DIR="$tmp/repo" BENCH_MPI=lam bash "$sb" 2>/dev/null) && fail "BENCH_MPI=lam accepted"
echo ok
