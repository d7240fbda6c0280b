"""Answers that look alike: fingerprints find candidate pairs, then a close comparison checks them.

Comparing every pair of students grows with the square of the class (2,000
students: two million pairs per exercise). As MOSS does (Schleimer, Wilkerson
and Aiken, "Winnowing", SIGMOD 2003), each answer is reduced to a few
*fingerprints*: its code is normalised (:func:`normalised_tokens`: comments
and layout dropped, local names numbered), every run of :data:`KGRAM` tokens
is hashed, and in every window of :data:`WINDOW` hashes the smallest is kept.
Two answers that share a run of ``KGRAM + WINDOW - 1`` tokens are guaranteed
to share a fingerprint. Each fingerprint is a *bucket* of the answers that
hold it; only answers that share at least :data:`SHARED_SHARE` of their
fingerprints are compared closely (``difflib`` on the tokens), so the work
grows about linearly with the class (and each close comparison reads at
most :data:`MAX_COMPARED_TOKENS` tokens of each answer, so one pair is
bounded too). A fingerprint held by more than
:data:`COMMON_BUCKET` answers is shared code (a given signature, a textbook
idiom) and opens no comparison, as in MOSS; exactly identical answers are
grouped by a hash of their whole code first, so no bucket limit hides them.

Exercises with a single right answer, where every correct answer is the
same code, say nothing when they look alike: an answer function that takes
no parameters returns one fixed value (a prediction, a choice), and such
exercises are skipped (:func:`fixed_value_exercises`) and named. Typed-in
and keyed exercises (``Exercise.typed``, ``Exercise.keyed``) have one right
answer *per variant*: two students whose variants draw the same items type
the same literal by necessity, so such a pair is never compared; two
students whose items differ are compared, and an answer typed for a
classmate's items still shows (:func:`variant_bound_exercises`,
:func:`same_variant_answer`).

>>> normalised_tokens("def f(x):  # mine\\n    return len(x) + 1")
['def', 'v0', '(', 'v1', ')', ':', 'INDENT', 'return', 'len', '(', 'v1', ')', '+', '1', 'DEDENT']

Surprising: renaming every variable does not change the normalised code.

>>> mine, theirs = "def f(x):\\n    return x + 1", "def g(y):\\n    return y + 1"
>>> normalised_tokens(mine) == normalised_tokens(theirs)
True
"""

import builtins
import difflib
import io
import keyword
import re
import sys
import tokenize
import zlib
from collections import Counter
from dataclasses import dataclass

from reasoneval_mini.exercises.variants import Variant
from reasoneval_mini.grading.notebooks import cells_defining

#: Answers this alike (difflib ratio on normalised tokens) are listed as similar.
SIMILARITY_THRESHOLD = 0.9
#: Shorter answers are alike by necessity (``return a + b``) and are not compared.
MIN_ANSWER_TOKENS = 25
#: Tokens per hashed run, and hashes per winnowing window.
KGRAM = 5
WINDOW = 4
#: Two answers are compared closely when they share this share of the smaller one's fingerprints.
SHARED_SHARE = 0.5
#: A fingerprint held by more answers than this is shared code: it opens no comparison.
COMMON_BUCKET = 40
#: Tokens of each answer that the close comparison reads (the whole answer is
#: fingerprinted). difflib's time grows with the cube of near-identical inputs:
#: two 60 KB answers (21,000 tokens) took 100 s; 1,000 tokens take 0.05 s.
MAX_COMPARED_TOKENS = 1_000


@dataclass(frozen=True)
class SimilarPair:
    """Two students whose answer to *exercise* is *ratio* alike (0 to 1) after normalising."""

    exercise: str
    first: str
    second: str
    ratio: float


_KEPT_NAMES = {}


def _kept(name):
    # Keywords and anything the builtins module has (dunders such as __init__ included).
    kept = _KEPT_NAMES.get(name)
    if kept is None:
        kept = _KEPT_NAMES[name] = keyword.iskeyword(name) or hasattr(builtins, name)
    return kept


_SKIPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER})
_LAYOUT = {tokenize.INDENT: "INDENT", tokenize.DEDENT: "DEDENT"}
# Python 3.12 splits an f-string into parts; it stays one token, as before 3.12.
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


def normalised_tokens(source):
    """The tokens of *source* with comments and layout dropped and local names numbered.

    Read by the standard :mod:`tokenize`. Names that are keywords, builtins
    or attributes (after ``.``) are kept; every other name becomes ``v0``,
    ``v1``, ... in order of first use. A change of indentation is one
    ``INDENT`` or ``DEDENT`` token. Raises ``SyntaxError`` when a line
    dedents to a level that was never opened. Code that ends inside a
    bracket or a string (a broken cell) keeps the tokens read until then,
    the text not read as one token, and closes its indentation.

    >>> normalised_tokens("x = f(1,\\n")
    ['v0', '=', 'v1', '(', '1', ',']
    """
    names, tokens, previous, depth = {}, [], None, 0
    for text, kind in _lexed(source):
        if kind == tokenize.NAME and previous != "." and not _kept(text):
            text = names.setdefault(text, f"v{len(names)}")
        depth += (kind == tokenize.INDENT) - (kind == tokenize.DEDENT)
        tokens.append(sys.intern(text))  # one object per distinct token: memory stays small
        previous = text
    return tokens + ["DEDENT"] * depth


