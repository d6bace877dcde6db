#!/usr/bin/env python3
"""Prints Elk's EVECFV.OUT with only the rows Elk computes: the rest is zeroed.

Each record of EVECFV.OUT (direct access, one per k-point) is vkl (3 reals), nmatmax, nstfv, nspnfv
(integers) and the eigenvectors as complex(nmatmax, nstfv, nspnfv). The eigensolver fills rows
1..nmat(k) of each vector; rows nmat(k)+1..nmatmax are whatever the freshly allocated array held
(Elk never writes them), so they are not results. nmat(k) comes from KPOINTS.OUT, which is compared
byte for byte on its own (bench/apps/elk.sh).

usage: elk_evecfv_defined.py EVECFV.OUT KPOINTS.OUT > masked
"""
import struct
import sys

HEADER = struct.Struct("<3d3i")
COMPLEX_BYTES = 16


def nmat_per_kpoint(kpoints_path):
    """KPOINTS.OUT: a header line, then `k vkl(3) wkpt nmat` per k-point."""
    with open(kpoints_path, encoding="ascii") as f:
        lines = f.read().splitlines()
    return [int(line.split()[5]) for line in lines[1:] if line.strip()]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: elk_evecfv_defined.py EVECFV.OUT KPOINTS.OUT")
    data = bytearray(open(sys.argv[1], "rb").read())
    nmat = nmat_per_kpoint(sys.argv[2])
    if len(data) < HEADER.size:
        sys.exit(f"elk_evecfv_defined: {sys.argv[1]} is shorter than one record header")
    _, _, _, nmatmax, nstfv, nspnfv = HEADER.unpack_from(data, 0)
    record = HEADER.size + COMPLEX_BYTES * nmatmax * nstfv * nspnfv
    if len(data) != record * len(nmat):
        sys.exit(f"elk_evecfv_defined: {sys.argv[1]} has {len(data)} bytes, expected {len(nmat)} records of {record}")
    for k, rows in enumerate(nmat):
        if not 0 < rows <= nmatmax:
            sys.exit(f"elk_evecfv_defined: k-point {k + 1} has nmat {rows}, nmatmax is {nmatmax}")
        for vector in range(nstfv * nspnfv):
            start = k * record + HEADER.size + COMPLEX_BYTES * (vector * nmatmax + rows)
            end = k * record + HEADER.size + COMPLEX_BYTES * (vector + 1) * nmatmax
            data[start:end] = bytes(end - start)
    sys.stdout.buffer.write(data)


if __name__ == "__main__":
    main()
