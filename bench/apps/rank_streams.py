#!/usr/bin/env python3
"""Each rank's stdout out of `mpirun --tag-output` output: "RANK:line" for every line of rank 0's
stream in order, then rank 1's, ...; lines that carry no tag (the launcher's own) first, as they
are.

The launcher puts the tag in front of every piece of output it reads at a time and of every line
in it, so a line a rank wrote in two pieces comes out as "[1,0]<stdout>:text[1,0]<stdout>:rest"
(or with another rank's lines between its pieces). How a line is cut depends on timing, so the
tags are the boundaries: the text after a tag up to its first newline is that rank's.

usage: rank_streams.py FILE
"""
import re
import sys

TAG = re.compile(rb"\[\d+,(\d+)\]<stdout>:")


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    parts = TAG.split(data)  # untagged, rank, text, rank, text, ...
    untagged = [parts[0]]
    streams = {}
    for i in range(1, len(parts), 2):
        rank, text = int(parts[i]), parts[i + 1]
        end = text.find(b"\n") + 1 or len(text)
        streams.setdefault(rank, []).append(text[:end])
        untagged.append(text[end:])
    out = sys.stdout.buffer
    for line in b"".join(untagged).splitlines():
        out.write(line + b"\n")
    for rank in sorted(streams):
        for line in b"".join(streams[rank]).splitlines():
            out.write(b"%d:%s\n" % (rank, line))


if __name__ == "__main__":
    main()
