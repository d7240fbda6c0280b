"""Synthetic completions: what a model *might* have written for a problem.

No model is run in this course. Instead, each HumanEval problem gets a pool
of completions derived from its canonical solution: the solution itself plus
faulty variants of the kinds real models produce, each built by a fixed
rule (no randomness here; the pool draws which variants to use).

The variant names say what was *written*, not what will *happen*: the
executor decides the state. An off-by-one that the tests never exercise
still passes, exactly as it would for a real model.

A mutation changes a syntax tree (flip a comparison, return the first
argument, ...), but it is applied to the solution's *text*
(:func:`splice_edits`), not by regenerating the text from the tree. Printing the whole changed
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
import textwrap


CANONICAL = "canonical"
OFF_BY_ONE = "off_by_one"
WRONG_RETURN = "wrong_return"
INFINITE_LOOP = "infinite_loop"
SYNTAX_ERROR = "syntax_error"
EARLY_EXIT = "early_exit"
NOT_GENERATED = "not_generated"

#: Every variant, with what it does to the canonical solution.
VARIANTS = {
    CANONICAL: "the reference solution, unchanged",
    OFF_BY_ONE: "one boundary shifted: a range stop, a comparison, a constant or the result",
    WRONG_RETURN: "every return becomes `return <first parameter>`: its value at that moment",
    INFINITE_LOOP: "a while loop whose counter is never advanced, before the body",
    SYNTAX_ERROR: "a colon dropped (or a stray ')' added): the file does not parse",
    EARLY_EXIT: "the correct body, then sys.exit(0) before the tests can run",
    NOT_GENERATED: "no completion at all (the generation request failed)",
}

#: How often each variant is drawn, roughly like a weak model at temperature 0.8.
DEFAULT_WEIGHTS = {
    CANONICAL: 40, OFF_BY_ONE: 15, WRONG_RETURN: 15, INFINITE_LOOP: 10,
    SYNTAX_ERROR: 8, EARLY_EXIT: 7, NOT_GENERATED: 5,
}

_STUCK_LOOP = (
    "    attempts = 0\n"
    "    while attempts < 3:\n"
    "        pass  # the model forgot: attempts += 1\n"
)
_EXIT_TRAILER = "\n\nimport sys\nsys.exit(0)  # the model's 'demo' ends the script\n"


class _ShiftOneBoundary(ast.NodeTransformer):
    """Change the first boundary found, in a fixed order of preference.

    Besides changing the tree, it records ``edit``: the original node and
    the text that replaces it, so the change can be made in the source.
    """

    def __init__(self, kind):
        self.kind = kind
        self.done = False
        self.edit = None

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.kind == "range" and not self.done and _is_range(node):
            stop = 0 if len(node.args) == 1 else 1
            self.edit = (node.args[stop], lambda text, old=node.args[stop]: f"{_operand(text, old)} - 1")
            node.args[stop] = ast.BinOp(node.args[stop], ast.Sub(), ast.Constant(1))
            self.done = True
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        flips = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
        if self.kind == "compare" and not self.done and type(node.ops[0]) in flips:
            node.ops[0] = flips[type(node.ops[0])]()
            self.edit = (node, None)  # the operator token is replaced, see _splice_compare
            self.done = True
        return node

    def visit_Constant(self, node):
        number = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        if self.kind == "constant" and not self.done and number:
            self.done = True
            self.edit = (node, lambda text, value=node.value + 1: repr(value))
            return ast.Constant(node.value + 1)
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        if self.kind == "return" and not self.done and node.value is not None:
            self.edit = (node.value, lambda text, old=node.value: f"{_operand(text, old)} + 1")
            node.value = ast.BinOp(node.value, ast.Add(), ast.Constant(1))
            self.done = True
        return node


def _is_range(node):
    return isinstance(node.func, ast.Name) and node.func.id == "range" and 1 <= len(node.args) <= 3


class _ReturnFirstArgument(ast.NodeTransformer):
    def __init__(self, name):
        self.value = ast.Name(name, ast.Load()) if name else ast.Constant(None)
        self.edits = []

    def visit_Return(self, node):
        self.edits.append((node, lambda text: f"return {self.value.id if isinstance(self.value, ast.Name) else None}"))
        return ast.Return(self.value)

    def _skip(self, node):  # returns of nested functions are theirs, not ours
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _skip


def _solution_function(problem):
    """The entry point's ``def`` node, parsed from prompt + canonical solution."""
    module = ast.parse(problem["prompt"] + problem["canonical_solution"])
    functions = [
        node for node in module.body
        if isinstance(node, ast.FunctionDef) and node.name == problem["entry_point"]
    ]
    if not functions:
        raise ValueError(f"{problem['task_id']}: no function {problem['entry_point']!r}")
    return functions[-1]


