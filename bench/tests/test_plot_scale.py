#!/usr/bin/env python3
"""bench.scale.plot: plot_scale.py's medians per rank count, growth exponents and plot file."""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(os.path.dirname(here), "scale", "plot_scale.py")


def check(cond, msg):
    if not cond:
        print("FAIL:", msg)
        sys.exit(1)


def result(ranks, cpu, msgs_in):
    return (f"RESULT ranks={ranks} nodes={ranks // 16} path=relayed traffic=halo cut_rounds=1 latency_s=1.0 "
            f"cpu_per_round_s={cpu} worst_cpu_s={cpu} net_cpu_per_round_s={cpu / 2} peak_rss_mib=10.0 "
            f"msgs_in={msgs_in} msgs_out=4 detect_s=1.25 false_losses=0 plan_auto_s=0.01\n")


with tempfile.TemporaryDirectory() as d:
    data = os.path.join(d, "runs.txt")
    with open(data, "w") as f:
        f.write("scale: a line that is not a result\n")
        f.write(result(64, 0.1, 12) + result(64, 0.3, 12) + result(64, 0.2, 12))  # median 0.2
        f.write(result(1024, 3.2, 192))
    png = os.path.join(d, "scale.png")
    # /usr/bin/python3: matplotlib is Debian's (python3-matplotlib).
    out = subprocess.run(["/usr/bin/python3", script, data, "--out", png], capture_output=True, text=True)
    check(out.returncode == 0, f"exit {out.returncode}: {out.stderr}")
    lines = out.stdout.splitlines()
    check(any(l.startswith("| 64 | 4 | 1 | 0.2 | 0.1 | 10 | 12 | 4 | 0.01 | 1.25 |") for l in lines),
          f"median row of 64 ranks: {lines}")
    check(any(l.startswith("| 1,024 | 64 | 1 | 3.2 | 1.6 | 10 | 192 | 4 |") for l in lines), f"row of 1,024: {lines}")
    # 0.2 -> 3.2 over 64 -> 1,024: y ~ N^1.00; 12 -> 192: N^1.00; constant: N^0.00.
    check(lines[-1] == "| growth | | N^0.00 | N^1.00 | N^1.00 | N^0.00 | N^1.00 | N^0.00 | N^0.00 | N^0.00 |",
          f"growth row: {lines[-1]}")
    check(os.path.getsize(png) > 1000, "no plot written")
    empty = os.path.join(d, "empty.txt")
    open(empty, "w").close()
    out = subprocess.run(["/usr/bin/python3", script, empty], capture_output=True, text=True)
    check(out.returncode == 1 and "no RESULT line in" in out.stderr, f"empty input: {out.returncode} {out.stderr}")
print("ok")
