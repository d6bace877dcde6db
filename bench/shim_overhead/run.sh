#!/usr/bin/env bash
# Shim overhead on small messages: native runs and runs with the yadokari shim, interleaved in one
# invocation, 2 ranks on this node over shared memory.
#
#   run.sh [--mpi openmpi|mpich|both] [--reps K] [--build DIR] [--via preload|cli|minimal|tracked|armed|both|LIST]
#          [--armed] [--layer] [--compare-build OLD] [--iters N] [--blocks B] [--warmup W] [--max-seconds S]
#          [--raw FILE]
#
#   --mpi     flavours to measure (default both)
#   --reps    repetitions per variant (default 10); rep i runs native then shim, rep i+1 the reverse
#   --build   build tree holding bench/<flavour>/shim_overhead, lib/libyadokari-<flavour>.so and
#             bin/yadokari (default: <repo>/build)
#   --via     how the shim gets in: 'preload' = the launcher with LD_PRELOAD and YADOKARI_FLAVOUR for
#             the ranks only; 'cli' = '<build>/bin/yadokari run -n 2 --'; 'both' = preload,cli
#             (default: preload). 'minimal' preloads bench/<flavour>/libminimal_interposer.so instead
#             of the shim: the least a call-counting PMPI interposer can do, i.e. what interposition
#             itself costs, against which the shim's own work is judged. 'armed' = 'cli' with checkpointing
#             on and no checkpoint taken ('yadokari run -n 2 --ckpt-dir <temp dir> --'): what users run.
#             'tracked' = 'preload' with YADOKARI_MEMORY=on (and UCX_MEM_MMAP_HOOK_MODE=none, as armed
#             runs set it): the memory layer's tracking and call brackets, with blocking calls as plain as
#             'preload''s, since without a front end nothing can request a checkpoint (under 'yadokari
#             run' the layer arms them); read against 'preload', it is the layer's own cost, and armed's
#             cost splits into the layer's part and the polling's. Each variant's check run verifies, from
#             the ranks' YADOKARI_STATS, that the layer is on or off and the calls armed or not as meant.
#             A comma list runs several.
#   --armed   shorthand for --via cli,armed: the plain shim and the armed one, each paired with native
#   --layer   the memory layer's own cost: the plain shim preloaded (side A) against the same with the
#             layer on ('tracked', side B), and the plain shim against itself (the A/A control), in the
#             same rounds; the summary says whether the layer differs by more than the A/A control does
#             ('unchanged' when their intervals overlap). Replaces --via.
#   --compare-build OLD  compare two shims instead of shim against native: for each --via, the shim of
#             build tree OLD (side A) against the shim of --build (side B), and the same --build shim
#             against itself (side A = side B: the A/A control of this comparison), interleaved in the same
#             rounds. Both use --build's microbenchmark. The summary says whether OLD -> new differs by
#             more than the A/A control does ('unchanged' when their intervals overlap).
#   --iters/--blocks/--warmup  passed to the microbenchmark (defaults 1000 / 61 / 5000)
#   --max-seconds  stop starting new reps once the timed part has taken S seconds (default 75; at
#             least 2 reps always run); all comparisons run round-robin, so each gets the same reps
#   --raw     also keep every run's JSON line, tagged with flavour/pair/side/rep, in FILE
#
# Transport: Open MPI OMPI_MCA_btl=self,vader (shared memory); MPICH UCX_TLS=sm,self (override either by
# setting it in the environment). The launcher pins ranks to cores (Open MPI's default for 2 ranks,
# '-bind-to core' for Hydra, also passed through 'yadokari run --mpi-args').
# Each run reports the median (and the fastest) of its blocks; the table gives, per metric, the median
# of those over the reps for each variant, their ratio, the median and range of the per-rep paired
# ratios, and the spread (min-max over reps) of each variant. The 'in-proc' rows come from inside each
# run: blocks through MPI_* alternate with blocks through PMPI_*, and their difference (ns) is the
# shim's own cost (about 0 in native runs), which other load on the machine barely disturbs. Without a
# shim library the second variant is the native binary again, so the table shows the noise floor (A/A).
set -euo pipefail

