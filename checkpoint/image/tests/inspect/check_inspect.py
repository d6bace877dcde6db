#!/usr/bin/env python3
"""Checks `yadokari inspect` output.

usage: check_inspect.py table|verify YADOKARI IMAGE EXPECTED   (EXPECTED has @IMAGE@ for the path)
       check_inspect.py json YADOKARI IMAGE
       check_inspect.py escapes YADOKARI IMAGE   (control bytes in names are shown as \\xNN)
       check_inspect.py chain YADOKARI IMAGE     (an increment: its parent, chain and delta areas)
"""
import json
import os
import subprocess
import sys


def run(*args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0 or result.stderr:
        sys.exit(f"{' '.join(args)}: exit {result.returncode}, stderr: {result.stderr!r}")
    return result.stdout


def compare(actual, expected):
    if actual == expected:
        return
    print("expected:\n" + expected + "\ngot:\n" + actual)
    sys.exit(1)


def main():
    mode, yadokari, image = sys.argv[1:4]
    if mode in ("table", "verify"):
        with open(sys.argv[4]) as f:
            expected = f.read().replace("@IMAGE@", image)
        if mode == "table":
            compare(run(yadokari, "inspect", image), expected)
        else:
            compare(run(yadokari, "inspect", "--verify", image),
                    expected + "verified  all 5 area checksums match\n")
        return
    if mode == "chain":
        out = run(yadokari, "inspect", "--verify", image)
        top = os.path.dirname(os.path.dirname(image))
        for line in ["parent    epoch 8 (header ", "): an increment\n",
                     "chain     3 images, base epoch 7\n",
                     f"  epoch 7      full      ", f" bytes  {top}/7/rank-2.img\n",
                     f"  epoch 8      increment ", f" bytes  {top}/8/rank-2.img\n",
                     "verified  every image of the chain, and its links\n"]:
            if line not in out:
                sys.exit(f"missing {line!r} in:\n{out}")
        heap = [line for line in out.splitlines() if " heap " in line][0]
        stack = [line for line in out.splitlines() if " stack " in line][0]
        # The heap's short last page is never wholly inside the parent's length: stored every time.
        if "delta 1/9" not in heap or "delta 1/4" not in stack:
            sys.exit(f"the delta areas do not show their stored pages:\n{out}")
        listing = json.loads(run(yadokari, "inspect", "--json", image))
        assert listing["format_version"] == 2 and listing["parent"]["epoch"] == 8, listing
        assert [link["epoch"] for link in listing["chain"]] == [7, 8, 9], listing["chain"]
        assert [link["kind"] for link in listing["chain"]] == ["full", "increment", "increment"], listing["chain"]
        return
    if mode == "escapes":
        out = run(yadokari, "inspect", image)
        controls = sorted({hex(ord(c)) for c in out if ord(c) < 0x20 and c != "\n"})
        if controls:
            sys.exit(f"raw control characters in the listing: {controls}\n{out!r}")
        if "/opt/app/evil\\x1b[2J\\x0a.so" not in out:
            sys.exit(f"the area name is not shown escaped:\n{out}")
        return
    listing = json.loads(run(yadokari, "inspect", "--json", "--verify", image))
    checks = {
        "path": image, "format_version": 1, "job_id": "yk-inspect-test", "rank": 2, "world_size": 4,
        "epoch": 7, "flavour": "mpich", "created": "2023-11-14T22:13:20Z", "verified": True,
    }
    for key, value in checks.items():
        if listing[key] != value:
            sys.exit(f"{key}: expected {value!r}, got {listing[key]!r}")
    binaries = listing["binaries"]
    assert binaries[0] == {"path": "/opt/app/bin/solver", "identity": "build-id",
                           "id": "3f2a0011feedbeef0102030405060708090a0b0c", "size": 123456}, binaries[0]
    assert binaries[1]["identity"] == "xxh64" and binaries[1]["id"] == "0123456789abcdef", binaries[1]
    areas = {area["name"]: area for area in listing["areas"]}
    assert list(areas) == ["data", "heap", "stack", "registers", "mpi"], list(areas)
    heap = areas["heap"]
    assert heap["address"] == "0x7f0000000000" and heap["kind"] == "heap-arena", heap
    assert heap["length"] == 8 * 4096 + 100 and heap["pages"] == 9 and heap["zero_pages"] == 4, heap
    assert heap["compression"] == "zstd" and heap["stored_length"] < 5 * 4096, heap
    assert heap["protection"] == "rw-" and len(heap["checksum"]) == 16, heap
    assert areas["stack"]["compression"] == "none" and areas["stack"]["zero_pages"] == 4, areas["stack"]
    assert areas["registers"]["address"] == "0x0" and areas["registers"]["protection"] == "r--", areas["registers"]


if __name__ == "__main__":
    main()