# The standard tokenize reads Python exactly as Python does, in time linear in
# the text. It is not faster than the single regular expression it replaced: on
# 2,100 answers (2.2 MB), 0.61 s against 0.24 s on 3.11 (pure Python there),
# 0.50 s against 0.35 s on 3.12 and 0.39 s against 0.36 s on 3.13.
def _lexed(source):
    """``(text, token type)`` of each token of *source* that counts; see :func:`normalised_tokens`.

    Linear in *source* whatever it holds: :mod:`tokenize` reads each line
    once, and a ``TokenError`` (input ended in a bracket or a string) ends the
    tokens there, with the text not read as one last token.
    """
    fstring_start, depth, offsets, read_to = None, 0, None, (1, 0)
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, read_to = token.type, token.end
            if kind == _FSTRING_START or depth:
                if not depth:
                    fstring_start = token.start
                depth += (kind == _FSTRING_START) - (kind == _FSTRING_END)
                if not depth:  # the f-string's own text, as in the source
                    offsets = offsets or _line_offsets(source)
                    yield (source[offsets[fstring_start[0] - 1] + fstring_start[1]:
                                  offsets[token.end[0] - 1] + token.end[1]], tokenize.STRING)
            elif kind in _LAYOUT:
                yield _LAYOUT[kind], kind
            elif kind not in _SKIPPED and not (kind == tokenize.ERRORTOKEN
                                               and token.string.isspace()):
                yield token.string, kind
    except tokenize.TokenError:
        # Where the tokens stop differs between versions (3.12 raises at an open
        # quote too); what was not read becomes one token, the same way on all.
        offsets = offsets or _line_offsets(source)
        rest = source[offsets[read_to[0] - 1] + read_to[1]:].strip()
        if rest and depth == 0:
            yield rest, tokenize.STRING


def _line_offsets(source):
    """Where each line of *source* starts (lines end at ``\\n`` only, as :mod:`tokenize` reads them)."""
    return [0] + [match.end() for match in re.finditer("\n", source)]


def _token_id(token, cache={}):  # noqa: B006 - a deliberate cache of stable token hashes
    found = cache.get(token)
    if found is None:
        found = cache[token] = zlib.crc32(token.encode("utf-8", "surrogatepass"))
    return found


def fingerprints(tokens, kgram=KGRAM, window=WINDOW):
    """The winnowed fingerprints of *tokens*: the smallest hash of every window of k-gram hashes.

    Hashes are the same on every run (CRC-32 of each token, then the hash of
    a tuple of ints, which Python does not randomise), so the report is too.

    >>> mine, longer = list("abcdefgh"), list("xyabcdefgh")
    >>> fingerprints(mine, kgram=3, window=2) <= fingerprints(longer, kgram=3, window=2)
    True
    """
    ids = [_token_id(token) for token in tokens]
    # zip and map(min, ...) over shifted copies: the k-grams and the windows, at C speed.
    hashes = list(map(hash, zip(*(ids[i:] for i in range(kgram)))))
    if len(hashes) <= window:
        return frozenset(hashes[:1] and [min(hashes)])
    return frozenset(map(min, *(hashes[i:] for i in range(window))))


def _takes_no_parameters(source, name):
    # "def name():" at the start of a line; a regular expression, since parsing
    # every answer of a large class took seconds.
    return re.search(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\([ \t]*\)",
                     source, re.MULTILINE) is not None


def answer_sources(submissions, grades, exercises):
    """``{exercise id: {student: text compared}}``, each text from :func:`compared_source`.

    *submissions* are :class:`~reasoneval_mini.grading.submissions.Submission`
    objects read before any student code ran (never the disk afterwards).
    Only answers the learner attempted (some check ran and was not a stub's).
    """
    attempted = {(g.student, g.exercise) for g in grades
                 if any(c.get("attempted", True) for c in g.checks)}
    sources = {i: {} for i in exercises}
    for submission in submissions:
        for notebook in submission.notebooks:
            for exercise_id in notebook.exercises:
                if exercise_id not in exercises or (submission.student,
                                                    exercise_id) not in attempted:
                    continue
                text = compared_source(notebook, exercises[exercise_id])
                if text is not None:
                    sources[exercise_id][submission.student] = text
    return sources


def compared_source(notebook, exercise):
    """The text of *notebook* that the class report compares for *exercise*, or ``None``.

    The one place the report chooses what it reads of an answer: the source
    of the last cell that may define the answer function (as run, IPython
    syntax converted); ``None`` if no cell does.
    """
    numbers = cells_defining(notebook.cells, exercise.answer_name)
    if not numbers:
        return None
    return next(source for number, source, _ in notebook.cells if number == numbers[-1])


