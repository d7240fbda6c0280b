"""pass@k by brute force: the definition, checked subset by subset."""

import itertools
import math
from fractions import Fraction

#: Largest number of k-subsets :func:`pass_at_k_by_enumeration` will visit.
MAX_ENUMERATED_SUBSETS = 1_000_000


def pass_at_k_by_enumeration(outcomes, k):
    """Exact fraction of k-subsets of *outcomes* that hold at least one success.

    *outcomes* is a sequence of per-sample booleans (``True`` = passed). This
    is the definition of pass@k, computed without any formula, so it serves
    as an independent check of :func:`pass_at_k`.

    Raises ``ValueError`` when *outcomes* is not a non-empty sequence of
    ``bool``, when k is not an int in ``1..len(outcomes)``, or when there
    would be more than :data:`MAX_ENUMERATED_SUBSETS` subsets (the message
    says how many).

    >>> pass_at_k_by_enumeration([True, True, False, False, False], 2)
    Fraction(7, 10)

    Surprising: the count of subsets explodes long before n looks large.

    >>> pass_at_k_by_enumeration([False] * 40, 20)
    Traceback (most recent call last):
    ...
    ValueError: refusing to enumerate C(40, 20) = 137846528820 subsets (limit 1000000); use pass_at_k
    """
    if isinstance(outcomes, (str, bytes)) or not hasattr(outcomes, "__len__"):
        raise ValueError(f"outcomes must be a sequence of bool, got {outcomes!r}")
    outcomes = list(outcomes)
    if not outcomes:
        raise ValueError("outcomes is empty: there are no samples to choose from")
    for index, outcome in enumerate(outcomes):
        if type(outcome) is not bool:
            raise ValueError(
                f"outcomes[{index}] must be a bool, got {type(outcome).__name__}: {outcome!r}"
            )
    n = len(outcomes)
    if type(k) is not int or not 1 <= k <= n:
        raise ValueError(f"k must be an int in 1..n={n}, got {k!r}")
    total = math.comb(n, k)
    if total > MAX_ENUMERATED_SUBSETS:
        raise ValueError(
            f"refusing to enumerate C({n}, {k}) = {total} subsets "
            f"(limit {MAX_ENUMERATED_SUBSETS}); use pass_at_k"
        )
    hits = sum(any(subset) for subset in itertools.combinations(outcomes, k))
    return Fraction(hits, total)