prog=$(basename "$0")
die() { echo "$prog: error: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/../lib/variant_state.sh"  # expected_state, reported_state
source "$here/../lib/launcher.sh"  # launcher_line

mpi=both
reps=10
build="$repo/build"
via=preload
iters=1000
blocks=61
warmup=5000
max_seconds=75
raw=""
compare_build=""
layer=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mpi)    [[ $# -ge 2 ]] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
    --reps)   [[ $# -ge 2 ]] || die "--reps needs a value"; reps=$2; shift 2 ;;
    --build)  [[ $# -ge 2 ]] || die "--build needs a value"; build=$2; shift 2 ;;
    --via)    [[ $# -ge 2 ]] || die "--via needs a value"; via=$2; shift 2 ;;
    --armed)  via=cli,armed; shift ;;
    --layer)  layer=1; shift ;;
    --compare-build) [[ $# -ge 2 ]] || die "--compare-build needs a value"; compare_build=$2; shift 2 ;;
    --iters)  [[ $# -ge 2 ]] || die "--iters needs a value"; iters=$2; shift 2 ;;
    --blocks) [[ $# -ge 2 ]] || die "--blocks needs a value"; blocks=$2; shift 2 ;;
    --warmup) [[ $# -ge 2 ]] || die "--warmup needs a value"; warmup=$2; shift 2 ;;
    --raw)    [[ $# -ge 2 ]] || die "--raw needs a value"; raw=$2; shift 2 ;;
    --max-seconds) [[ $# -ge 2 ]] || die "--max-seconds needs a value"; max_seconds=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mpi" in
  openmpi|mpich) flavours=("$mpi") ;;
  both) flavours=(openmpi mpich) ;;
  *) die "unknown --mpi '$mpi' (openmpi, mpich or both)" ;;
esac
[[ $via == both ]] && via=preload,cli
IFS=',' read -r -a vias <<<"$via"
for v in "${vias[@]}"; do
  case "$v" in
    preload|cli|minimal|tracked|armed) ;;
    *) die "unknown --via '$v' (preload, cli, minimal, tracked, armed, both or a comma list of the first five)" ;;
  esac
done
for v in "$reps" "$iters" "$blocks" "$warmup" "$max_seconds"; do
  [[ "$v" =~ ^[0-9]+$ ]] || die "numeric option expected, got '$v'"
done
(( reps >= 1 && iters >= 1 && blocks >= 1 )) || die "--reps, --iters and --blocks must be >= 1"
[[ -d "$build" ]] || die "build directory '$build' does not exist (configure and build first, or pass --build)"
build=$(cd "$build" && pwd)
if [[ -n "$compare_build" ]]; then
  [[ -d "$compare_build" ]] || die "--compare-build directory '$compare_build' does not exist"
  compare_build=$(cd "$compare_build" && pwd)
  for v in "${vias[@]}"; do
    [[ $v == minimal ]] && die "--compare-build compares shims: --via minimal has no shim to compare"
  done
fi
(( layer )) && [[ -n "$compare_build" ]] && die "--layer and --compare-build are two different comparisons: pick one"
command -v python3 >/dev/null || die "python3 is needed to summarize the results"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-shim-overhead.XXXXXX")
trap 'rm -rf "$work"' EXIT
results="$work/results.jsonl"
: >"$results"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export UCX_TLS=${UCX_TLS:-sm,self}
bench_args=(--iters "$iters" --blocks "$blocks" --warmup "$warmup")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start_s=$SECONDS

# The library a variant preloads into the ranks: shim_lib <flavour> [build], minimal_lib <flavour>.
shim_lib() { echo "${2:-$build}/lib/libyadokari-$1.so"; }
minimal_lib() { echo "$build/bench/$1/libminimal_interposer.so"; }

# launch <build tree of the shim> <flavour> <variant> <app> [extra env NAME=VALUE for the ranks...]
# variant: native | preload | cli | tracked | armed | minimal
launch() {
  local from=$1 fl=$2 variant=$3 app=$4
  shift 4
  local cmd=()
  case "$variant" in
    native|preload|tracked|minimal)
      local env=()
      [[ $variant == preload || $variant == tracked ]] && env=("LD_PRELOAD=$(shim_lib "$fl" "$from")" "YADOKARI_FLAVOUR=$fl")
      [[ $variant == tracked ]] && env+=(YADOKARI_MEMORY=on UCX_MEM_MMAP_HOOK_MODE=none)
      [[ $variant == minimal ]] && env=("LD_PRELOAD=$(minimal_lib "$fl")")
      env+=("$@")
      launcher_line cmd "$fl" 2 -bind-to core -- "${env[@]}"
      ;;
    cli|armed)
      # Same pinning as the native runs: Open MPI binds 2 ranks to cores by default, Hydra needs asking.
      local env=("$@")
      cmd=(env "${env[@]}" "$from/bin/yadokari" run -n 2)
      # Armed: checkpointing on (the memory layer, the control link, interruptible blocking calls), no
      # --interval, so no checkpoint is ever taken. A fresh directory per run: each run writes its job.json.
      [[ $variant == armed ]] && cmd+=(--ckpt-dir "$(mktemp -d "$work/ckpt.XXXXXX")")
      [[ $fl == mpich ]] && cmd+=("--mpi-args=-bind-to core")
      cmd+=(--) ;;
  esac
  timeout -k 5 120 "${cmd[@]}" "$app" "${bench_args[@]}"
}

# run_one <build tree> <flavour> <launch variant> <pair label> <side: native|shim> <rep> <app>
# (side 'native' is the comparison's side A, 'shim' its side B; with --compare-build both are shims)
run_one() {
  local from=$1 fl=$2 variant=$3 pair=$4 side=$5 rep=$6 app=$7 out line
  if ! out=$(launch "$from" "$fl" "$variant" "$app" 2>"$work/stderr"); then
    echo "$prog: $fl $pair ($side) rep $rep failed:" >&2
    sed 's/^/  | /' "$work/stderr" >&2
    printf '%s\n' "$out" | sed 's/^/  | /' >&2
    return 1
  fi
  line=$(printf '%s\n' "$out" | grep '^{"bench":"shim_overhead"' | tail -n 1 || true)
  [[ -n "$line" ]] || { echo "$prog: $fl $pair ($side) rep $rep printed no result" >&2; return 1; }
  printf '{"flavour":"%s","pair":"%s","side":"%s","rep":%d,"result":%s}\n' \
    "$fl" "$pair" "$side" "$rep" "$line" >>"$results"
}

# Comparisons to run: "flavour|side A variant|side A build|side B variant|side B build|label". Checked
# first, then timed round-robin so that a deadline (--max-seconds) cuts every comparison to the same
# number of reps.
status=0
comparisons=()

# check_active <build tree> <flavour> <variant> <label> <app>: one untimed run that shows the shim is
# really in the ranks (it must write its stats at MPI_Finalize); armed: that checkpointing is on.
check_active() {
  local from=$1 fl=$2 variant=$3 label=$4 app=$5 stats n
  stats=$(mktemp -d "$work/stats-$fl.XXXXXX")
  if ! launch "$from" "$fl" "$variant" "$app" "YADOKARI_STATS=$stats" >/dev/null 2>"$work/stderr"; then
    echo "$prog: $fl $label check run failed:" >&2
    sed 's/^/  | /' "$work/stderr" >&2
    return 1
  fi
  n=$(find "$stats" -type f | wc -l)
  if (( n == 0 )); then
    echo "$prog: warning: $fl $label wrote no YADOKARI_STATS files: is it intercepting?" >&2
  else
    echo "$fl $label: active ($n stats file(s) written in the check run)" >&2
    # The ranks say whether the memory layer ran and the blocking calls were armed: each variant
    # must be what it claims (a shim older than these fields cannot say: then only a warning).
    local want seen
    want=$(expected_state "$variant")
    seen=$(reported_state "$stats")
    if [[ $seen == *"?"* ]]; then
      echo "$prog: warning: $fl $label: this shim does not report whether the memory layer ran" >&2
    elif [[ $seen != "$want" ]]; then
      echo "$prog: $fl $label: the ranks report memory layer, armed = '${seen//$'\n'/; }', expected '$want'" >&2
      return 1
    fi
  fi
  # Armed: the front end took the checkpoint directory (it writes job.json there at the start).
  if [[ $variant == armed ]] && ! compgen -G "$work/ckpt.*/job.json" >/dev/null; then
    echo "$prog: warning: $fl $label left no job.json in its checkpoint directory: is checkpointing on?" >&2
  fi
}

# has_variant <build tree> <flavour> <variant>: what the variant needs exists in that build tree.
has_variant() {
  case "$3" in
    preload|tracked) [[ -f "$(shim_lib "$2" "$1")" ]] ;;
    cli|armed) [[ -x "$1/bin/yadokari" ]] ;;
    *) true ;;
  esac
}

