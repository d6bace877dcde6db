# Python threads with Debian's MPI module (tests/apps/README.md): a `threading` worker started
# after MPI_Init takes a job from a queue every iteration and keeps a count in `threading.local`;
# at the pause point it waits on the queue, so the checkpoint parks it inside the interpreter's
# lock wait and the restart starts it again (checkpoint/memory/README.md, "Threads"). Rank 0
# prints; every rank writes a file with each result and the worker's count at the end.
import queue
import sys
import threading

from mpi4py import MPI  # MPI_Init happens here: a restarted process restores inside it

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from pause_point import pause_point  # noqa: E402 (tests/apps/pause_point.py)

comm = MPI.COMM_WORLD
rank = comm.Get_rank()

jobs, results = queue.Queue(), queue.Queue()
local = threading.local()


def worker():
    local.count = 0
    while True:
        job = jobs.get()
        if job is None:
            results.put(("jobs", local.count))
            return
        local.count += 1
        results.put(sum(i * i for i in range(job * 1000)))


thread = threading.Thread(target=worker)
thread.start()
with open("threads.%d.txt" % rank, "w") as out:
    for iteration in range(12):
        if iteration == 6:
            pause_point(comm)
        jobs.put(iteration + rank)
        result = results.get()
        total = comm.allreduce(result)
        out.write("iteration %d %d\n" % (iteration, result))
        if rank == 0:
            print("iteration", iteration, total, flush=True)
    jobs.put(None)
    out.write("worker %s\n" % (results.get(),))
thread.join()
if rank == 0:
    print("done")
