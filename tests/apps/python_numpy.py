# Python with Debian's MPI module and numpy (tests/apps/README.md): numpy is imported after the MPI
# module initialised MPI, so numpy's extension modules (and their BLAS) are libraries loaded after
# start, carried across the restart (checkpoint/memory/README.md, "Libraries loaded after start").
# The pause point is pause_point.py's (pause_point.h's loop in Python). Rank 0 prints; every rank writes a file.
import sys

from mpi4py import MPI  # MPI_Init happens here: a restarted process restores inside it

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pause_point import pause_point  # noqa: E402 (tests/apps/pause_point.py)

import numpy as np  # after MPI_Init

comm = MPI.COMM_WORLD
rank = comm.Get_rank()

values = np.arange(2000, dtype=np.float64) * (rank + 1)
matrix = np.linspace(0.0, 1.0, 64 * 64).reshape(64, 64) + rank
history = []
with open("numpy.%d.txt" % rank, "w") as out:
    for iteration in range(12):
        if iteration == 6:
            pause_point(comm)
        values = np.sin(values) * 3.0 + iteration
        matrix = matrix @ matrix.T
        matrix = matrix / np.abs(matrix).max() + np.eye(64)  # bounded: no overflow
        history.append(float(values.sum()))
        total = comm.allreduce(float(values.sum()) + float(matrix.trace()))
        out.write("%d %r %r %r\n" % (iteration, float(values.sum()), float(matrix.trace()), total))
        if rank == 0:
            print("iteration %d: %r" % (iteration, total), flush=True)
if rank == 0:
    print("history %r" % (sum(history),))