for fl in "${flavours[@]}"; do
  app="$build/bench/$fl/shim_overhead"
  if [[ ! -x "$app" ]]; then
    echo "$prog: $app not built (cmake --build $build --target shim_overhead-$fl); skipping $fl" >&2
    status=1
    continue
  fi
  if (( layer )); then
    has_variant "$build" "$fl" preload || { echo "$prog: $(shim_lib "$fl") does not exist: skipping $fl" >&2; status=1; continue; }
    check_active "$build" "$fl" preload "plain shim" "$app" || { status=1; continue; }
    check_active "$build" "$fl" tracked "shim with the memory layer" "$app" || { status=1; continue; }
    comparisons+=("$fl|preload|$build|tracked|$build|plain-vs-tracked" "$fl|preload|$build|preload|$build|plain-vs-plain")
    continue
  fi
  for v in "${vias[@]}"; do
    if [[ -n "$compare_build" ]]; then
      ok=1
      for from in "$compare_build" "$build"; do
        if ! has_variant "$from" "$fl" "$v"; then
          echo "$prog: $from has no shim for --via $v ($fl): skipping it" >&2
          ok=0
        fi
      done
      (( ok )) || { status=1; continue; }
      check_active "$compare_build" "$fl" "$v" "old shim-$v" "$app" || { status=1; continue; }
      check_active "$build" "$fl" "$v" "new shim-$v" "$app" || { status=1; continue; }
      comparisons+=("$fl|$v|$compare_build|$v|$build|old-vs-new-$v" "$fl|$v|$build|$v|$build|new-vs-new-$v")
      continue
    fi
    label="shim-$v"
    variant=$v
    if [[ $v == minimal ]]; then
      label="minimal-interposer"
      if [[ ! -f "$(minimal_lib "$fl")" ]]; then
        echo "$prog: $(minimal_lib "$fl") not built (target minimal_interposer-$fl); skipping --via minimal for $fl" >&2
        status=1
        continue
      fi
    elif [[ $v == preload ]] && ! has_variant "$build" "$fl" preload; then
      echo "$prog: $(shim_lib "$fl") does not exist: measuring native vs native (noise floor) for $fl" >&2
      variant=native
      label="native-again"
    elif ! has_variant "$build" "$fl" "$v"; then
      echo "$prog: $build/bin/yadokari does not exist: skipping --via $v for $fl" >&2
      status=1
      continue
    fi
    if [[ $variant != native ]]; then
      check_active "$build" "$fl" "$variant" "$label" "$app" || { status=1; continue; }
    fi
    comparisons+=("$fl|native|$build|$variant|$build|$label")
  done
