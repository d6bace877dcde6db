#!/usr/bin/env python3
"""What an increment stores, area by area, against what actually changed: reads one rank's chain of
images (a full image, then each increment in order; uncompressed, i.e. written with --compress 0) and,
for every increment, prints per memory area its pages, the pages the increment stores (the pages the
tracking saw written since the parent), how many of those hold different bytes than the parent's page
(the least any page-level scheme must store), and the share of changed 8-byte words in the changed
pages (what a scheme below the page could still save). Format: docs/formats/image.md.

  incremental_pages.py [--json] BASE.img INCR.img [INCR.img ...]
"""
import argparse
import json
import struct
import sys

PAGE = 4096
RECORD = 128
FLAG_COMPRESSED, FLAG_ZEROS_ELIDED, FLAG_DELTA = 1, 2, 4


def read_runs(data, at):
    (count,) = struct.unpack_from("<Q", data, at)
    at += 8
    runs = [struct.unpack_from("<QQ", data, at + 16 * i) for i in range(count)]
    return runs, at + 16 * count


def stored_pages(runs, length, data, at):
    """Yields (page index, page bytes) of the pages a run list stores, in order."""
    for first, count in runs:
        for page in range(first, first + count):
            size = min(PAGE, length - page * PAGE)
            yield page, data[at:at + size]
            at += size


def read_image(path):
    """Returns (version, [area dict]); an area: key, name, length, whole (bytes or None), delta pages."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        sys.exit(f"incremental_pages.py: {path}: {e.strerror}")
    if data[:8] != b"YADOKARI":
        sys.exit(f"incremental_pages.py: {path}: not a yadokari image")
    version, header_length = struct.unpack_from("<II", data, 8)
    areas, at = [], header_length
    while data[at:at + 4] == b"AREA":
        kind, flags, address, length, stored = struct.unpack_from("<HHQQQ", data, at + 4)
        name = data[at + 56:at + 120].rstrip(b"\0").decode()
        body, at = data[at + RECORD:at + RECORD + stored], at + RECORD + stored
        if flags & FLAG_COMPRESSED:
            sys.exit(f"incremental_pages.py: {path}: area '{name}' is compressed (write with --compress 0)")
        area = {"key": (kind, name, address), "name": name, "length": length, "stored": stored}
        if flags & FLAG_DELTA:
            runs, start = read_runs(body, 16)
            area["delta"] = dict(stored_pages(runs, length, body, start))
        elif flags & FLAG_ZEROS_ELIDED:
            whole = bytearray(length)
            runs, start = read_runs(body, 0)
            for page, content in stored_pages(runs, length, body, start):
                whole[page * PAGE:page * PAGE + len(content)] = content
            area["whole"] = whole
        else:
            area["whole"] = bytearray(body)
        areas.append(area)
    return version, areas


def changed_words(old, new):
    count = len(new) // 8
    a, b = struct.unpack_from(f"<{count}Q", old), struct.unpack_from(f"<{count}Q", new)
    return sum(1 for x, y in zip(a, b) if x != y), count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON line per increment and area")
    parser.add_argument("images", nargs="+")
    args = parser.parse_args()
    version, areas = read_image(args.images[0])
    if version != 1:
        sys.exit(f"incremental_pages.py: {args.images[0]}: the chain must start with a full image")
    memory = {a["key"]: a["whole"] for a in areas}
    full_bytes = sum(a["stored"] for a in areas)
    for path in args.images[1:]:
        version, areas = read_image(path)
        if version != 2:
            sys.exit(f"incremental_pages.py: {path}: not an increment")
        rows, incr_bytes = [], 0
        for area in areas:
            incr_bytes += area["stored"]
            if "whole" in area:
                memory[area["key"]] = area["whole"]
                rows.append({"area": area["name"], "pages": -(-area["length"] // PAGE), "stored": "whole",
                             "bytes": area["stored"]})
                continue
            parent = memory.get(area["key"], bytearray())
            current = bytearray(parent[:area["length"]].ljust(area["length"], b"\0"))
            changed = words = words_changed = 0
            for page, content in area["delta"].items():
                old = bytes(current[page * PAGE:page * PAGE + len(content)])
                if old != content:
                    changed += 1
                    w, n = changed_words(old, content)
                    words_changed, words = words_changed + w, words + n
                current[page * PAGE:page * PAGE + len(content)] = content
            memory[area["key"]] = current
            rows.append({"area": area["name"], "pages": -(-area["length"] // PAGE), "stored": len(area["delta"]),
                         "changed": changed, "bytes": area["stored"],
                         "changed_word_share": round(words_changed / words, 3) if words else None})
        if args.json:
            for row in rows:
                print(json.dumps({"image": path, **row}))
            continue
        print(f"{path}: {incr_bytes} bytes, {incr_bytes / full_bytes:.3f} of the base image ({full_bytes} bytes)")
        print(f"  {'area':<26} {'pages':>8} {'stored':>8} {'changed':>8} {'words changed':>14}")
        for row in sorted(rows, key=lambda r: -r["bytes"]):
            if row["stored"] == "whole":
                print(f"  {row['area']:<26} {row['pages']:>8} {'whole':>8} {'':>8} {'':>14}")
            else:
                share = "-" if row["changed_word_share"] is None else f"{row['changed_word_share']:.3f}"
                print(f"  {row['area']:<26} {row['pages']:>8} {row['stored']:>8} {row['changed']:>8} {share:>14}")


if __name__ == "__main__":
    try:
        main()
    except struct.error:
        sys.exit("incremental_pages.py: an image ends inside a record or an area (truncated?)")
