"""Markdown rendered as inert HTML: the one way a page of the grader turns Markdown into HTML.

Used for the hand-grading review pages (students' answers, the task, the
rubric) and the HTML class report. Student text is hostile, so rendering
is two steps (:func:`markdown_html`):

1. **mistune** (3.x) renders the Markdown with ``escape=True``: raw HTML in
   the text is escaped, never passed through, and a link or an image is
   rendered as its text and its address (never a link to follow or an image
   to load), except the page's own figures (*images*). mistune is the
   renderer nbconvert uses, so it comes with JupyterLab (jupyter-server needs
   nbconvert, which needs mistune and bleach); it is maintained and pure Python.
2. **bleach** then keeps only an allow-list of tags (:data:`ALLOWED_TAGS`)
   and no attribute, but the ``src`` and ``alt`` of those figures, stripping
   whatever step 1 let through. bleach is nbconvert's own sanitiser; it is
   deprecated for new projects (nh3 is its successor) but still receives
   security releases, and nh3 is not installed with JupyterLab. It is the
   second wall, not the first.

Without mistune or bleach the text is shown escaped, as written.

>>> html_out = markdown_html("**yes** <script>x()</script> [a](javascript:x())")
>>> "<strong>yes</strong>" in html_out, "<script" in html_out, "href" in html_out
(True, False, False)

Surprising: an image is shown as its address, never loaded, unless it is
one of the page's own figures.

>>> "<img" in markdown_html("![p](http://evil.example/p.png)")
False
>>> markdown_html("![f](f.png)", images={"f.png": "data:image/png;base64,AA=="})
'<p><img alt="f" src="data:image/png;base64,AA=="></p>\\n'
"""

import html

from reasoneval_mini.grading.escaping import html_text, printable

#: The only tags rendered text may keep (``img`` only for the page's own figures).
ALLOWED_TAGS = frozenset({
    "p", "br", "hr", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "span",
    "img"})


def _renderer(images):
    """``render(text) -> html`` with mistune and bleach, or ``None`` when either is missing."""
    try:
        import bleach
        import mistune
    except ImportError:
        return None

    class _InertRenderer(mistune.HTMLRenderer):
        # A link shows its text and its address; an image its description and its
        # address: nothing to click through, nothing loaded when the page opens.
        def link(self, text, url, title=None):
            return f"{text} <span>&lt;{html.escape(url)}&gt;</span>"

        def image(self, text, url, title=None):
            if url in images:
                return f'<img alt="{html.escape(text)}" src="{images[url]}">'
            return f"<span>[image: {text} &lt;{html.escape(url)}&gt;]</span>"

    own = set(images.values())

    def figure_only(tag, name, value):
        return tag == "img" and (name == "alt" or (name == "src" and value in own))

    markdown = mistune.create_markdown(escape=True, renderer=_InertRenderer(escape=True),
                                       plugins=["strikethrough", "table"])
    return lambda text: bleach.clean(markdown(text), tags=ALLOWED_TAGS, attributes=figure_only,
                                     protocols=("data",) if own else (), strip=True)


_RENDER = _renderer({})


def markdown_html(text, images=None):
    """*text* (Markdown, possibly a student's) as inert HTML: rendered, then sanitised.

    *images* maps the page's own figure names to ``data:`` URIs to embed;
    every other image stays an address.
    """
    text = printable(text)
    render = _renderer(dict(images)) if images else _RENDER
    if render is None:
        return f"<pre>{html_text(text)}</pre>"
    return render(text)
