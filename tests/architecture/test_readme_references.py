"""Every module path, file link, import and command the README and the docs/ pages show exists.

The README is the front page (quick start, course map, exercises in brief,
links); the manual lives in ``docs/*.md``. Both are read here the same way:
an import line must run, a ``reasoneval_mini.x`` path must import, a link to a
package file must exist, and a ``reasoneval-course`` command must parse with
the command's own parser (the flags shown exist and take what is given).
Links and anchors between the pages are checked in ``test_doc_links.py``.
"""

import importlib
import re
import shlex
from pathlib import Path

import pytest

import reasoneval_mini
from reasoneval_mini.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The README first, then every page under docs/, then the translated pages (README.zh-CN.md,
#: docs/zh-CN/*.md), each with its text.
PAGES = {"README.md": README, **{
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in [*sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("README.*.md")),
                 *sorted((ROOT / "docs").glob("*/*.md"))]}}
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```", re.MULTILINE | re.DOTALL)


def _on_pages(pattern, flags=0):
    """``(page, match)`` for every match of *pattern* on every page, each once."""
    return sorted({(page, found) for page, text in PAGES.items()
                   for found in re.findall(pattern, text, flags)})


def test_the_pages_are_found():
    # Guards the parametrisations below: an empty docs/ glob would make them pass vacuously.
    assert {"docs/instructor-guide.md", "docs/executor.md", "docs/exercises.md",
            "docs/library.md", "docs/evaluate-your-own-model.md", "README.zh-CN.md",
            "docs/zh-CN/cheatsheet.md", "docs/zh-CN/evaluate-your-own-model.md"} <= set(PAGES)


@pytest.mark.parametrize("page, statement", _on_pages(
    r"^\s*(from reasoneval_mini[\w.]* import [\w, ]+)$", re.MULTILINE))
def test_every_import_the_pages_show_works(page, statement):
    namespace = {}
    exec(statement, namespace)  # noqa: S102 - our own pages' import lines


@pytest.mark.parametrize("page, link", _on_pages(r"\]\(((?:\.\./)*reasoneval_mini/[^)#]+)"))
def test_every_linked_package_file_exists(page, link):
    assert ((ROOT / page).parent / link).is_file(), f"{page}: {link}"


def test_every_public_name_in_the_library_table_is_exported():
    library = PAGES["docs/library.md"]
    table = library[library.index("## The public names"):library.index("All of these import")]
    names = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", table)) - {"reasoneval_mini"}
    missing = sorted(name for name in names if not hasattr(reasoneval_mini, name))
    assert missing == []
    assert set(reasoneval_mini.__all__) - names <= {"ASSERTION_FAILED", "TIMEOUT",
                                                    "RUNTIME_ERROR", "PASSED", "NOT_RUN",
                                                    "GSM8K_MARKER", "MAX_ANSWER_LENGTH",
                                                    "MAX_ENUMERATED_SUBSETS",
                                                    "PassAtKInterval"}


@pytest.mark.parametrize("page, path", _on_pages(r"`(reasoneval_mini(?:\.\w+)+)`"))
def test_every_module_path_the_pages_name_imports(page, path):
    importlib.import_module(path)


def test_the_quick_start_runs_the_tests_before_starting_the_server_from_the_root():
    quick_start = README[README.index("## Quick start"):README.index("## Course map")]
    assert quick_start.index("python -m pytest") < quick_start.index("jupyter lab")
    assert "--allow-root" in quick_start and "python3" in quick_start
    lesson_00 = (ROOT / "notebooks" / "00_start_here.ipynb").read_text(encoding="utf-8")
    for text in (README, lesson_00):
        assert "jupyter lab notebooks" not in text  # would hide exercises/
    assert "from the repository root" in lesson_00


def test_the_set_up_commands_come_first_and_activate_works_in_sh():
    # The two set-up commands (make the environment, install) are the README's first
    # code; `source` does not exist in /bin/sh, which a JupyterLab terminal may start.
    first = FENCE.search(README).group(3)
    assert README.index("## Quick start") < README.index(first)
    assert first.splitlines()[0].startswith("python -m venv .venv")
    assert first.splitlines()[-1].startswith('python -m pip install -e ".[dev]"')
    for page, text in PAGES.items():
        for _, language, block in FENCE.findall(text):
            if language in ("bash", "sh"):
                assert not re.search(r"^\s*source ", block, re.MULTILINE), page


def _shell_lines(block):
    """The lines of a shell block, continuation lines joined, comments and blanks dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line for line in (shlex.split(raw, comments=True) for raw in joined.splitlines())
            if line]


def _commands_in_blocks():
    found = []
    for page, text in PAGES.items():
        for _, language, block in FENCE.findall(text):
            if language in ("bash", "sh"):
                found += [(page, " ".join(words)) for words in _shell_lines(block)
                          if words[0] == "reasoneval-course"]
    return found


COMMANDS = _commands_in_blocks()


def test_the_pages_show_the_class_commands():
    shown = {command.split()[1] for _, command in COMMANDS}
    assert {"doctor", "progress", "build-exercises", "collect", "grade", "evaluate"} <= shown


@pytest.mark.parametrize("page, command", COMMANDS)
def test_every_command_in_a_shell_block_parses(page, command, capsys):
    parser = build_parser()
    try:
        args = parser.parse_args(shlex.split(command)[1:])
    except SystemExit:
        pytest.fail(f"{page}: `{command}` does not parse: {capsys.readouterr().err}")
    assert args.command is not None


def _inline_commands():
    """Inline code that shows a command with options (``reasoneval-course grade --key FILE``)."""
    return _on_pages(r"`(reasoneval-course [a-z-]+ [^`]*--[^`]*)`")


def _options(parser):
    actions = list(parser._actions)  # noqa: SLF001 - argparse keeps its options here
    return {option for action in actions for option in action.option_strings}


@pytest.mark.parametrize("page, span", _inline_commands())
def test_every_option_an_inline_command_names_exists(page, span):
    words = span.split()
    command = build_parser().commands.choices[words[1]]
    if words[1] == "evaluate" and len(words) > 2 and words[2] in command.kinds.choices:
        command = command.kinds.choices[words[2]]
    unknown = [word for word in words[2:]
               if word.startswith("--") and word.split("=")[0] not in _options(command)]
    assert unknown == [], f"{page}: `{span}`"


def test_a_bad_flag_is_caught():
    # The parse test above must fail on a flag the command does not have.
    with pytest.raises(SystemExit):
        build_parser().parse_args(["build-exercises", "--classes", "roster.csv"])
    assert "--classes" not in _options(build_parser().commands.choices["build-exercises"])


def _plain(text):
    """*text* without code marks and commas: the distinctions are written both ways."""
    return re.sub(r"\s+", " ", text.replace("`", "").replace(",", ""))


