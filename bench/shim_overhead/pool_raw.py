#!/usr/bin/env python3
"""Pools the --raw files of several run.sh invocations, to compare two shim builds measured in the
same period:   pool_raw.py 'before=raw/before-*.jsonl' 'after=raw/after-*.jsonl'

Per label, flavour and comparison (run.sh's pair: shim-preload, shim-cli, minimal-interposer), over
every rep of the matching files: the in-process ping-pong +ns (shim run's median of MPI_ minus PMPI_
block times), +% = that / the paired native run's best-block half round trip
(as in run.sh's verdict), the native A/A control and the in-process allreduce +ns; then the process A/B
(shim run / adjacent native run, block medians) and the shim run's PMPI_ blocks against the native run's
(what preloading costs outside the wrappers); medians and IQRs.
One invocation of run.sh is 10 reps at most; pooling alternating invocations of two builds is what
makes a difference of about 1 ns visible on a shared 2-core machine.

Verdict on the <= 3 % target from the process A/B, by target_verdict.py's rule (as run.sh): a
bootstrap 95 % confidence interval of the median per-rep +% ("within" if its upper end is at most
3 %, "ABOVE" if its lower end is above, else "inconclusive"). The A/A control line (each native run
against the next native run of the same file) shows the machine's run-to-run spread, which is why
the rule reads the interval and not the reps' IQR. The interval narrows with more reps."""
import glob, json, statistics, sys
from collections import defaultdict
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from target_verdict import iqr as q, median_ci, verdict  # this script's own directory
def spread_and_ci(v):  # "median M IQR a..b 95% CI of the median c..d", and the interval
    ci = median_ci(v)
    return (f"median {statistics.median(v):5.2f} IQR {q(v)[0]:5.2f}..{q(v)[1]:5.2f}"
            f" 95% CI of the median {ci[0]:5.2f}..{ci[1]:5.2f}"), ci
for label, pattern in [a.split("=", 1) for a in sys.argv[1:]]:
    runs = defaultdict(dict)
    for f in sorted(glob.glob(pattern)):
        for line in open(f):
            r = json.loads(line)
            runs[(r["flavour"], r["pair"], r["side"])][(f, r["rep"])] = r["result"]
    for fl, pair in sorted({(k[0], k[1]) for k in runs}, key=lambda k: (k[0] != "openmpi", k[1])):
        nat, shim = runs.get((fl, pair, "native"), {}), runs.get((fl, pair, "shim"), {})
        keys = sorted(set(nat) & set(shim))
        if not keys: continue
        who = fl if pair == "shim-preload" else f"{fl} {pair}"  # each line names what was compared
        ns = [shim[k]["inproc"]["pingpong_diff_ns"]["median"] for k in keys]
        aa = [nat[k]["inproc"]["pingpong_diff_ns"]["median"] for k in keys]
        pct = [100 * shim[k]["inproc"]["pingpong_diff_ns"]["median"] / (1000 * nat[k]["pingpong_half_rtt"]["min"]) for k in keys]
        ar = [shim[k]["inproc"]["allreduce_diff_ns"]["median"] for k in keys]
        base = [nat[k]["pingpong_half_rtt"]["min"] * 1000 for k in keys]
        print(f"{label:5} {who:8} n={len(keys):2}  ping-pong +ns median {statistics.median(ns):5.2f} IQR {q(ns)[0]:5.2f}..{q(ns)[1]:5.2f}"
              f"  +% median {statistics.median(pct):4.2f} IQR {q(pct)[0]:4.2f}..{q(pct)[1]:4.2f}"
              f"  (native best half-RTT median {statistics.median(base):5.1f} ns; A/A {statistics.median(aa):+.2f} ns)"
              f"  allreduce +ns {statistics.median(ar):5.2f} IQR {q(ar)[0]:5.2f}..{q(ar)[1]:5.2f}")
        # Process A/B: each shim run against its adjacent native run (block medians), and how far
        # the shim process's own PMPI_ blocks are from the native run's (a cost outside the wrappers).
        wall = [100 * (shim[k]["pingpong_half_rtt"]["median"] / nat[k]["pingpong_half_rtt"]["median"] - 1) for k in keys]
        pmpi = [100 * (shim[k]["inproc"]["pingpong_pmpi"]["median"] / nat[k]["inproc"]["pingpong_pmpi"]["median"] - 1)
                for k in keys]
        text, ci = spread_and_ci(wall)
        print(f"{'':5} {who:8} n={len(keys):2}  process A/B ping-pong +% {text} -> {verdict(ci)}"
              f"  shim run's PMPI_ blocks vs native's +% median"
              f" {statistics.median(pmpi):5.2f} IQR {q(pmpi)[0]:5.2f}..{q(pmpi)[1]:5.2f}")
        native_pairs = []  # each native run against the previous native run of the same file
        for f in sorted({k[0] for k in nat}):
            reps = sorted(k[1] for k in nat if k[0] == f)
            native_pairs += [100 * (nat[(f, b)]["pingpong_half_rtt"]["median"] / nat[(f, a)]["pingpong_half_rtt"]["median"] - 1)
                             for a, b in zip(reps, reps[1:])]
        if len(native_pairs) >= 2:
            print(f"{'':5} {who:8} n={len(native_pairs):2}  A/A control (native run / the previous native run) +%"
                  f" {spread_and_ci(native_pairs)[0]}")
