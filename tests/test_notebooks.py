"""Every notebook in notebooks/ is committed without outputs and runs top to bottom (nbclient)
against a temporary archive, passed to it through $DEBATE_ARCHIVE."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks_for_each_analysis():
    names = [p.name for p in NOTEBOOKS]
    assert len(names) >= 3, names
    assert any("archive" in n for n in names) and any("coverage" in n for n in names)
    assert any("batch" in n and "rating" in n for n in names)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stripped(path):
    import nbformat

    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: outputs not stripped"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    archive = tmp_path / "archive.duckdb"
    monkeypatch.setenv("DEBATE_ARCHIVE", str(archive))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    for var in ("DEBATE_MODEL", "DEBATE_API_BASE", "DEBATE_PACK"):
        monkeypatch.delenv(var, raising=False)
    book = nbformat.read(path, as_version=4)
    client = NotebookClient(book, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(REPO)}})
    client.execute()
    errors = [o for c in book.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert archive.is_file()  # the notebook used the temporary archive, not data/archive.duckdb
    from debate_core.archive import open_archive

    assert open_archive(archive, create=False).count_debates() > 0