done

timed_start=$SECONDS
done_reps=0
echo "timing ${#comparisons[@]} comparison(s): up to $reps interleaved reps each, stop after ${max_seconds} s" >&2
for ((r = 0; r < reps; r++)); do
  round_start=$SECONDS
  for c in "${comparisons[@]}"; do
    IFS='|' read -r fl variant_a build_a variant_b build_b label <<<"$c"
    app="$build/bench/$fl/shim_overhead"
    if (( r % 2 == 0 )); then
      run_one "$build_a" "$fl" "$variant_a" "$label" native "$r" "$app" || status=1
      run_one "$build_b" "$fl" "$variant_b" "$label" shim "$r" "$app" || status=1
    else
      run_one "$build_b" "$fl" "$variant_b" "$label" shim "$r" "$app" || status=1
      run_one "$build_a" "$fl" "$variant_a" "$label" native "$r" "$app" || status=1
    fi
  done
  done_reps=$((r + 1))
  round=$((SECONDS - round_start))
  # Keep at least two rounds (both orders); then stop if another round would pass the deadline.
  if (( done_reps >= 2 && done_reps < reps && SECONDS - timed_start + round > max_seconds )); then
    echo "$prog: stopping after $done_reps of $reps reps: --max-seconds $max_seconds reached (machine busy?)" >&2
    break
  fi
