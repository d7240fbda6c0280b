"""Every translated page (README.zh-CN.md, docs/zh-CN/*.md) is in step with its English page.

A translated page's first line records the English page and the git blob of the
English text it translates (``reasoneval_mini.editions.markdown_origin``). When
the English changes, the blob no longer matches and the test shows the diff.
The blob is checked against git's own ``git hash-object`` where git is installed.
"""

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from reasoneval_mini.editions import (
    git_blob_hash, markdown_origin, record_markdown_origin, stale_markdown, translated_languages)

ROOT = Path(__file__).resolve().parents[2]
GIT = shutil.which("git")
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```", re.MULTILINE | re.DOTALL)


def translated_pages():
    """``(English page, translated page)`` for every translated page on disk."""
    pairs = []
    for language in translated_languages():
        readme = ROOT / f"README.{language}.md"
        if readme.exists():
            pairs.append((ROOT / "README.md", readme))
        for page in sorted((ROOT / "docs" / language).glob("*.md")):
            pairs.append((ROOT / "docs" / page.name, page))
    return pairs


PAGES = translated_pages()


def _id(pair):
    return pair[1].relative_to(ROOT).as_posix()


def test_the_translated_pages_are_found():
    # Guards the parametrisation below: an empty glob would make it pass vacuously.
    assert {"README.zh-CN.md", "docs/zh-CN/cheatsheet.md",
            "docs/zh-CN/evaluate-your-own-model.md"} <= {_id(pair) for pair in PAGES}


@pytest.mark.parametrize("pair", PAGES, ids=_id)
def test_every_translated_page_has_an_english_page(pair):
    english, translated = pair
    assert english.is_file(), f"{_id(pair)} translates nothing: no {english.relative_to(ROOT)}"


@pytest.mark.parametrize("pair", PAGES, ids=_id)
def test_translated_page_is_in_step_with_the_english(pair):
    english, translated = pair
    changes = stale_markdown(translated.read_text(encoding="utf-8"), english)
    record = ('python -c "from reasoneval_mini.editions import record_markdown_origin as r; '
              f"r('{_id(pair)}', '{english.relative_to(ROOT).as_posix()}')\"")
    assert changes == [], (f"{_id(pair)} is behind {english.relative_to(ROOT)}:\n"
                           + "\n".join(changes) + "\nUpdate the translation, then record it "
                           f"from the repository root: {record}")


@pytest.mark.parametrize("pair", PAGES, ids=_id)
def test_translated_page_links_back_to_its_english_page(pair):
    english, translated = pair
    at_root = translated.parent == ROOT
    to_english = english.name if at_root else f"../{english.name}"
    to_translation = translated.name if at_root else f"{translated.parent.name}/{translated.name}"
    top_of = lambda path: "\n".join(path.read_text(encoding="utf-8").splitlines()[:4])  # noqa: E731
    assert f"[English]({to_english})" in top_of(translated), _id(pair)
    assert f"]({to_translation})" in top_of(english), (
        f"{english.relative_to(ROOT)} does not link to {_id(pair)} at its top")


def code_of(text):
    """A page's fenced blocks as they run: shell blocks as their command lines (comments, which
    a translation may translate, dropped), every other block exactly."""
    blocks = []
    for _, language, block in FENCE.findall(text):
        if language in ("bash", "sh"):
            joined = re.sub(r"\\\n\s*", " ", block)
            block = [words for words in (shlex.split(line, comments=True)
                                         for line in joined.splitlines()) if words]
        blocks.append((language, block))
    return blocks


@pytest.mark.parametrize("pair", PAGES, ids=_id)
def test_translated_page_shows_the_english_code_and_commands(pair):
    english, translated = pair
    ours = code_of(english.read_text(encoding="utf-8"))
    theirs = code_of(translated.read_text(encoding="utf-8"))
    assert theirs == ours, _id(pair)


def test_a_changed_command_is_caught():
    page = "```bash\nreasoneval-course grade subs/ --out g.csv  # 评分\n```\n"
    assert code_of(page) == code_of(page.replace("# 评分", "# grade"))
    assert code_of(page) != code_of(page.replace("g.csv", "grades.csv"))


