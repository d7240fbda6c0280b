"""Per-student variants: every checked exercise draws its inputs and items from a seed.

A *variant* is named by an identity: the student's id for a class (the
folder ``grade`` reads, the id ``build-exercises --class`` was given), or
:data:`DEFAULT_IDENTITY` for the notebooks shipped in ``exercises/``. Each
exercise draws what its statement shows (the predictions to judge, the
programs to predict, the numbers of a worked example) from
:meth:`Variant.rng`, a generator seeded from the identity and the exercise
id, so two students rarely get the same items and an answer copied from a
classmate answers someone else's question.

``check()`` in a notebook uses the variant its setup cell names
(:func:`use_variant`, written there by the build). The grader never trusts
that line: it rebuilds the variant from the folder it reads.

*Hidden* checks (the grader's own inputs, never shown) are drawn from
:meth:`Variant.hidden_rng`, which needs the grader's secret key as well: the
public seed is known to the student (and must be, for ``check()``), so
inputs drawn from it alone could be computed ahead, and answered from a
table.

>>> use_variant("ada").rng("kp2_two_subsets").random() == Variant("ada").rng("kp2_two_subsets").random()
True
>>> use_variant().identity  # back to the shipped variant: the choice holds for the kernel
'self-study'
>>> Variant("ada").rng("kp2_two_subsets").random() == Variant("bob").rng("kp2_two_subsets").random()
False

Surprising: an identity is taken exactly as written, so ``"zoe "`` (with the
trailing space an unzip tool may leave) is another student than ``"zoe"``.

>>> Variant("zoe").seed("x") == Variant("zoe ").seed("x")
False
>>> Variant("").hidden_rng("x")
Traceback (most recent call last):
...
ValueError: a variant's identity is a non-empty str of at most 1024 characters, got ''
"""

import hashlib
import hmac
import random
from dataclasses import dataclass, field

__all__ = ["DEFAULT_IDENTITY", "MAX_IDENTITY_CHARS", "Variant", "current_variant", "use_variant"]

#: The identity of the notebooks shipped in ``exercises/`` (self-study, nbgrader's release).
DEFAULT_IDENTITY = "self-study"
#: Longest identity accepted (a folder name, a roster id).
MAX_IDENTITY_CHARS = 1024
# Domain separation: a seed of this course is never the hash of anything else.
_DOMAIN = b"reasoneval-course variant v1\0"


@dataclass(frozen=True)
class Variant:
    """One student's variant: *identity*, and the grader's secret *key* (``None`` outside it)."""

    identity: str
    key: bytes | None = field(default=None, repr=False)

    def __post_init__(self):
        if not (isinstance(self.identity, str) and 0 < len(self.identity) <= MAX_IDENTITY_CHARS):
            raise ValueError(f"a variant's identity is a non-empty str of at most "
                             f"{MAX_IDENTITY_CHARS} characters, got {self.identity!r:.80}")
        if self.key is not None and not (isinstance(self.key, bytes) and len(self.key) >= 16):
            raise ValueError("a grading key is at least 16 bytes")

    def seed(self, exercise_id):
        """The public seed of *exercise_id*: the same for ``check()`` and the grader."""
        digest = hashlib.sha256(_DOMAIN + self.identity.encode("utf-8", "surrogatepass")
                                + b"\0" + exercise_id.encode()).digest()
        return int.from_bytes(digest[:8], "big")

    def rng(self, exercise_id):
        """A fresh generator for the public draw of *exercise_id* (what its statement shows)."""
        return random.Random(self.seed(exercise_id))

    def hidden_rng(self, exercise_id):
        """A fresh generator for the hidden checks of *exercise_id*; needs :attr:`key`."""
        if self.key is None:
            raise ValueError("hidden checks are drawn by the grader, with its key; this "
                             "variant has none")
        digest = hmac.new(self.key, _DOMAIN + self.identity.encode("utf-8", "surrogatepass")
                          + b"\0hidden\0" + exercise_id.encode(), hashlib.sha256).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))


# The variant check() uses in this kernel; set by the setup cell of each exercise notebook.
_CURRENT = [Variant(DEFAULT_IDENTITY)]


def use_variant(identity=DEFAULT_IDENTITY):
    """Make *identity* the variant ``check()`` uses in this kernel; return the :class:`Variant`.

    The build writes this call into each exercise notebook's setup cell. A
    self-study learner who wants fresh items to practise on may call it with
    any other name, then rerun the notebook: the printed data cells and the
    checks follow, the statements (rendered by the build) still show the
    variant the notebook was built for (``reasoneval-course build-exercises
    --variant NAME --out DIR`` renders a whole set for another name).
    """
    variant = Variant(identity)
    _CURRENT[0] = variant
    return variant


def current_variant():
    """The :class:`Variant` set by the last :func:`use_variant` (the default one before)."""
    return _CURRENT[0]
