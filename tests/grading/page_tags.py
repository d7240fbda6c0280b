"""What a browser would build from an HTML page: every start tag with its attributes.

The independent check of the grader's pages (review pages, class report):
the standard library's HTML parser, not the renderer or the sanitiser that wrote them.
"""

from html.parser import HTMLParser


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def page_tags(text):
    """``[(tag, {attribute: value})]`` of every start tag in *text*, in order."""
    parser = _Tags()
    parser.feed(text)
    parser.close()
    return parser.tags
