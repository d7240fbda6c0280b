"""Every relative link of the README, the docs/ pages and the lessons reaches a file and heading.

The README stays a front page (issue 26): under :data:`README_MAX_LINES`
lines; the manual is the pages under ``docs/``, which link to each other and
back. A link is ``[text](target)``; a target with a scheme (``https:``,
``mailto:``) is outside the repository and not followed. An anchor
(``page.md#part``) must be the GitHub slug of a heading of that page:
lower case, punctuation but ``-`` and ``_`` dropped, spaces as ``-``,
a repeated slug numbered ``-1``, ``-2``, ... Headings inside code fences
are not headings.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The README is quick start, course map, exercises in brief and links: a few screens.
README_MAX_LINES = 160
#: The README, the pages under docs/, and their translations (README.zh-CN.md, docs/zh-CN/*.md).
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted(ROOT.glob("README.*.md")), *sorted((ROOT / "docs").glob("*/*.md"))]
LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "notebooks").glob("*/*.ipynb"))
LINK = re.compile(r"\[[^\]]*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^ *```.*?^ *```", re.MULTILINE | re.DOTALL)


def slug(heading):
    """GitHub's anchor for a heading's text.

    >>> slug("The grader's sandbox"), slug("Code samples: `evaluate code`")
    ('the-graders-sandbox', 'code-samples-evaluate-code')
    """
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    """Every anchor a page offers, repeated headings numbered as GitHub numbers them."""
    seen, found = {}, set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", FENCE.sub("", path.read_text(
            encoding="utf-8")), re.MULTILINE):
        base = slug(heading)
        found.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return found


def markdown_of(path):
    """A page's text, or a notebook's markdown cells joined (the lessons link the docs too)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        cells = json.loads(text)["cells"]
        text = "\n\n".join("".join(cell["source"]) for cell in cells
                             if cell["cell_type"] == "markdown")
    return FENCE.sub("", text)


def relative_links():
    """``(page, target)`` for every link of the pages and lessons that stays in the repository."""
    links = []
    for page in [*PAGES, *LESSONS]:
        links += [(page.relative_to(ROOT).as_posix(), target)
                  for target in LINK.findall(markdown_of(page))
                  if not re.match(r"[a-z][a-z0-9+.-]*:", target)]
    return links


def test_the_anchors_are_computed_as_github_does():
    # Known slugs, by hand from GitHub's rule, for headings this repository really has.
    assert "scoring-an-lm-evaluation-harness-log" in anchors(
        ROOT / "docs" / "evaluate-your-own-model.md")
    assert "variants-one-set-of-notebooks-per-student" in anchors(
        ROOT / "docs" / "instructor-guide.md")
    assert "quick-start" in anchors(ROOT / "README.md")


def test_the_pages_link_each_other():
    # Fewer links than this would mean the pattern stopped matching, not that all are fine.
    assert len(relative_links()) >= 30


def link_problem(page, target):
    """What is wrong with *target*, a link on *page* (a path), or ``None`` when it reaches."""
    path, _, anchor = target.partition("#")
    where = page.parent / path if path else page
    if not where.exists():
        return f"{target}: no such file"
    if anchor and where.suffix != ".md":
        return f"{target}: an anchor into a file that is not a page"
    if anchor and anchor not in anchors(where):
        return f"{target}: no heading with that anchor; it has {sorted(anchors(where))}"
    return None


@pytest.mark.parametrize("page, target", relative_links())
def test_every_relative_link_reaches_a_file_and_its_anchor(page, target):
    assert link_problem(ROOT / page, target) is None, page


def test_a_broken_link_and_anchor_are_caught(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n## A part\n\n```\n## not a heading\n```\n", encoding="utf-8")
    assert anchors(page) == {"top", "a-part"}
    assert link_problem(page, "#a-part") is None and link_problem(page, "page.md#top") is None
    assert "no such file" in link_problem(page, "missing.md")
    assert "no heading" in link_problem(page, "page.md#not-a-heading")
    assert "no heading" in link_problem(page, "#a_part")


def test_the_readme_fits_on_a_few_screens():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines, over {README_MAX_LINES}: move the details to a page "
        f"under docs/ and link it")
