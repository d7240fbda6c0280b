"""Read a notebook file's JSON: the one first step of every notebook reader of the package.

The grader reads notebooks that learners may have broken by hand
(:mod:`reasoneval_mini.grading.notebooks`); ``build-exercises`` reads the
instructor's masters and then validates them with nbformat
(:mod:`reasoneval_mini.exercises.build`). Both start here, so a file that is
not a notebook is refused the same way, with the same words: the file's name
and what is wrong, never a parser's traceback.

>>> load_notebook_json(b'{"cells": []}', "ex01.ipynb")
{'cells': []}
>>> load_notebook_json(b'{"cells": [', "ex01.ipynb")
Traceback (most recent call last):
...
reasoneval_mini.support.notebook_json.NotebookError: ex01.ipynb is not valid notebook JSON (line 1, column 12: Expecting value)

Surprising: valid JSON is not yet a notebook.

>>> load_notebook_json(b"[]", "ex01.ipynb")
Traceback (most recent call last):
...
reasoneval_mini.support.notebook_json.NotebookError: ex01.ipynb is JSON but not a notebook: no 'cells' list
"""

import json

from reasoneval_mini.support.text import shorten


class NotebookError(ValueError):
    """The file is not a readable notebook; the message names it and why."""


def load_notebook_json(data, name):
    """The notebook object (a dict with a ``cells`` list) of the file whose bytes are *data*.

    Raises :class:`NotebookError` naming *name* for anything else, however
    the parser fails (bad UTF-8, bad JSON, nesting too deep, out of memory).
    """
    try:
        notebook = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise NotebookError(f"{name} cannot be read: {shorten(error)}") from None
    except json.JSONDecodeError as error:
        raise NotebookError(
            f"{name} is not valid notebook JSON (line {error.lineno}, "
            f"column {error.colno}: {error.msg})") from None
    except RecursionError:
        raise NotebookError(f"{name} cannot be parsed: its JSON is nested too deeply "
                            "(RecursionError)") from None
    except MemoryError:
        raise NotebookError(f"{name} cannot be parsed: out of memory (MemoryError)") from None
    except Exception as error:  # noqa: BLE001 - any other parser failure costs this notebook only
        raise NotebookError(f"{name} cannot be parsed: {type(error).__name__}: "
                            f"{shorten(error)}") from None
    if not (isinstance(notebook, dict) and isinstance(notebook.get("cells"), list)):
        raise NotebookError(f"{name} is JSON but not a notebook: no 'cells' list")
    return notebook