@pytest.mark.skipif(GIT is None, reason="git is not installed: no reference hash to compare")
@pytest.mark.parametrize("data", [b"", b"hello\n", "中文版\r\n".encode("utf-8"), bytes(range(256))])
def test_the_blob_hash_is_gits(tmp_path, data):
    path = tmp_path / "file"
    path.write_bytes(data)
    reference = subprocess.run([GIT, "hash-object", str(path)], capture_output=True, text=True,
                               check=True).stdout.strip()
    assert git_blob_hash(data) == reference


def _copy(tmp_path, english):
    """A copy of the English page and its translation, the translation recording the copy."""
    copy = tmp_path / english.name
    copy.write_bytes(english.read_bytes())
    translated = "# 译文\n"
    return copy, markdown_origin(copy, english.name) + "\n" + translated


def _change_a_line(path):
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith("#"))
    old = lines[index].rstrip("\n")
    lines[index] = "A sentence the translation has never seen.\n"
    path.write_text("".join(lines), encoding="utf-8")
    return old


def test_a_changed_english_page_is_stale_and_shows_the_diff(tmp_path):
    if GIT is None:
        pytest.skip("git is not installed: the diff needs the old version from git")
    english = ROOT / "docs" / "cheatsheet.md"
    copy, translated = _copy(tmp_path, english)
    subprocess.run([GIT, "init", "-q", str(tmp_path)], check=True)
    subprocess.run([GIT, "hash-object", "-w", str(copy)], cwd=tmp_path, check=True,
                   capture_output=True)
    assert stale_markdown(translated, copy) == []
    old = _change_a_line(copy)
    [change] = stale_markdown(translated, copy)
    assert change.startswith("cheatsheet.md has changed since it was translated")
    assert f"\n-{old}\n" in change and "\n+A sentence the translation has never seen." in change


def test_without_the_old_version_a_changed_page_is_stale_by_its_hash(tmp_path):
    english = ROOT / "README.md"
    copy, translated = _copy(tmp_path, english)  # tmp_path is no repository: git shows nothing
    recorded = git_blob_hash(copy.read_bytes())
    _change_a_line(copy)
    [change] = stale_markdown(translated, copy)
    assert "README.md has changed since it was translated" in change
    assert recorded in change and git_blob_hash(copy.read_bytes()) in change
    assert "no diff" in change


def test_a_page_without_an_origin_or_of_another_page_is_named(tmp_path):
    english = ROOT / "README.md"
    assert "does not start with" in stale_markdown("# 标题\n", english)[0]
    line = markdown_origin(english, "docs/cheatsheet.md")
    assert "translates docs/cheatsheet.md, not" in stale_markdown(line + "\n", english)[0]
    with pytest.raises(ValueError, match="'my page.md'"):
        markdown_origin(english, "my page.md")


def test_recording_replaces_the_old_origin_line(tmp_path):
    english = tmp_path / "page.md"
    english.write_text("# Page\n\nOne.\n", encoding="utf-8")
    translated = tmp_path / "page.zh-CN.md"
    translated.write_text("# 页面\n\n一。\n", encoding="utf-8")
    record_markdown_origin(translated, english, "page.md")
    english.write_text("# Page\n\nOne, two.\n", encoding="utf-8")
    assert stale_markdown(translated.read_text(encoding="utf-8"), english) != []
    line = record_markdown_origin(translated, english, "page.md")
    text = translated.read_text(encoding="utf-8")
    assert text == line + "\n# 页面\n\n一。\n"
    assert stale_markdown(text, english) == []
    with pytest.raises(ValueError, match="absolute path"):
        record_markdown_origin(translated, english)


def test_recording_by_the_english_path_from_the_root(tmp_path, monkeypatch):
    (tmp_path / "docs" / "zh-CN").mkdir(parents=True)
    (tmp_path / "docs" / "page.md").write_text("# Page\n", encoding="utf-8")
    (tmp_path / "docs" / "zh-CN" / "page.md").write_text("# 页面\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    line = record_markdown_origin("docs/zh-CN/page.md", "docs/page.md")
    assert line == f"<!-- translation of docs/page.md at blob {git_blob_hash(b'# Page' + bytes([10]))} -->"
    assert stale_markdown(Path("docs/zh-CN/page.md").read_text(encoding="utf-8"),
                          "docs/page.md") == []
