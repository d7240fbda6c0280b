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
grows about linearly with the class. A fingerprint held by more than
:data:`COMMON_BUCKET` answers is shared code (a given signature, a textbook
idiom) and opens no comparison, as in MOSS; exactly identical answers are
grouped by a hash of their whole code first, so no bucket limit hides them.

Exercises with a single right answer, where every correct answer is the
same code, say nothing when they look alike: an answer function that takes
no parameters returns one fixed value (a prediction, a choice), and such
exercises are skipped (:func:`fixed_value_exercises`) and named.

>>> normalised_tokens("def f(x):  # mine\\n    return len(x) + 1")
['def', 'v0', '(', 'v1', ')', ':', 'INDENT', 'return', 'len', '(', 'v1', ')', '+', '1', 'DEDENT']

Surprising: renaming every variable does not change the normalised code.

>>> mine, theirs = "def f(x):\\n    return x + 1", "def g(y):\\n    return y + 1"
>>> normalised_tokens(mine) == normalised_tokens(theirs)
True
"""

import ast
import builtins
import difflib
import io
import keyword
import tokenize
import zlib
from collections import Counter
from dataclasses import dataclass

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


@dataclass(frozen=True)
class SimilarPair:
    """Two students whose answer to *exercise* is *ratio* alike (0 to 1) after normalising."""

    exercise: str
    first: str
    second: str
    ratio: float


def normalised_tokens(source):
    """The tokens of *source* with comments and layout dropped and local names numbered.

    Names that are keywords, builtins or attributes (after ``.``) are kept;
    every other name becomes ``v0``, ``v1``, ... in order of first use.
    Raises ``SyntaxError`` for code that cannot be tokenised.
    """
    names, tokens, previous = {}, [], None
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING,
               tokenize.ENDMARKER}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in skipped:
                continue
            text = token.string
            if token.type == tokenize.INDENT:
                text = "INDENT"
            elif token.type == tokenize.DEDENT:
                text = "DEDENT"
            elif (token.type == tokenize.NAME and not keyword.iskeyword(text)
                  and not hasattr(builtins, text) and previous != "."):
                text = names.setdefault(text, f"v{len(names)}")
            tokens.append(text)
            previous = token.string
    except (tokenize.TokenError, IndentationError) as error:
        raise SyntaxError(str(error)) from None
    return tokens


def fingerprints(tokens, kgram=KGRAM, window=WINDOW):
    """The winnowed fingerprints of *tokens*: the smallest hash of every window of k-gram hashes.

    >>> sorted(fingerprints(list("abcdefgh"), kgram=3, window=2)) == sorted(
    ...     fingerprints(list("xxabcdefgh"), kgram=3, window=2) & fingerprints(list("abcdefgh"), 3, 2))
    True
    """
    hashes = [zlib.crc32("\x1f".join(tokens[i:i + kgram]).encode("utf-8", "surrogatepass"))
              for i in range(len(tokens) - kgram + 1)]
    if len(hashes) <= window:
        return frozenset(hashes[:1] and [min(hashes)])
    return frozenset(min(hashes[i:i + window]) for i in range(len(hashes) - window + 1))


def _takes_no_parameters(source, name):
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            args = node.args
            return not (args.posonlyargs or args.args or args.vararg or args.kwonlyargs
                        or args.kwarg)
    return False


def answer_sources(submissions, grades, exercises):
    """``{exercise id: {student: source of the last cell defining the answer}}``.

    *submissions* are :class:`~reasoneval_mini.grading.submissions.Submission`
    objects read before any student code ran (never the disk afterwards).
    Only answers the learner attempted (some check ran and was not a stub's).
    """
    attempted = {(g.student, g.exercise) for g in grades
                 if any(c.get("attempted", True) for c in g.checks)}
    sources = {i: {} for i in exercises}
    for submission in submissions:
        for notebook in submission.notebooks:
            code = {number: source for number, source, _ in notebook.cells}
            for exercise_id in notebook.exercises:
                if exercise_id not in exercises:
                    continue
                numbers = cells_defining(notebook.cells, exercises[exercise_id].answer_name)
                if numbers and (submission.student, exercise_id) in attempted:
                    sources[exercise_id][submission.student] = code[numbers[-1]]
    return sources


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


def similar_in_exercise(exercise_id, by_student, threshold=SIMILARITY_THRESHOLD):
    """The :class:`SimilarPair` list of one exercise (``{student: source}``), in student order."""
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
                  for i, a in enumerate(group) for b in group[i + 1:]]
        representatives[group[0]] = group
    prints = {student: fingerprints(tokens[student]) for student in representatives}
    for first, second in _candidates(prints):
        matcher = difflib.SequenceMatcher(None, tokens[first], tokens[second], autojunk=False)
        if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
            continue
        ratio = matcher.ratio()
        if ratio >= threshold:  # every member of both identical groups is this alike
            pairs += [SimilarPair(exercise_id, *sorted((a, b)), ratio)
                      for a in representatives[first] for b in representatives[second]]
    return pairs


def similar_answers(submissions, grades, exercises, threshold=SIMILARITY_THRESHOLD):
    """``(pairs, skipped)``: alike attempted answers, most alike first; fixed-value exercises skipped.

    Reads the answer cells of the *submissions* already in memory (never
    runs them); answers shorter than :data:`MIN_ANSWER_TOKENS` tokens, or
    that do not tokenise, are skipped.
    """
    sources = answer_sources(submissions, grades, exercises)
    skipped = fixed_value_exercises(sources, exercises)
    pairs = []
    for exercise_id, by_student in sources.items():
        if exercise_id not in skipped:
            pairs += similar_in_exercise(exercise_id, by_student, threshold)
    order = list(exercises)
    pairs.sort(key=lambda p: (-p.ratio, order.index(p.exercise), p.first, p.second))
    return pairs, tuple(skipped)
