# The pause point of the application tests in Python (pause_point.h's loop, tests/apps/README.md):
# with YK_APP_PAUSE set, rank 0 creates "$YK_APP_PAUSE.reached" and every rank loops (an allreduce
# of "does $YK_APP_PAUSE exist on rank 0", then 10 ms of sleep) until that file exists. Without it
# it returns at once. The scripts import it from their own directory (Python's sys.path[0]).
import os
import time

from mpi4py import MPI


def pause_point(comm):
    go = os.environ.get("YK_APP_PAUSE")
    if not go:
        return
    rank = comm.Get_rank()
    if rank == 0:
        open(go + ".reached", "w").close()
    while True:
        here = 1 if rank == 0 and os.path.exists(go) else 0
        if comm.allreduce(here, op=MPI.MAX):
            return
        time.sleep(0.01)
