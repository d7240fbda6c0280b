"""Notebook metadata JupyterLab does not rewrite on open, so opening one does not mark it modified."""

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
    (ROOT / "exercises").glob("*.ipynb")) + sorted((ROOT / "solutions").glob("*.ipynb"))


def installed_kernelspec():
    """What ipykernel installs as the ``python3`` kernel (JupyterLab copies it into the notebook)."""
    from ipykernel.kernelspec import get_kernel_dict

    spec = get_kernel_dict()
    return {"display_name": spec["display_name"], "language": spec["language"], "name": "python3"}


def test_the_notebook_list_covers_all_three_folders():
    folders = {path.parent.name for path in NOTEBOOKS}
    assert folders == {"notebooks", "exercises", "solutions"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_kernelspec_is_the_one_jupyterlab_would_write(path):
    notebook = nbformat.read(path, as_version=4)
    assert notebook.metadata.get("kernelspec") == installed_kernelspec()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_stored_widget_state(path):
    # JupyterLab rewrites widget state when it saves; a stored copy is stale on open.
    assert "widgets" not in nbformat.read(path, as_version=4).metadata


def kernel_language_info():
    """What the Python kernel reports on start (JupyterLab copies it into the notebook)."""
    from ipykernel.ipkernel import IPythonKernel

    return dict(IPythonKernel.language_info)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_language_info_is_complete_as_the_kernel_reports_it(path):
    # Only the version can differ from a learner's kernel (then JupyterLab
    # updates it on open); everything else must already be what it writes.
    stored = dict(nbformat.read(path, as_version=4).metadata.get("language_info", {}))
    expected = kernel_language_info()
    assert set(stored) == set(expected)
    stored.pop("version"), expected.pop("version")
    assert stored == expected


def test_every_notebook_records_the_same_python_version():
    versions = {nbformat.read(path, as_version=4).metadata["language_info"]["version"]
                for path in NOTEBOOKS}
    assert len(versions) == 1, versions


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_cell_stores_when_it_was_run(path):
    # nbconvert --execute records wall-clock times per cell (metadata.execution);
    # they change on every run, so a re-executed notebook would differ for nothing.
    timed = [index for index, cell in enumerate(nbformat.read(path, as_version=4).cells)
             if "execution" in cell.metadata]
    assert timed == [], f"cells {timed} store execution timestamps: strip metadata.execution"
