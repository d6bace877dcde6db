#!/usr/bin/env python3
"""bench.ckpt-pause.plot: plot_pause.py's medians per MPI, writing mode and size, and its plot file."""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(os.path.dirname(here), "ckpt_pause", "plot_pause.py")


def check(cond, msg):
    if not cond:
        print("FAIL:", msg)
        sys.exit(1)


rows = [("mpich", 64, "on", 0.05, 0.4), ("mpich", 64, "on", 0.10, 0.5), ("mpich", 64, "on", 0.06, 0.9),
        ("mpich", 64, "off", 0.2, 0.2), ("mpich", 1, "on", 0.04, 0.03), ("openmpi", 64, "on", 0.055, 0.39)]
with tempfile.TemporaryDirectory() as d:
    data = os.path.join(d, "pause.jsonl")
    with open(data, "w") as f:
        for epoch, (mpi, mib, mode, pause, write) in enumerate(rows, 1):
            f.write(f'{{"mpi": "{mpi}", "mib_per_rank": {mib}, "background": "{mode}", "epoch": {epoch}, '
                    f'"pause_s": {pause}, "write_s": {write}, "image_bytes": {mib * 1048576}}}\n')
    png = os.path.join(d, "pause.png")
    # /usr/bin/python3: matplotlib is Debian's (python3-matplotlib).
    out = subprocess.run(["/usr/bin/python3", script, data, "--out", png], capture_output=True, text=True)
    check(out.returncode == 0, f"exit {out.returncode}: {out.stderr}")
    lines = out.stdout.splitlines()
    check("| mpich | background | 64 | 3 | 0.060 | 0.500 |" in lines, f"median of three: {lines}")
    check("| mpich | background | 1 | 1 | 0.040 | 0.030 |" in lines, f"one sample: {lines}")
    check("| mpich | foreground | 64 | 1 | 0.200 | 0.200 |" in lines, f"foreground apart: {lines}")
    check("| openmpi | background | 64 | 1 | 0.055 | 0.390 |" in lines, f"per MPI: {lines}")
    check(os.path.getsize(png) > 1000, "no plot written")
    with open(png, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "the plot is not a PNG")
    missing = subprocess.run(["/usr/bin/python3", script, os.path.join(d, "none.jsonl")], capture_output=True,
                             text=True)
    check(missing.returncode == 2 and "none.jsonl: no such file" in missing.stderr, "a missing file")
print("ok")
