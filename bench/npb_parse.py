#!/usr/bin/env python3
"""Turn one NPB run (its output log, and for checkpointing runs its checkpoint directory) into one JSON
object, printed on stdout. Used by bench/npb.sh; importable for the tests.

  npb_parse.py --log FILE [--log2 FILE] [--ckpt-dir DIR] [--set key=value ...] [--num key=value ...]

--log     the run's combined stdout+stderr (for restart mode: the restarted part, which prints NPB's result)
--log2    restart mode only: the first (stopped) part; its yadokari lines are kept too
--ckpt-dir  count epochs, read image sizes from the newest committed epoch's MANIFEST and the ranks'
          checkpoint pauses (drain + write seconds) from every committed MANIFEST left on disk
--set     string fields copied into the record; --num numeric fields (int or float; '' or '-' = null)
"""
import argparse
import glob
import json
import os
import re
import sys

# "Key = value" lines of NPB's final report (both C and Fortran kernels print them this way).
_FIELDS = {
    "Class": ("npb_class", str),
    "Size": ("size", str),
    "Iterations": ("iterations", int),
    "Time in seconds": ("npb_seconds", float),
    "Total processes": ("npb_processes", int),
    "Active processes": ("npb_active_processes", int),
    "Active procs": ("npb_active_processes", int),
    "Mop/s total": ("mops_total", float),
    "Mop/s/process": ("mops_per_process", float),
    "Verification": ("verification", str),
    "Version": ("npb_version", str),
}
_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z /]*?)\s*=\s*(.*?)\s*$")
_BENCH = re.compile(r"^\s*([A-Z]{2}) Benchmark Completed\.?\s*$")


def parse_npb_output(text):
    """The fields of NPB's final report in `text` (the last report wins). Missing fields are absent;
    'verification' is 'SUCCESSFUL' / 'UNSUCCESSFUL' / 'missing'."""
    out = {}
    for line in text.splitlines():
        m = _BENCH.match(line)
        if m:
            out["npb_benchmark"] = m.group(1)
            continue
        m = _LINE.match(line)
        if not m:
            continue
        key, val = m.group(1).strip(), m.group(2).strip()
        if key not in _FIELDS:
            continue
        name, conv = _FIELDS[key]
        try:
            out[name] = conv(val)
        except ValueError:
            continue
    if "size" in out:  # "14000" or "64x 64x 64" (NPB pads with blanks)
        out["size"] = re.sub(r"\s+", "", out["size"])
    out.setdefault("verification", "missing")
    return out


def yadokari_lines(text, limit=20):
    """The front end's own lines ('yadokari: ...'), at most `limit` (first ones)."""
    lines = [l.strip() for l in text.splitlines() if l.lstrip().startswith("yadokari:")]
    return lines[:limit]


def checkpoint_info(ckpt_dir, log_text=""):
    """Epoch count and image sizes of a checkpoint directory written by one fresh `yadokari run`.
    Epoch numbers start at 1 in a fresh directory and are never reused, so the highest committed epoch is
    the number of epochs started up to it; older ones may have been pruned (--keep)."""
    info = {"epochs": 0, "epochs_on_disk": 0, "epochs_abandoned": 0, "epochs_failed": 0,
            "image_bytes_per_rank": None, "image_bytes_total": None, "newest_epoch": None,
            "pause_seconds": None}
    committed = []
    if ckpt_dir and os.path.isdir(ckpt_dir):
        for d in os.listdir(ckpt_dir):
            if d.isdigit() and os.path.isfile(os.path.join(ckpt_dir, d, "MANIFEST")):
                committed.append(int(d))
    committed.sort()
    info["epochs_on_disk"] = len(committed)
    info["epochs_abandoned"] = len(re.findall(r"checkpoint epoch \d+ abandoned", log_text))
    info["epochs_failed"] = len(re.findall(r"checkpoint epoch \d+ failed", log_text))
    if committed:
        newest = committed[-1]
        info["newest_epoch"] = newest
        # committed = highest number minus the epochs that never committed before it
        info["epochs"] = max(newest - info["epochs_abandoned"] - info["epochs_failed"], len(committed))
        try:
            with open(os.path.join(ckpt_dir, str(newest), "MANIFEST")) as f:
                man = json.load(f)
            imgs = sorted(man.get("images", []), key=lambda i: i.get("rank", 0))
            sizes = [int(i["size"]) for i in imgs]
        except (OSError, ValueError, KeyError, TypeError):
            sizes = [os.path.getsize(p) for p in
                     sorted(glob.glob(os.path.join(ckpt_dir, str(newest), "rank-*.img")))]
        info["image_bytes_per_rank"] = sizes
        info["image_bytes_total"] = sum(sizes)
        pauses = [p for p in (epoch_pause(ckpt_dir, e) for e in committed) if p is not None]
        info["pause_seconds"] = pauses or None
    return info


def epoch_pause(ckpt_dir, epoch):
    """The checkpoint pause of one committed epoch: the slowest rank's pause as the ranks reported it in
    the MANIFEST (pause_seconds; drain + write seconds in MANIFESTs without it); None if the MANIFEST
    has no such times (older format)."""
    try:
        with open(os.path.join(ckpt_dir, str(epoch), "MANIFEST")) as f:
            images = json.load(f).get("images", [])
        pauses = [float(i.get("pause_seconds") or 0) or float(i["drain_seconds"]) + float(i["write_seconds"])
                  for i in images]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return max(pauses) if pauses and max(pauses) > 0 else None


def _num(v):
    if v in ("", "-", None):
        return None
    try:
        return int(v)
    except ValueError:
        return float(v)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", required=True)
    ap.add_argument("--log2")
    ap.add_argument("--ckpt-dir")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--num", action="append", default=[])
    a = ap.parse_args(argv)
    rec = {}
    for kv in a.set:
        k, _, v = kv.partition("=")
        rec[k] = v
    for kv in a.num:
        k, _, v = kv.partition("=")
        rec[k] = _num(v)
    try:
        text = open(a.log, errors="replace").read()
    except OSError:
        text = ""
    text2 = ""
    if a.log2:
        try:
            text2 = open(a.log2, errors="replace").read()
        except OSError:
            pass
    rec.update(parse_npb_output(text))
    lines = yadokari_lines(text2) + yadokari_lines(text)
    if lines:
        rec["yadokari_lines"] = lines
    if a.ckpt_dir:
        rec.update(checkpoint_info(a.ckpt_dir, text2 + text))
    print(json.dumps(rec, sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