def _operand(text, node):
    """*text* of *node*, in parentheses unless it is a single operand."""
    atomic = (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Subscript)
    return text if isinstance(node, atomic) else f"({text})"


def _body_source(function):
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    code = "\n".join(ast.unparse(statement) for statement in body)
    return textwrap.indent(code, "    ") + "\n"


def _mutate(problem, transform):
    function = _solution_function(problem)
    # Visit the statements, not the def itself: the transformer leaves
    # nested functions alone, and the entry point is a function too.
    function.body = [transform.visit(statement) for statement in function.body]
    function = ast.fix_missing_locations(function)
    spliced = splice_edits(problem, function, transform.edits)
    return spliced if spliced is not None else _body_source(function)


def _off_by_one(problem):
    for kind in ("range", "compare", "constant", "return"):
        function = _solution_function(problem)
        shifter = _ShiftOneBoundary(kind)
        shifter.visit(function)
        if shifter.done:
            function = ast.fix_missing_locations(function)
            spliced = splice_edits(problem, function, [shifter.edit])
            return spliced if spliced is not None else _body_source(function)
    raise ValueError(f"{problem['task_id']}: no range, comparison, number or return to shift")


def _wrong_return(problem):
    arguments = _solution_function(problem).args.args
    return _mutate(problem, _ReturnFirstArgument(arguments[0].arg if arguments else None))


def _syntax_error(problem):
    lines = problem["canonical_solution"].splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.rstrip().endswith(":"):
            lines[index] = line.rstrip()[:-1] + "\n"
            return "".join(lines)
    last = max(i for i, line in enumerate(lines) if line.strip())
    lines[last] = lines[last].rstrip() + ")\n"
    return "".join(lines)


def build_completion(problem, variant):
    """Return the completion text of *variant* for *problem*, or ``None``.

    *problem* is a HumanEval problem dict (``task_id``, ``prompt``,
    ``canonical_solution``, ``entry_point``); *variant* is a key of
    :data:`VARIANTS`. ``NOT_GENERATED`` gives ``None``: there is no text.
    Mutated variants change only the text of the mutated nodes, so the
    canonical solution's layout and comments stay, and the text is the
    same on every Python version (``ast.unparse`` is only a fallback, used
    if the edited text would not parse to the mutated tree). A variant can
    coincide with the solution: HumanEval/13's gcd already ends with
    ``return a``, its first parameter *after* the loop reassigned it, so
    its ``wrong_return`` is the canonical text and still passes.

    Raises ``ValueError`` for an unknown variant, or when a problem offers
    nothing to mutate (the message names the problem).

    >>> problem = {"task_id": "demo/0", "entry_point": "add",
    ...            "prompt": "def add(a, b):\\n", "canonical_solution": "    return a + b\\n"}
    >>> print(build_completion(problem, "off_by_one"), end="")
        return (a + b) + 1

    Surprising: a one-line solution has no colon to drop, so its syntax
    error is a stray bracket instead.

    >>> print(build_completion(problem, "syntax_error"), end="")
        return a + b)
    """
    builders = {
        CANONICAL: lambda p: p["canonical_solution"],
        OFF_BY_ONE: _off_by_one,
        WRONG_RETURN: _wrong_return,
        INFINITE_LOOP: lambda p: _STUCK_LOOP + p["canonical_solution"],
        SYNTAX_ERROR: _syntax_error,
        EARLY_EXIT: lambda p: p["canonical_solution"] + _EXIT_TRAILER,
        NOT_GENERATED: lambda p: None,
    }
    if variant not in builders:
        raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    return builders[variant](problem)


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
