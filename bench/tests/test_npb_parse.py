#!/usr/bin/env python3
"""bench.npb_parse: NPB output parsing on recorded outputs (tests/data) and checkpoint-directory reading."""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.dirname(here)
sys.dont_write_bytecode = True
sys.path.insert(0, bench)
import npb_parse  # noqa: E402

data = os.path.join(here, "data")


def read(name):
    with open(os.path.join(data, name)) as f:
        return f.read()


def check(cond, msg):
    if not cond:
        print("FAIL:", msg)
        sys.exit(1)


# Fortran kernel (CG class A, Open MPI)
r = npb_parse.parse_npb_output(read("npb_cg.A.openmpi.native.log"))
check(r["npb_benchmark"] == "CG", r)
check(r["npb_class"] == "A" and r["size"] == "14000" and r["iterations"] == 15, r)
check(r["verification"] == "SUCCESSFUL" and r["npb_processes"] == 4, r)
check(isinstance(r["npb_seconds"], float) and r["npb_seconds"] > 0, r)
check(isinstance(r["mops_total"], float) and r["mops_total"] > 0, r)

# C kernel (IS class S, MPICH): "IS Benchmark Completed" without a period
r = npb_parse.parse_npb_output(read("npb_is.S.mpich.native.log"))
check(r["npb_benchmark"] == "IS" and r["npb_class"] == "S" and r["size"] == "65536", r)
check(r["iterations"] == 10 and r["verification"] == "SUCCESSFUL", r)
check(abs(r["npb_seconds"] - 0.80) < 1e-9 and abs(r["mops_total"] - 0.82) < 1e-9, r)

# A run cut off before NPB's report: no time, verification "missing"
r = npb_parse.parse_npb_output(read("npb_cg.A.openmpi.truncated.log"))
check(r["verification"] == "missing" and "npb_seconds" not in r, r)

# yadokari's own lines (stop after epoch)
lines = npb_parse.yadokari_lines(read("npb_cg.A.openmpi.restart.stop.log"))
check(lines == ["yadokari: stopped after epoch 1 as requested (--stop-after-epoch)"], lines)

# A checkpoint directory: epochs 3 (pruned) .. 5, 6 uncommitted; sizes from the newest MANIFEST
with tempfile.TemporaryDirectory() as d:
    for e, committed in ((4, True), (5, True), (6, False)):
        os.makedirs(os.path.join(d, str(e)))
        for rank in range(2):
            with open(os.path.join(d, str(e), f"rank-{rank}.img"), "wb") as f:
                f.write(b"x" * (100 + rank + e))
        if committed:
            man = {"format": 1, "epoch": e, "world_size": 2,
                   "images": [{"rank": 1, "file": "rank-1.img", "size": 101 + e,
                               "drain_seconds": 0.25, "write_seconds": e / 4},
                              {"rank": 0, "file": "rank-0.img", "size": 100 + e,
                               "drain_seconds": 0.5, "write_seconds": 0.5}]}
            with open(os.path.join(d, str(e), "MANIFEST"), "w") as f:
                json.dump(man, f)
    with open(os.path.join(d, "job.json"), "w") as f:
        f.write("{}")
    info = npb_parse.checkpoint_info(d, "yadokari: checkpoint epoch 2 abandoned: rank 1 reached MPI_Finalize\n")
    check(info["newest_epoch"] == 5 and info["epochs_on_disk"] == 2, info)
    check(info["epochs"] == 4 and info["epochs_abandoned"] == 1, info)
    check(info["image_bytes_per_rank"] == [105, 106] and info["image_bytes_total"] == 211, info)
    # pause per committed epoch: the slowest rank's drain + write (epoch 4: rank 1 1.25 s; 5: 1.5 s)
    check(info["pause_seconds"] == [1.25, 1.5], info)
    # the command line: one JSON object with the --set/--num fields
    out = subprocess.run([sys.executable, os.path.join(bench, "npb_parse.py"),
                          "--log", os.path.join(data, "npb_cg.A.openmpi.restart.log"),
                          "--log2", os.path.join(data, "npb_cg.A.openmpi.restart.stop.log"),
                          "--ckpt-dir", d, "--set", "mode=restart", "--num", "wall_seconds=1.5",
                          "--num", "rep=0", "--num", "load_before="],
                         check=True, capture_output=True, text=True).stdout
    rec = json.loads(out)
    check(rec["mode"] == "restart" and rec["wall_seconds"] == 1.5 and rec["rep"] == 0, rec)
    check(rec["load_before"] is None and rec["verification"] == "SUCCESSFUL", rec)
    check(rec["yadokari_lines"][0].startswith("yadokari: stopped after epoch 1"), rec)
    check(rec["epochs"] == 5 and rec["image_bytes_total"] == 211, rec)

# missing checkpoint directory
info = npb_parse.checkpoint_info("/nonexistent/ckpt")
check(info["epochs"] == 0 and info["image_bytes_per_rank"] is None and info["pause_seconds"] is None, info)

# a MANIFEST from before the ranks' times were recorded: no pause, sizes as before
with tempfile.TemporaryDirectory() as d:
    os.makedirs(os.path.join(d, "1"))
    with open(os.path.join(d, "1", "MANIFEST"), "w") as f:
        json.dump({"format": 1, "epoch": 1, "images": [{"rank": 0, "file": "rank-0.img", "size": 7}]}, f)
    info = npb_parse.checkpoint_info(d)
    check(info["pause_seconds"] is None and info["image_bytes_total"] == 7, info)
print("ok")