done

[[ -n "$raw" ]] && cp "$results" "$raw"

load1=${load_before%% *}
if awk -v l="$load1" 'BEGIN { exit !(l > 1.0) }'; then
  echo "WARNING: load average $load1 before the run: other work shares the CPUs; expect noise-dominated results" >&2
fi
echo "reps: $done_reps; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg) (2 ranks on $(nproc) CPUs); $((SECONDS - start_s)) s"
mode=""
[[ -n "$compare_build" ]] && mode=compare
(( layer )) && mode=layer
python3 - "$results" "$here" "$mode" <<'EOF'
import json, statistics, sys
from collections import defaultdict
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, sys.argv[2])
from target_verdict import iqr, median_ci, verdict

runs = defaultdict(dict)  # (flavour, pair, side) -> rep -> result
for line in open(sys.argv[1]):
    rec = json.loads(line)
    runs[(rec["flavour"], rec["pair"], rec["side"])][rec["rep"]] = rec["result"]
if not runs:
    print("no results")
    sys.exit(0)

def get(result, key, stat="median"):
    node = result
    for part in key.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return None if node is None else node[stat]

# (key, stat, label, kind): 'time' rows compare two processes (native run vs shim run, in us);
# 'diff' rows are in-process MPI_-minus-PMPI_ differences (ns), ~0 in native runs.
metrics = [("pingpong_half_rtt", "median", "ping-pong 8B half-RTT us", "time"),
           ("pingpong_half_rtt", "min", "  best block", "time"),
           ("allreduce", "median", "allreduce 8B us", "time"),
           ("allreduce", "min", "  best block", "time"),
           ("inproc.pingpong_diff_ns", "median", "in-proc ping-pong +ns", "diff"),
           ("inproc.allreduce_diff_ns", "median", "in-proc allreduce +ns", "diff")]
head = (f"{'mpi':8} {'compared':18} {'metric':26} {'native':>9} {'shim':>9} {'ratio':>6} "
        f"{'paired med [min-max]':>26} {'native min-max':>17} {'shim min-max':>17} {'n':>3}")
print(head)
print("-" * len(head))
verdicts = []
for (fl, variant) in sorted({(k[0], k[1]) for k in runs}):
    base = runs.get((fl, variant, "native"), {})
    other = runs.get((fl, variant, "shim"), {})
    reps = sorted(set(base) & set(other))
    if not reps:
        continue
    for key, stat, name, kind in metrics:
        b = [get(base[r], key, stat) for r in reps]
        s = [get(other[r], key, stat) for r in reps]
        if None in b or None in s:
            continue
        mb, ms = statistics.median(b), statistics.median(s)
        if kind == "time":
            paired = [y / x for x, y in zip(b, s)]
            ratio = f"{ms / mb:6.3f}"
            pfmt = "{:.3f}"
        else:
            paired = [y - x for x, y in zip(b, s)]
            ratio = f"{'-':>6}"
            pfmt = "{:+.1f}"
        pm = statistics.median(paired)
        ptxt = f"{pfmt.format(pm)} [{pfmt.format(min(paired))}..{pfmt.format(max(paired))}]"
        print(f"{fl:8} {variant:18} {name:26} {mb:9.3f} {ms:9.3f} {ratio} {ptxt:>26} "
              f"{min(b):8.3f}-{max(b):<8.3f} {min(s):8.3f}-{max(s):<8.3f} {len(reps):3}")
        if key == "pingpong_half_rtt":
            diff_ns = statistics.median([(y - x) * 1000 for x, y in zip(b, s)])
            label = "ping-pong " + ("block median" if stat == "median" else "best block")
            verdicts.append((fl, variant, label, [(p - 1) * 100 for p in paired], diff_ns))
        elif key == "inproc.pingpong_diff_ns":
            # Added ns per half round trip (shim run's MPI-PMPI minus the native run's, an A/A control),
            # as a share of the native run's best-block latency (the latency of an undisturbed machine).
            pct = [(y - x) / (base[r]["pingpong_half_rtt"]["min"] * 1000) * 100 for r, x, y in zip(reps, b, s)]
            verdicts.append((fl, variant, "ping-pong in-process", pct, pm))
