"""The instructor's pages as a browser shows them: the review page and the class report.

Issue 26: the review page showed the rubric and the answers as raw Markdown,
and the class report was read as text full of escapes. Here headless
Chromium opens both pages (file:// URLs, no server) after a real ``grade``
run of a class with a hostile answer, and checks what a person sees:
rendered text (no ``**``, no backslash escapes), the rubric's levels and
anchors, the report's two figures drawn, and nothing a student wrote alive:
no script ran (``onerror``/``onload`` handlers would set ``window.pwned``),
no request left the page, no element a student's HTML would have made.

Skipped when Playwright or Chromium is missing; with CI=true it fails instead.
"""

import csv
import importlib.util
import os
import sys
from pathlib import Path

import pytest
from jupyterlab_session import chromium_browser, find_chromium

pytestmark = pytest.mark.browser
# The grading tests' class builder and registries (tests/grading is not on the path here).
GRADING_TESTS = Path(__file__).resolve().parents[1] / "grading"

HOSTILE = ("**Because** runs count once. <img src=x onerror=\"window.pwned=1\"> "
           "<svg onload=\"window.pwned=2\"></svg> <script>window.pwned=3</script> "
           "[site](javascript:window.pwned=4) ![p](http://127.0.0.1:9/p.png) "
           "<iframe src=\"http://127.0.0.1:9/\"></iframe>")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    for module in ("playwright", "matplotlib", "mistune", "bleach"):
        if importlib.util.find_spec(module) is None:
            _unavailable(f"{module} is not installed")
    chromium = find_chromium()
    if chromium is None:
        _unavailable("no chromium on PATH nor at /usr/bin/chromium (apt-get install chromium)")
    if str(GRADING_TESTS) not in sys.path:
        sys.path.insert(0, str(GRADING_TESTS))
    from submission_class import main
    from test_criterion_grading import REGISTRY
    from test_written_tasks import write_written_class

    root = tmp_path_factory.mktemp("pages")
    (root / "registry.py").write_text(REGISTRY, encoding="utf-8")
    write_written_class(root / "subs", {"ada": "Runs of spaces count *once*.", "eve": HOSTILE})
    out = root / "out"
    assert main(["grade", str(root / "subs"), "--out", str(out / "grades.csv"), "--registry",
                 str(root / "registry.py"), "--no-progress", "--timeout", "5",
                 "--class-report", str(out / "report")]) == 0
    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        assert any(row["student"] == "eve" for row in csv.DictReader(handle))
    return chromium, out / "grades_written" / "explain_words.html", out / "report" / "class_report.html"


def _unavailable(reason):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true, so the browser test must run", pytrace=False)
    pytest.skip(reason)


def _open(chromium, path):
    """``(page text, requests other than the page, window.pwned, element counts)``."""
    with chromium_browser(chromium) as browser:
        page = browser.new_page()
        requests = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        page.wait_for_timeout(300)  # any handler a student's HTML set would have run by now
        text = page.inner_text("body")
        pwned = page.evaluate("() => window.pwned === undefined ? null : window.pwned")
        counts = page.evaluate("""() => ({
            scripts: document.querySelectorAll('body script, iframe, svg, object, embed').length,
            links: document.querySelectorAll('a[href]').length,
            handlers: [...document.querySelectorAll('body *')].filter(
                e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
            images: [...document.images].map(i => [i.src.slice(0, 22), i.naturalWidth > 0]),
            strong: document.querySelectorAll('strong').length,
            tables: document.querySelectorAll('table').length})""")
        others = [url for url in requests if url != path.as_uri() and not url.startswith("data:")]
        return text, others, pwned, counts


def test_the_review_page_renders_markdown_and_no_students_html_runs_or_loads(pages):
    chromium, review, _ = pages
    text, requests, pwned, counts = _open(chromium, review)
    assert pwned is None and requests == []
    assert counts["scripts"] == counts["links"] == counts["handlers"] == 0
    assert counts["images"] == []
    assert "**" not in text and "Because runs count once." in text  # rendered, not raw
    assert counts["strong"] >= 2 and counts["tables"] == 1  # the rubric is a table
    assert "'' has no words" in text  # an anchor answer of the rubric, shown
    assert "<img src=x" in text  # the student's HTML, shown as the text it is


def test_the_class_report_page_draws_its_figures_and_reads_without_escapes(pages):
    chromium, _, report = pages
    text, requests, pwned, counts = _open(chromium, report)
    assert pwned is None and requests == []
    assert counts["images"] == [["data:image/png;base64,", True]] * 2  # both drawn
    assert "\\_" not in text and "\\(" not in text and "&lt;" not in text
    assert counts["tables"] >= 2 and counts["scripts"] == counts["links"] == 0
