"""Benchmark: the course's answer checks against math-verify, per labelled pair.

Run:  python benchmarks/answers.py

Over every pair of the corpus (reasoneval_mini.datasets.answer_pairs), in one
process: extraction plus the exact comparison with no rule, the same with every
normalisation rule declared, and math-verify 0.9.0's parse + verify. The table
prints microseconds per pair and each ratio to the raw pipeline.
"""

import sys
import timeit

from reasoneval_mini.datasets.answer_pairs import answer_pairs
from reasoneval_mini.normalise import RULES, UNITS, normalised_verdict

try:
    from math_verify import parse, verify
except ImportError:  # pragma: no cover - benchmark needs the course extra
    sys.exit('needs math-verify: python -m pip install -e ".[course]"')

PAIRS = answer_pairs()


def course(rules):
    def run():
        for pair in PAIRS:
            units = [pair.unit] if UNITS in rules else []
            normalised_verdict(pair.output, pair.reference, rules=rules, units=units)
    return run


def math_verify():
    for pair in PAIRS:
        verify(parse(pair.reference), parse(pair.output))


def per_pair_us(function, number, repeat=5):
    best = min(timeit.repeat(function, number=number, repeat=repeat))
    return best / number / len(PAIRS) * 1e6


def main():
    math_verify()  # first call imports sympy's parsers; keep it out of the timing
    rows = [("course, no rule", per_pair_us(course(()), 200)),
            ("course, every rule", per_pair_us(course(RULES), 200)),
            ("math-verify 0.9.0", per_pair_us(math_verify, 2, repeat=3))]
    base = rows[0][1]
    print(f"{len(PAIRS)} pairs")
    print(f"{'checker':<20} {'us/pair':>10} {'ratio':>9}")
    for name, micros in rows:
        print(f"{name:<20} {micros:10.1f} {micros / base:9.1f}")


if __name__ == "__main__":
    main()
