"""The course's language editions: one program, its text in English or in Chinese.

The English notebooks are the source. A translated notebook has the same file
name one folder down (``notebooks/zh-CN/01_answer_equivalence.ipynb``, and the
same under ``solutions/`` and ``exercises/``) and the same cells in the same
order: each markdown cell is the translation of the English cell at its
place, and each code cell runs the same program.

*The same program* (:func:`program_differences`) is checked on the syntax
tree, so comments and layout are free. A string may differ only where it is
text for the reader: an argument of :data:`TEXT_CALLS` (``print``, a plot's
labels and title, ...) or of a ``label=``/``title=`` keyword. Identifiers,
calls and numbers are the same, and so is every other string. The one
statement a translation adds is ``use_language("zh-CN")`` (with its import),
which makes the library's messages speak the notebook's language.

*In step* (:func:`stale_cells`): each translated notebook records, in
``metadata["reasoneval"]["translation"]``, the English markdown it translates
(:func:`origin_record`). When the English changes, the record no longer
matches and the staleness test shows, cell by cell, what changed since.

>>> english = {"cells": [{"cell_type": "code", "source": "print('Right.')  # done"}]}
>>> chinese = {"cells": [{"cell_type": "code", "source": "print('正确。')"}]}
>>> program_differences(english, chinese)
[]

Surprising: a translated number is a different program, even in a message.

>>> english = {"cells": [{"cell_type": "code", "source": "rate = round(0.125, 3)"}]}
>>> chinese = {"cells": [{"cell_type": "code", "source": "rate = round(0.125, 2)"}]}
>>> program_differences(english, chinese)
['code cell 1 runs a different program: rate = round(0.125, 3) | rate = round(0.125, 2)']
"""

import ast
import difflib
import hashlib
import json
from pathlib import Path, PurePosixPath

from reasoneval_mini.support.i18n import DEFAULT_LANGUAGE, LANGUAGES

__all__ = ["TEXT_CALLS", "TRANSLATION_KEY", "edition_path", "markdown_cells", "origin_record",
           "program_differences", "stale_cells", "translated_languages"]

#: Calls whose string arguments are text for the reader, free to translate.
TEXT_CALLS = frozenset({
    "print", "Markdown", "HTML", "display", "set_xlabel", "set_ylabel", "set_title",
    "xlabel", "ylabel", "title", "suptitle", "legend", "text", "annotate", "set_label",
})
#: Keywords whose string values are text for the reader, in any call.
TEXT_KEYWORDS = frozenset({"label", "title", "xlabel", "ylabel", "description"})
#: The statement a translated notebook adds to set the library's language.
LANGUAGE_CALL = "use_language"
#: Where a translated notebook records the English it translates.
TRANSLATION_KEY = "translation"


def translated_languages():
    """The languages with an edition of their own (every one but English)."""
    return tuple(name for name in LANGUAGES if name != DEFAULT_LANGUAGE)


def edition_path(english, language):
    """Where the *language* edition of the English notebook at path *english* lives.

    >>> edition_path("notebooks/02_pass_at_k.ipynb", "zh-CN").as_posix()
    'notebooks/zh-CN/02_pass_at_k.ipynb'
    >>> edition_path("notebooks/02_pass_at_k.ipynb", "en").as_posix()
    'notebooks/02_pass_at_k.ipynb'
    """
    english = Path(english)
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; expected one of: {', '.join(LANGUAGES)}")
    return english if language == DEFAULT_LANGUAGE else english.parent / language / english.name


def _source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def markdown_cells(notebook):
    """The sources of *notebook*'s markdown cells, in order."""
    return [_source(cell) for cell in notebook["cells"] if cell.get("cell_type") == "markdown"]


def _fingerprint(markdown):
    return hashlib.sha256(json.dumps(markdown, ensure_ascii=False).encode("utf-8")).hexdigest()


