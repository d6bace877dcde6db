#!/usr/bin/env python3
"""bench.shim-overhead.verdict: the <= 3 % target's rule (shim_overhead/target_verdict.py), used by
run.sh and pool_raw.py: judged by the 95 % interval of the median, not by the reps' spread."""
import os
import random
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(here), "shim_overhead"))
from target_verdict import iqr, median_ci, verdict  # noqa: E402


def check(cond, msg):
    if not cond:
        print("FAIL:", msg)
        sys.exit(1)


def noisy(center, spread, n, seed):
    rng = random.Random(seed)
    return [center + rng.uniform(-spread, spread) for _ in range(n)]


# The boundaries: at most 3 % is within, a lower end above 3 % is ABOVE.
check(verdict((1.0, 3.0)) == "within target", "upper end exactly 3 % is within")
check(verdict((2.9, 3.1)) == "inconclusive", "an interval across 3 % is inconclusive")
check(verdict((3.01, 5.0)) == "ABOVE target", "lower end above 3 % is ABOVE")
check(verdict((3.0, 5.0)) == "inconclusive", "lower end exactly 3 % is not ABOVE")

# Many reps around 2 % with a spread of +-4 % (this machine's A/A spread): the reps' upper quartile
# is above 3 %, the median's interval is not, and the verdict follows the interval.
reps = noisy(2.0, 4.0, 80, seed=1)
low, high = median_ci(reps)
check(iqr(reps)[1] > 3.0, f"test data: upper quartile {iqr(reps)[1]:.2f} should be above 3")
check(low <= 2.0 <= high + 0.5 and high <= 3.0, f"interval {low:.2f}..{high:.2f} for a 2 % centre")
check(verdict((low, high)) == "within target", "80 noisy reps around 2 % are within")

# The same spread with only 6 reps cannot tell: inconclusive, never "within" by luck of the draw.
check(verdict(median_ci(noisy(2.0, 4.0, 6, seed=2))) == "inconclusive", "6 noisy reps are inconclusive")
# Clearly above: 40 reps around 5 %.
check(verdict(median_ci(noisy(5.0, 1.0, 40, seed=3))) == "ABOVE target", "40 reps around 5 % are ABOVE")

# Deterministic: the same values give the same interval (reports can be compared and re-derived).
check(median_ci(reps) == median_ci(list(reps)), "median_ci is not deterministic")
check(iqr([4.0]) == (4.0, 4.0), "a single value is its own IQR")
print("ok: target verdict")