@pytest.mark.parametrize("page", ["docs/exercises.md", "docs/instructor-guide.md"])
def test_the_pages_name_the_distinctions_that_cap_an_exercise(page):
    # The closed set lives in checks.py; a page that lists the distinctions lists all of them.
    from reasoneval_mini.exercises.checks import DISTINCTIONS

    text = _plain(PAGES[page])
    assert "at most a third" in text
    assert [name for name in DISTINCTIONS if _plain(name) not in text] == []


def test_the_pages_give_the_variant_and_key_facts_the_code_has():
    from reasoneval_mini.exercises.variants import DEFAULT_IDENTITY
    from reasoneval_mini.grading.keys import KEY_BYTES, default_key_path

    exercises, guide = PAGES["docs/exercises.md"], PAGES["docs/instructor-guide.md"]
    for text in (exercises, guide, README):
        assert f"`{DEFAULT_IDENTITY}`" in text
    assert f"use_variant('{DEFAULT_IDENTITY}')" in exercises
    key = default_key_path()
    assert f"~/.config/{key.parent.name}/{key.name}" in guide
    assert f"{KEY_BYTES} random bytes, kept as {2 * KEY_BYTES}" in guide
    assert "solutions/answer_key.py" in guide and "solutions/answer_key.py" in exercises