def origin_record(english, name):
    """What a translation of the English notebook *english* (file *name*) records of it.

    ``{"of": name, "sha256": ..., "markdown": [...]}``: the English markdown
    cells themselves, so that a stale translation can show what changed
    without the English notebook's history.
    """
    markdown = markdown_cells(english)
    return {"of": PurePosixPath(name).as_posix(), "sha256": _fingerprint(markdown),
            "markdown": markdown}


def stale_cells(english, translated):
    """What changed in the English notebook since *translated* was made from it.

    ``[]`` when the translation is in step; otherwise one text per changed
    markdown cell (a unified diff, recorded English against the English of
    today), or one line saying the translation records no origin.
    """
    record = ((translated.get("metadata") or {}).get("reasoneval") or {}).get(TRANSLATION_KEY)
    if not record or "markdown" not in record:
        return ["the translation records no English origin "
                f"(metadata['reasoneval'][{TRANSLATION_KEY!r}])"]
    now = markdown_cells(english)
    then = list(record["markdown"])
    if _fingerprint(now) == record.get("sha256") and now == then:
        return []
    changes = []
    if len(now) != len(then):
        changes.append(f"the English has {len(now)} markdown cells, the translation was made "
                       f"from {len(then)}")
    for number, (old, new) in enumerate(zip(then, now), 1):
        if old != new:
            diff = difflib.unified_diff(old.splitlines(), new.splitlines(), "translated from",
                                        "English now", lineterm="", n=1)
            changes.append(f"markdown cell {number}:\n" + "\n".join(diff))
    return changes


class _Masked(ast.NodeTransformer):
    """Replace reader-facing strings by one placeholder; drop the language statement."""

    def _mask(self, node):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and (
                isinstance(node, ast.JoinedStr) or isinstance(node.value, str)):
            return ast.Constant(value="<text>")
        return self.visit(node)

    def visit_Call(self, node):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
            node.func, "id", None)
        if name in TEXT_CALLS:
            node.args = [self._mask(arg) for arg in node.args]
        else:
            node.args = [self.visit(arg) for arg in node.args]
        node.func = self.visit(node.func)
        for keyword in node.keywords:
            keyword.value = (self._mask(keyword.value) if keyword.arg in TEXT_KEYWORDS
                             else self.visit(keyword.value))
        return node

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == LANGUAGE_CALL:
            return None
        return self.generic_visit(node)

    def visit_ImportFrom(self, node):
        node.names = [alias for alias in node.names if alias.name != LANGUAGE_CALL]
        return node if node.names else None


def _program(source):
    """The cell's program as a comparable text; magic lines (``%``, ``!``) are kept verbatim."""
    lines = source.splitlines()
    magics = [line.strip() for line in lines if line.lstrip().startswith(("%", "!"))]
    python = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
    try:
        tree = _Masked().visit(ast.parse(python))
    except SyntaxError as error:
        return f"<syntax error: {error.msg}>"
    return "\n".join(magics + [ast.unparse(tree)])


def program_differences(english, translated):
    """Where *translated* does not run the program of *english*: ``[]`` when it does.

    Cells are compared in order; one text per difference names the cell
    (counted among cells of its kind, from 1) and shows both programs.
    """
    def kinds(notebook):
        return [cell.get("cell_type") for cell in notebook["cells"]]

    if kinds(english) != kinds(translated):
        return [f"the cells differ in kind or number: English {kinds(english)}, "
                f"translation {kinds(translated)}"]
    differences = []
    codes = [(_source(a), _source(b)) for a, b in zip(english["cells"], translated["cells"])
             if a.get("cell_type") == "code"]
    for number, (ours, theirs) in enumerate(codes, 1):
        a, b = _program(ours), _program(theirs)
        if a != b:
            differences.append(f"code cell {number} runs a different program: "
                               f"{' / '.join(a.splitlines())} | {' / '.join(b.splitlines())}")
    return differences
