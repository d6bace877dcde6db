# Python with numpy imported after the restore point (run_restart.sh python): numpy's extension
# modules and the libraries they bring (BLAS, LAPACK, libgfortran; libcrypto through hashlib: some of
# them 2 MiB and larger, which the kernel places at 2 MiB boundaries) are libraries loaded after
# start, carried across the restart. The call boundary is the driver's yk_memtest_boundary, reached
# through ctypes; the first one is the restore point, as MPI_Init is in the product.
import ctypes
import sys

boundary = ctypes.CDLL(None).yk_memtest_boundary
boundary()

import numpy as np  # noqa: E402  (after the restore point on purpose)

steps = int(sys.argv[1])
values = np.arange(1000, dtype=np.float64)
matrix = np.linspace(0.0, 1.0, 32 * 32).reshape(32, 32)
seen = {}
rng = np.random.default_rng(7)
with open("steps.txt", "w") as out:
    for step in range(steps):
        boundary()
        values = np.sin(values) * 2.0 + step + rng.random()
        matrix = matrix @ matrix.T
        matrix = matrix / np.abs(matrix).max() + np.eye(32)
        seen["step%d" % step] = float(values.sum())
        out.write("%d %r %r\n" % (step, float(values.sum()), float(np.linalg.det(matrix[:4, :4]))))
        # A string key looked up in a dict built before the checkpoint: the hash secret the image's
        # objects were built with must be the one the restarted interpreter uses (KeyError if not).
        # 1 when the interpreter's thread-specific slot (pthread_setspecific, set at startup) holds
        # this thread's state, which C extensions rely on through PyGILState_Ensure.
        gil = ctypes.pythonapi.PyGILState_Check()
        print(step, float(values.sum()), seen["step0"], sorted(seen)[-1], gil, flush=True)
