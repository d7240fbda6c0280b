"""The class report as a web page a person reads: rendered, figures embedded, student text inert.

Issue 26, item 4: the Markdown report read as plain text was full of
escapes (``classify\\_outcome\\('0.5'…\\)``, ``&lt;=``). The page shows the
same report rendered: escapes gone, tables as tables, the two figures as
images (embedded), and a student's hostile value as text.
"""

import base64
from fractions import Fraction
from types import SimpleNamespace as NS

import pytest
from page_tags import page_tags

pytest.importorskip("matplotlib")

from reasoneval_mini.grading.class_report import (  # noqa: E402
    DISTRIBUTION_FIGURE, REPORT_PAGE_NAME, STATUS_FIGURE, write_class_report)
from reasoneval_mini.grading.grader import Grade  # noqa: E402

EXERCISES = {"classify": NS(id="classify", notebook="ex01.ipynb", points=2, title="Classify",
                            answer_name="classify_outcome")}
HOSTILE = "<img src=http://e.x/p onerror=alert(1)> `t` *not bold*"  # shown whole (60 chars)


def _check(passed, actual):
    return {"name": "classify_outcome('0.5') <= 1", "passed": passed, "call": "c()",
            "expected": "'ok'", "actual": actual, "message": "", "attempted": True}


GRADES = [Grade("ada", "classify", Fraction(2), 2, "passed", "", (_check(True, "'ok'"),)),
          Grade("<b>bob</b>", "classify", Fraction(0), 2, "failed", "",
                (_check(False, HOSTILE),))]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    write_class_report(GRADES, EXERCISES, folder)
    return folder, (folder / REPORT_PAGE_NAME).read_text(encoding="utf-8")


def test_the_report_page_shows_the_text_without_markdown_escapes(page):
    _, text = page
    assert "classify_outcome('0.5') &lt;= 1" in text.replace("&#x27;", "'")
    assert "\\_" not in text and "\\(" not in text and "&amp;lt;" not in text
    assert "<table>" in text and "<h2>Hardest checks</h2>" in text


def test_the_report_page_embeds_its_own_two_figures_and_loads_nothing(page):
    folder, text = page
    images = [attrs for tag, attrs in page_tags(text) if tag == "img"]
    expected = ["data:image/png;base64," + base64.b64encode((folder / name).read_bytes()).decode()
                for name in (DISTRIBUTION_FIGURE, STATUS_FIGURE)]
    assert [attrs["src"] for attrs in images] == expected
    assert "default-src 'none'; img-src data:" in text


def test_a_students_value_on_the_report_page_is_text(page):
    _, text = page
    body = text.split("</head>", 1)[1]
    tags = page_tags(body)
    assert {tag for tag, _ in tags} <= {
        "body", "h1", "h2", "p", "img", "table", "thead", "tbody", "tr", "th", "td", "ol", "ul",
        "li", "code", "strong", "em", "span", "br"}
    assert all(set(attrs) <= {"src", "alt"} for _, attrs in tags)
    assert all(not attrs.get("src", "data:").startswith("http") for _, attrs in tags)
    assert "<code>&lt;img src=http://e.x/p onerror=alert(1)&gt; `t` *not bold*</code>" in body
    assert "<em>not bold</em>" not in body  # a value, shown as written
