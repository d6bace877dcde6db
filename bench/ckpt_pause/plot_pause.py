#!/usr/bin/env python3
"""The checkpoint pause against the image size per rank, from the JSON lines of bench/ckpt_pause.sh
(one file per MPI, or several): prints the median pause and write time per MPI, size and writing mode,
and with --out draws them (log-log) with issue 16's target, 0.1 s per GB, and DMTCP's blocking
≈ 7 s per GB (docs/reference-numbers.md, "Measured on this project's machines") as lines.

    plot_pause.py FILE.jsonl [FILE.jsonl ...] [--out pause.png]
"""
import argparse
import json
import os
import statistics
import sys

TARGET_S_PER_GB = 0.1
DMTCP_S_PER_GB = 7.0


def medians(paths):
    """{(mpi, background): [(MiB per rank, median pause s, median write s, checkpoints), ...]} by size."""
    samples = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    key = (r["mpi"], r["background"], r["mib_per_rank"])
                    samples.setdefault(key, []).append((r["pause_s"], r["write_s"]))
    out = {}
    for (mpi, mode, mib), rows in sorted(samples.items()):
        out.setdefault((mpi, mode), []).append(
            (mib, statistics.median(p for p, _ in rows), statistics.median(w for _, w in rows), len(rows)))
    return out


def table(series):
    lines = ["| MPI | writing | MiB/rank | checkpoints | pause s (median) | write s (median) |",
             "|---|---|---|---|---|---|"]
    for (mpi, mode), points in series.items():
        for mib, pause, write, n in points:
            lines.append(f"| {mpi} | {'background' if mode == 'on' else 'foreground'} | {mib} | {n} | "
                         f"{pause:.3f} | {write:.3f} |")
    return lines


def plot(series, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    styles = {"on": "-o", "off": "--s"}
    for (mpi, mode), points in series.items():
        ax.plot([p[0] for p in points], [p[1] for p in points], styles.get(mode, "-"),
                label=f"{mpi}, {'background' if mode == 'on' else 'foreground'} write")
    sizes = sorted({p[0] for points in series.values() for p in points})
    if sizes:
        gb = [s * 2**20 / 1e9 for s in sizes]
        ax.plot(sizes, [TARGET_S_PER_GB * g for g in gb], ":", color="k", label="0.1 s/GB (target)")
        ax.plot(sizes, [DMTCP_S_PER_GB * g for g in gb], ":", color="tab:red", label="DMTCP blocking ≈ 7 s/GB")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("image size per rank (MiB)")
    ax.set_ylabel("pause (s): GO to the application running again")
    ax.set_title("checkpoint pause vs image size (median over checkpoints, slowest rank)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(prog="plot_pause.py")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    for p in a.files:
        if not os.path.isfile(p):
            print(f"plot_pause.py: {p}: no such file", file=sys.stderr)
            return 2
    series = medians(a.files)
    print("\n".join(table(series)))
    if a.out:
        plot(series, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
