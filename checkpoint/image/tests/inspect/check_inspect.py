#!/usr/bin/env python3
"""Checks `yadokari inspect` output.

usage: check_inspect.py table|verify YADOKARI IMAGE EXPECTED   (EXPECTED has @IMAGE@ for the path)
       check_inspect.py json YADOKARI IMAGE
       check_inspect.py escapes YADOKARI IMAGE   (control bytes in names are shown as \\xNN)
"""
import json
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