print()
print("time rows: each value is one run's median over its blocks ('best block': its fastest block, least")
print("disturbed by other load); native/shim = median over reps; ratio = shim/native; paired = per rep,")
print("shim run / its adjacent native run; min-max over reps. 'native-again' = A/A noise-floor check.")
print("in-proc rows: within each run, blocks through MPI_* (the shim's wrappers when preloaded) alternate")
print("with blocks through PMPI_* (the library itself); value = median over block pairs of MPI_ - PMPI_ in")
print("ns (~0 in native runs: A/A control); paired = shim run - native run. Least sensitive to noise.")
print()
print("target: <= 3 % added ping-pong latency. Verdict from a bootstrap 95 % confidence interval (CI) of")
print("the median added % over reps (target_verdict.py): ABOVE if its lower end is above +3 %, within if")
print("its upper end is at most +3 %, else inconclusive (too few reps for this much noise: raise --reps,")
print("or rerun when the machine is quiet). IQR = the reps' spread, for reading the noise. In-process % =")
print("added ns / the native run's best-block half round trip.")
for fl, variant, name, added, ns in verdicts:
    q1, q3 = iqr(added)
    ci = median_ci(added)
    print(f"{fl:8} {variant:18} {name:22} added {statistics.median(added):+6.1f} % ({ns:+5.0f} ns per half "
          f"round trip; CI {ci[0]:+.1f}..{ci[1]:+.1f} %, IQR {q1:+.1f}..{q3:+.1f} %) -> {verdict(ci)}")
mode = sys.argv[3] if len(sys.argv) > 3 else ""
if mode:
    # Side A ('native' columns) against side B, next to the A/A control timed in the same rounds:
    # --compare-build: the old build's shim against the new one, control the new one against itself;
    # --layer: the plain shim against the shim with the memory layer, control the plain shim twice.
    print()
    if mode == "compare":
        print("--compare-build: old -> new shim against the A/A control (the new shim against itself in the same")
        print("rounds; in the table above 'native' is side A, the old shim or the new one's first run).")
        arrow, pairs = "old->new", lambda v: v.startswith("old-vs-new-") and "new-vs-new-" + v[len("old-vs-new-"):]
    else:
        print("--layer: the plain shim -> the same with the memory layer on, against the A/A control (the plain")
        print("shim against itself in the same rounds; in the table above 'native' is side A, the plain shim).")
        arrow, pairs = "layer", lambda v: v == "plain-vs-tracked" and "plain-vs-plain"
    print("'unchanged' when the bootstrap intervals of the two medians overlap, else 'differs'.")
    found = {(fl, variant, name): (added, ns) for fl, variant, name, added, ns in verdicts}
    for (fl, variant, name), (added, ns) in sorted(found.items()):
        control = pairs(variant) and found.get((fl, pairs(variant), name))
        if not control:
            continue
        ci, ci_aa = median_ci(added), median_ci(control[0])
        same = ci[0] <= ci_aa[1] and ci_aa[0] <= ci[1]
        print(f"{fl:8} {variant:18} {name:22} {arrow} {statistics.median(added):+6.1f} % ({ns:+5.1f} ns; CI "
              f"{ci[0]:+.1f}..{ci[1]:+.1f} %)  A/A {statistics.median(control[0]):+6.1f} % ({control[1]:+5.1f} ns;"
              f" CI {ci_aa[0]:+.1f}..{ci_aa[1]:+.1f} %) -> {'unchanged' if same else 'differs'}")
EOF
exit $status
