"""Apply a mutation to a solution's *text*, not by regenerating it from the tree.

:mod:`reasoneval_mini.build_completion` changes a syntax tree (flip a
comparison, return the first argument, ...). Printing the whole changed
tree with ``ast.unparse`` would drop the solution's comments and layout,
and its output differs between Python versions (3.10 writes
``for (a, b) in``, later versions ``for a, b in``), which would make the
lessons' stored outputs version-dependent. Here only the text of the
edited nodes is replaced, and the result is checked against the changed
tree.
"""

import ast
import io
import re


def _offset(lines, lineno, col_offset):
    """Character offset of an ast position (col_offset counts UTF-8 bytes)."""
    line = lines[lineno - 1]
    return sum(map(len, lines[:lineno - 1])) + len(line.encode()[:col_offset].decode())


def splice_edits(problem, function, edits):
    """Return the canonical solution with only the edited nodes' text replaced.

    *problem* has ``prompt``, ``canonical_solution`` and ``entry_point``;
    *function* is the entry point's ``def`` node after the mutation; *edits*
    lists ``(node, replace)`` pairs, where *node* is an original node of
    ``ast.parse(prompt + canonical_solution)`` (it carries the positions) and
    *replace* maps the node's old text to its new text, or is ``None`` for a
    ``Compare`` whose first operator was flipped (only that token changes).

    Returns the completion text (what follows the prompt), or ``None`` when
    an edit lies in the prompt or the edited text does not parse to exactly
    *function*; the caller then falls back to ``ast.unparse``.

    >>> problem = {"prompt": "def f(x):\\n", "entry_point": "f",
    ...            "canonical_solution": "    return x < 3  # small\\n"}
    >>> function = ast.parse(problem["prompt"] + problem["canonical_solution"]).body[0]
    >>> compare = function.body[0].value
    >>> compare.ops[0] = ast.LtE()
    >>> print(splice_edits(problem, function, [(compare, None)]), end="")
        return x <= 3  # small

    Surprising: an edit whose text does not give the changed tree is refused.

    >>> splice_edits(problem, function, [(compare, lambda text: text)]) is None
    True
    """
    prompt, source = problem["prompt"], problem["prompt"] + problem["canonical_solution"]
    lines = io.StringIO(source).readlines()  # "\n" only, like ast's line numbers
    spans = []
    for node, replace in edits:
        start = _offset(lines, node.lineno, node.col_offset)
        end = _offset(lines, node.end_lineno, node.end_col_offset)
        if start < len(prompt):
            return None
        if replace is None:  # a comparison: flip the operator token only
            start = _offset(lines, node.left.end_lineno, node.left.end_col_offset)
            end = _offset(lines, node.comparators[0].lineno, node.comparators[0].col_offset)
            flipped = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
            new = re.sub(r"<=|>=|<|>", lambda m: flipped[m.group(0)], source[start:end], count=1)
        else:
            new = replace(source[start:end])
        spans.append((start, end, new))
    for start, end, new in sorted(spans, reverse=True):
        source = source[:start] + new + source[end:]
    try:
        module = ast.parse(source)
    except SyntaxError:
        return None
    rebuilt = [node for node in module.body
               if isinstance(node, ast.FunctionDef) and node.name == problem["entry_point"]]
    if not rebuilt or ast.dump(rebuilt[-1]) != ast.dump(function):
        return None
    return source[len(prompt):]