def fixed_value_exercises(sources, exercises):
    """Ids of exercises whose answer function (in most answers) takes no parameters.

    Such a function returns one fixed value: there is a single right answer,
    and correct answers look alike by necessity.
    """
    fixed = []
    for exercise_id, by_student in sources.items():
        name = exercises[exercise_id].answer_name
        votes = Counter(_takes_no_parameters(source, name) for source in by_student.values())
        if votes[True] > votes[False]:
            fixed.append(exercise_id)
    return fixed


def variant_bound_exercises(exercises):
    """Ids of the exercises of *exercises* whose right answer follows the variant's items.

    Typed-in predictions and keyed answers (``typed`` or ``keyed`` true): the
    right answer is a literal fixed by the items a variant draws.
    """
    return [exercise_id for exercise_id, exercise in exercises.items()
            if getattr(exercise, "typed", False) or getattr(exercise, "keyed", False)]


def _right_answer_of(exercise, identity):
    """What *identity*'s variant makes the right answer of *exercise*: ``solve(data)``, or its data."""
    data = exercise.data(Variant(identity))
    solve = getattr(exercise, "solve", None)
    return solve(data) if solve is not None else data


def same_variant_answer(exercise):
    """``alike(first, second)``: do the two students' variants give *exercise* the same right answer?

    The students are the folder names, which are the identities the grader
    draws their variants from. Each identity's answer is computed once.
    """
    known = {}

    def answer(identity):
        if identity not in known:
            known[identity] = _right_answer_of(exercise, identity)
        return known[identity]

    return lambda first, second: answer(first) == answer(second)


def _candidates(prints):
    """Pairs of students sharing at least :data:`SHARED_SHARE` of the smaller one's fingerprints."""
    buckets = {}
    for student, found in prints.items():
        for fingerprint in found:
            buckets.setdefault(fingerprint, []).append(student)
    shared = Counter()
    for members in buckets.values():
        if len(members) > COMMON_BUCKET:
            continue
        members.sort()
        for i, first in enumerate(members):
            for second in members[i + 1:]:
                shared[first, second] += 1
    return sorted(pair for pair, count in shared.items()
                  if count >= SHARED_SHARE * min(len(prints[pair[0]]), len(prints[pair[1]])))


def similar_in_exercise(exercise_id, by_student, threshold=SIMILARITY_THRESHOLD,
                        exempt=None):
    """The :class:`SimilarPair` list of one exercise (``{student: source}``), in student order.

    *exempt* (``exempt(first, second) -> bool``, default none) names the
    pairs alike by necessity, never listed: for typed and keyed exercises,
    the students whose variants give the same right answer.
    """
    if exempt is None:
        def exempt(first, second):
            return False
    tokens = {}
    for student, source in by_student.items():
        try:
            found = normalised_tokens(source)
        except SyntaxError:
            continue
        if len(found) >= MIN_ANSWER_TOKENS:
            tokens[student] = found
    pairs, identical = [], {}
    for student in sorted(tokens):  # identical code: grouped whatever the group's size
        identical.setdefault(tuple(tokens[student]), []).append(student)
    representatives = {}
    for group in identical.values():
        pairs += [SimilarPair(exercise_id, a, b, 1.0)
                  for i, a in enumerate(group) for b in group[i + 1:] if not exempt(a, b)]
        representatives[group[0]] = group
    prints = {student: fingerprints(tokens[student]) for student in representatives}
    for first, second in _candidates(prints):
        matcher = difflib.SequenceMatcher(None, tokens[first][:MAX_COMPARED_TOKENS],
                                          tokens[second][:MAX_COMPARED_TOKENS], autojunk=False)
        if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
            continue
        ratio = matcher.ratio()
        if ratio >= threshold:  # every member of both identical groups is this alike
            pairs += [SimilarPair(exercise_id, *sorted((a, b)), ratio)
                      for a in representatives[first] for b in representatives[second]
                      if not exempt(a, b)]
    return pairs


def similar_answers(submissions, grades, exercises, threshold=SIMILARITY_THRESHOLD):
    """``(pairs, skipped)``: alike attempted answers, most alike first; fixed-value exercises skipped.

    Reads the answer cells of the *submissions* already in memory (never
    runs them); answers shorter than :data:`MIN_ANSWER_TOKENS` tokens, or
    that do not tokenise, are skipped. In typed and keyed exercises
    (:func:`variant_bound_exercises`) only students whose variants give
    different right answers are compared; such an exercise is not skipped
    for taking no parameters.
    """
    sources = answer_sources(submissions, grades, exercises)
    bound = variant_bound_exercises(exercises)
    skipped = [exercise_id for exercise_id in fixed_value_exercises(sources, exercises)
               if exercise_id not in bound]
    pairs = []
    for exercise_id, by_student in sources.items():
        if exercise_id not in skipped:
            exempt = same_variant_answer(exercises[exercise_id]) if exercise_id in bound else None
            pairs += similar_in_exercise(exercise_id, by_student, threshold, exempt)
    order = list(exercises)
    pairs.sort(key=lambda p: (-p.ratio, order.index(p.exercise), p.first, p.second))
    return pairs, tuple(skipped)
