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
import re
import subprocess
from pathlib import Path, PurePosixPath

from reasoneval_mini.support.files import write_atomically
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


# --- translated markdown pages (README.zh-CN.md, docs/zh-CN/*.md) ---------------------------
#
# A translated page starts with one HTML comment naming its English page and the git blob
# of the English text it translates:
#
#     <!-- translation of docs/cheatsheet.md at blob <the 40 hex digits of git hash-object> -->
#
# The blob is computed here as git computes it, so checking needs no git; git (when present,
# and the blob is in the repository) only shows what changed since. After updating a
# translation, record the English it now translates with :func:`record_markdown_origin`.

__all__ += ["git_blob_hash", "markdown_origin", "record_markdown_origin", "stale_markdown"]

#: The first line of a translated page: its English page and that page's git blob.
MARKDOWN_ORIGIN = re.compile(
    r"\A<!-- translation of (?P<of>[^\s>]+) at blob (?P<blob>[0-9a-f]{40}) -->[ \t]*\r?\n?")
#: How long git may take to show an old version; the check itself never waits on git.
GIT_TIMEOUT_SECONDS = 10
#: At most this many diff lines are shown; the rest are counted.
MAX_DIFF_LINES = 200


def git_blob_hash(data):
    """The id git gives *data* (bytes, or text written as UTF-8): ``git hash-object``, no git needed.

    Git hashes ``b"blob <length>\\0"`` followed by the bytes, with SHA-1.

    >>> git_blob_hash(b"")
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'

    Surprising: one trailing newline is another blob.

    >>> git_blob_hash("hello\\n") == git_blob_hash("hello")
    False
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"git_blob_hash takes bytes or str, not {type(data).__name__}")
    return hashlib.sha1(b"blob %d\0" % len(data) + bytes(data)).hexdigest()  # noqa: S324 - git's id


def markdown_origin(english, name):
    """The first line of a translation of the English page at path *english*, recorded as *name*.

    *name* is the page's path from the repository root (``docs/cheatsheet.md``);
    the blob is that of the file as it is on disk now.
    """
    name = PurePosixPath(name).as_posix()
    if not re.fullmatch(r"[^\s>]+", name):
        raise ValueError(f"a page name without spaces or '>' is expected, not {name!r}")
    return f"<!-- translation of {name} at blob {git_blob_hash(Path(english).read_bytes())} -->"


def record_markdown_origin(translated, english, name=None):
    """Record in the page at *translated* that it now translates the English page *english*.

    Run it after updating a translation, from the repository root::

        python -c "from reasoneval_mini.editions import record_markdown_origin as r; r('docs/zh-CN/cheatsheet.md', 'docs/cheatsheet.md')"

    *name*, the English page's path from the repository root, defaults to
    *english* itself, which must then be relative. The first line, when it is
    an origin comment, is replaced; otherwise the comment is put above the
    page. Returns the line written.
    """
    if name is None:
        if Path(english).is_absolute():
            raise ValueError(f"give the page's name from the repository root for {english!r}: "
                             "an absolute path is not a name")
        name = english
    translated = Path(translated)
    text = translated.read_text(encoding="utf-8")
    line = markdown_origin(english, name)
    write_atomically(translated, line + "\n" + MARKDOWN_ORIGIN.sub("", text, count=1))
    return line


def _git_show(blob, folder):
    """The text of *blob* from the repository around *folder*, or ``None`` when git cannot say."""
    try:
        done = subprocess.run(["git", "cat-file", "-p", blob], cwd=folder, capture_output=True,
                              timeout=GIT_TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", errors="replace")


def stale_markdown(translated_text, english):
    """What changed in the English page at path *english* since *translated_text* was made from it.

    ``[]`` when the English file's blob (as ``git hash-object`` computes it) is
    the one the translation's first line records. Otherwise one text: the
    unified diff from the recorded English (``git cat-file -p <blob>``, when git
    and that blob are there) to the English of today, or, without them, a line
    saying that the hash differs. A page without the origin line, or recording
    another English page, gets one text saying so.

    >>> stale_markdown("# 标题\\n", "README.md")
    ['the translation does not start with <!-- translation of PAGE at blob <40 hex> -->']
    """
    english = Path(english)
    found = MARKDOWN_ORIGIN.match(translated_text)
    if not found:
        return ["the translation does not start with "
                "<!-- translation of PAGE at blob <40 hex> -->"]
    of, blob = found.group("of"), found.group("blob")
    if not (english.as_posix() == of or english.as_posix().endswith("/" + of)):
        return [f"the translation records that it translates {of}, not {english.as_posix()}"]
    data = english.read_bytes()
    now = git_blob_hash(data)
    if now == blob:
        return []
    then = _git_show(blob, english.parent)
    if then is None:
        return [f"{of} has changed since it was translated: its blob is {now}, the translation "
                f"records {blob} (git cannot show that version here, so no diff)"]
    diff = list(difflib.unified_diff(
        then.splitlines(), data.decode("utf-8", errors="replace").splitlines(),
        f"{of} at blob {blob[:12]} (translated)", f"{of} now", lineterm="", n=1))
    if len(diff) > MAX_DIFF_LINES:
        diff = diff[:MAX_DIFF_LINES] + [f"... {len(diff) - MAX_DIFF_LINES} more diff lines"]
    return [f"{of} has changed since it was translated (blob {blob[:12]} -> {now[:12]}):\n"
            + "\n".join(diff)]
