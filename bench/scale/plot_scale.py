#!/usr/bin/env python3
"""The front end's figures against the job's size, from the RESULT lines of bench/scale's harness
(one run per size, or several: the medians are taken): prints a table per rank count with the
growth exponent between the smallest and the largest size (y ~ N^k), and with --out draws them
(log-log) with the issue's targets (1 s of front-end CPU per round, 1 GiB, 1 s of planning, 2 s of
detection).

    plot_scale.py FILE [FILE ...] [--out scale.png]
"""
import argparse
import math
import statistics
import sys

# (RESULT key, column title, target or None)
FIGURES = [
    ("latency_s", "prepare->commit s", None),
    ("cpu_per_round_s", "front-end CPU per round s", 1.0),
    ("net_cpu_per_round_s", "net of heartbeats s", 1.0),
    ("peak_rss_mib", "peak MiB", 1024.0),
    ("msgs_in", "messages in per round", None),
    ("msgs_out", "messages out per round", None),
    ("plan_node_s", "planning (node) s", 1.0),
    ("plan_balanced_s", "planning (balanced) s", 1.0),
    ("plan_comm_s", "planning (comm) s", 1.0),
    ("plan_speed_s", "planning (speed) s", 1.0),
    ("plan_auto_s", "planning (auto) s", 1.0),
    ("detect_s", "loss detected after s", 2.0),
]


def results(paths):
    """{ranks: {key: [values]}} from every RESULT line of the files."""
    by_ranks = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if not line.startswith("RESULT "):
                    continue
                fields = dict(word.split("=", 1) for word in line.split()[1:] if "=" in word)
                row = by_ranks.setdefault(int(fields["ranks"]), {"nodes": [int(fields["nodes"])]})
                for key, _, _ in FIGURES:
                    if key in fields:
                        row.setdefault(key, []).append(float(fields[key]))
    return {n: {k: statistics.median(v) for k, v in row.items()} for n, row in sorted(by_ranks.items())}


def exponent(points):
    """k of y ~ N^k between the first and the last point with a positive value."""
    points = [(n, y) for n, y in points if y > 0]
    if len(points) < 2 or points[0][0] == points[-1][0]:
        return None
    (n0, y0), (n1, y1) = points[0], points[-1]
    return math.log(y1 / y0) / math.log(n1 / n0)


def table(rows):
    keys = [k for k, _, _ in FIGURES if any(k in r for r in rows.values())]
    titles = {k: t for k, t, _ in FIGURES}
    lines = ["| ranks | nodes | " + " | ".join(titles[k] for k in keys) + " |",
             "|---" * (len(keys) + 2) + "|"]
    for n, r in rows.items():
        cells = [f"{r[k]:.4g}" if k in r else "-" for k in keys]
        lines.append(f"| {n:,} | {int(r['nodes']):,} | " + " | ".join(cells) + " |")
    growth = []
    for k in keys:
        k_exp = exponent([(n, r[k]) for n, r in rows.items() if k in r])
        growth.append("-" if k_exp is None else f"N^{k_exp:.2f}")
    lines.append("| growth | | " + " | ".join(growth) + " |")
    return lines


def plot(rows, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [("front-end CPU per round (s)", ["cpu_per_round_s", "net_cpu_per_round_s", "latency_s"], 1.0),
              ("messages per round at the front end", ["msgs_in", "msgs_out"], None),
              ("front-end peak memory (MiB)", ["peak_rss_mib"], 1024.0),
              ("after a node loss (s)", ["detect_s", "plan_node_s", "plan_balanced_s", "plan_comm_s",
                                         "plan_speed_s", "plan_auto_s"], None)]
    titles = {k: t for k, t, _ in FIGURES}
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    ranks = list(rows)
    for ax, (title, keys, target) in zip(axes.flat, panels):
        for k in keys:
            pts = [(n, r[k]) for n, r in rows.items() if k in r and r[k] > 0]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "-o", label=titles[k])
        if target:
            ax.axhline(target, color="k", linestyle=":", label="target")
        if title.startswith("messages"):
            ax.plot(ranks, [rows[n]["nodes"] * 4 for n in ranks], ":", color="gray", label="4 per node")
        if title.startswith("after"):
            ax.axhline(2.0, color="tab:red", linestyle=":", label="detection target 2 s")
            ax.axhline(1.0, color="k", linestyle=":", label="planning target 1 s")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ranks (16 per node)")
        ax.set_title(title)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--out")
    args = parser.parse_args()
    rows = results(args.files)
    if not rows:
        sys.exit("plot_scale.py: no RESULT line in " + ", ".join(args.files))
    print("\n".join(table(rows)))
    if args.out:
        plot(rows, args.out)


if __name__ == "__main__":
    main()
