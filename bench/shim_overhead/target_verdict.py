"""The <= 3 % target's verdict, shared by run.sh (one invocation) and pool_raw.py (several pooled).

The target is about the shim's added latency, a central value: it is judged by a bootstrap 95 %
confidence interval of the median of the per-rep added %, not by the spread of single reps. On
this shared 2-core machine a native run against the next native run (A/A, no shim anywhere) already
spreads by several % (its IQR), so a rule on the reps' spread could never say "within" here.
More reps narrow the interval; a noisy period leaves it wide ("inconclusive")."""
import random
import statistics

TARGET_PERCENT = 3.0


def iqr(values):
    """Lower and upper quartile (both = the value for a single one)."""
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def median_ci(values, draws=4000):
    """Bootstrap 95 % interval of the median; a fixed seed, so the same values give the same interval."""
    rng = random.Random(20261124)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(draws))
    return meds[int(0.025 * draws)], meds[int(0.975 * draws) - 1]


def verdict(ci, target=TARGET_PERCENT):
    low, high = ci
    if high <= target:
        return "within target"
    if low > target:
        return "ABOVE target"
    return "inconclusive"
