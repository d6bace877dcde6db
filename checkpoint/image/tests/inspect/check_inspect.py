#!/usr/bin/env python3
"""Checks `yadokari inspect` output.

usage: check_inspect.py table|verify YADOKARI IMAGE EXPECTED   (EXPECTED has @IMAGE@ for the path)
       check_inspect.py json YADOKARI IMAGE
       check_inspect.py escapes YADOKARI IMAGE   (control bytes in names are shown as \\xNN)
       check_inspect.py chain YADOKARI IMAGE     (an increment: its parent, chain and delta areas)
       check_inspect.py dmtcp YADOKARI DIR       (an image DMTCP would write, written here into DIR)
       check_inspect.py dmtcp_layout YADOKARI IMAGE GOOD   (yadokari's image in DMTCP's layout: the
                                                 same areas and checksums as GOOD, its own format)
"""
import gzip
import json
import os
import struct
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


def dmtcp_record(fields, texts):
    """One 4096-byte DMTCP record: little-endian integers and NUL-padded strings at their offsets
    (docs/formats/dmtcp-image.md)."""
    record = bytearray(4096)
    for offset, fmt, value in fields:
        struct.pack_into("<" + fmt, record, offset, value)
    for offset, text in texts:
        record[offset:offset + len(text)] = text.encode()
    return bytes(record)


def dmtcp_image():
    """A gzip DMTCP image of a process 'solver': a file mapping, a heap split into a data run and a
    zero run under its parent record, then DMTCP's end record."""
    header = dmtcp_record([(104, "i", 4242), (108, "i", 17), (128, "I", 4), (132, "I", 1)],
                          [(0, "DMTCP_CHECKPOINT_IMAGE_v4.0\n"), (256, "solver"), (1280, "/opt/app/solver")])

    def area(start, size, prot, flags, properties, file_size, name):
        return dmtcp_record([(0, "Q", start), (8, "Q", start + size), (16, "Q", size), (32, "Q", prot),
                             (40, "Q", flags), (72, "q", file_size), (80, "Q", properties)], [(88, name)])
    private, anonymous = 0x02, 0x20
    body = header + header
    body += area(0x400000, 0x3000, 5, private, 0, 0x2100, "/opt/app/solver") + b"\xc3" * 0x2100
    body += area(0x600000, 0x4000, 3, private | anonymous, 0x2, -1, "[heap]")
    body += area(0x600000, 0x1000, 3, private | anonymous, 0x4, -1, "[heap]") + b"\x5a" * 0x1000
    body += area(0x601000, 0x3000, 3, private | anonymous, 0x5, -1, "[heap]")
    body += dmtcp_record([(16, "Q", 2**64 - 1)], [])
    return body


def check_dmtcp(yadokari, directory):
    os.makedirs(directory, exist_ok=True)
    image = os.path.join(directory, "ckpt_solver.dmtcp")
    body = dmtcp_image()
    with gzip.open(image, "wb") as f:
        f.write(body)
    expected = (f"image     {image}\n"
                f"format    DMTCP_CHECKPOINT_IMAGE_v4.0, gzip, {len(body)} bytes uncompressed\n"
                "process   solver (pid 4242, parent 17), /opt/app/solver\n"
                "peers     4 process(es) in the checkpointed computation\n"
                "areas     2 mappings (4 records), 28672 bytes in memory, 12544 bytes stored\n"
                "  #  start               end                 prot  kind               stored  name\n"
                "  0  0x0000000000400000  0x0000000000403000  r-xp  file                 8448  /opt/app/solver\n"
                "  1  0x0000000000600000  0x0000000000604000  rw-p  anon, runs follow       0  [heap]\n"
                "  2  0x0000000000600000  0x0000000000601000  rw-p  data run             4096  [heap]\n"
                "  3  0x0000000000601000  0x0000000000604000  rw-p  zero run                0  [heap]\n")
    compare(run(yadokari, "inspect", image), expected)
    listing = json.loads(run(yadokari, "inspect", "--json", image))
    assert listing["format"] == "dmtcp" and listing["pid"] == 4242 and listing["gzip"], listing
    assert [a["stored_bytes"] for a in listing["areas"]] == [0x2100, 0, 0x1000, 0], listing["areas"]
    # Cut inside the heap's data run: one line, exit 1.
    with gzip.open(image, "wb") as f:
        f.write(body[:4 * 4096 + 0x2100 + 4096 + 100])
    result = subprocess.run([yadokari, "inspect", image], capture_output=True, text=True)
    want = f"yadokari: {image}: ends inside the data of area 2 ('[heap]')\n"
    if result.returncode != 1 or result.stderr != want or result.stdout:
        sys.exit(f"truncated DMTCP image: exit {result.returncode}, stderr {result.stderr!r}, expected {want!r}")


def check_dmtcp_layout(yadokari, image, good):
    out = run(yadokari, "inspect", "--verify", image)
    size = os.path.getsize(image)
    for line in [f"format    version 1 in DMTCP's layout (DMTCP_CHECKPOINT_IMAGE_v4.0), {size} bytes\n",
                 "verified  all 5 area checksums match\n"]:
        if line not in out:
            sys.exit(f"missing {line!r} in:\n{out}")
    rows = {line.split()[5]: line for line in out.splitlines() if line.split() and line.split()[0].isdigit()}
    for name in ["data", "heap", "stack"]:
        if "dmtcp part" not in rows[name]:
            sys.exit(f"area {name} is not shown in the DMTCP part:\n{out}")
    listing = json.loads(run(yadokari, "inspect", "--json", image))
    reference = json.loads(run(yadokari, "inspect", "--json", good))
    assert listing["layout"] == "dmtcp" and "layout" not in reference, listing
    same = ["index", "address", "length", "protection", "kind", "name", "checksum"]
    assert [[a[k] for k in same] for a in listing["areas"]] == [[a[k] for k in same] for a in reference["areas"]], \
        (listing["areas"], reference["areas"])
    # DMTCP's zero-page runs: the heap's pages 2-5 and the whole stack are zero runs, storing nothing;
    # the data's single zero page stays in its record.
    stored = [(a["stored_length"], a["zero_pages"]) for a in listing["areas"]][:3]
    assert stored == [(12288, 0), (16484, 4), (0, 4)], stored


def main():
    mode, yadokari, image = sys.argv[1:4]
    if mode == "dmtcp":
        check_dmtcp(yadokari, image)
        return
    if mode == "dmtcp_layout":
        check_dmtcp_layout(yadokari, image, sys.argv[4])
        return
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
