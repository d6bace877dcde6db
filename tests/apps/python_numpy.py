# Python with Debian's MPI module and numpy (tests/apps/README.md): numpy is imported after the MPI
# module initialised MPI, so numpy's extension modules (and their BLAS) are libraries loaded after
# start, carried across the restart (checkpoint/memory/README.md, "Libraries loaded after start").
# The pause point is pause_point.h's loop written in Python. Rank 0 prints; every rank writes a file.
import os
import time

from mpi4py import MPI  # MPI_Init happens here: a restarted process restores inside it

import numpy as np  # after MPI_Init

comm = MPI.COMM_WORLD
rank = comm.Get_rank()


def pause_point():
    go = os.environ.get("YK_APP_PAUSE")
    if not go:
        return
    if rank == 0:
        open(go + ".reached", "w").close()
    while True:
        here = 1 if rank == 0 and os.path.exists(go) else 0
        if comm.allreduce(here, op=MPI.MAX):
            return
        time.sleep(0.01)


values = np.arange(2000, dtype=np.float64) * (rank + 1)
matrix = np.linspace(0.0, 1.0, 64 * 64).reshape(64, 64) + rank
history = []
with open("numpy.%d.txt" % rank, "w") as out:
    for iteration in range(12):
        if iteration == 6:
            pause_point()
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
