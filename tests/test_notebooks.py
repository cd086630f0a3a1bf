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

    # the user's archive holds one debate: the notebooks never write into it, their demo data goes into a
    # scratch archive in the temporary folder
    from debate_core.archive import open_archive

    archive = tmp_path / "mine.duckdb"
    mine = open_archive(archive)
    mine.save(_one_debate())
    before = archive.read_bytes()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("DEBATE_ARCHIVE", str(archive))
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.delenv("DEBATE_NOTEBOOK_ARCHIVE", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    for var in ("DEBATE_MODEL", "DEBATE_API_BASE", "DEBATE_PACK"):
        monkeypatch.delenv(var, raising=False)
    book = nbformat.read(path, as_version=4)
    client = NotebookClient(book, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(REPO)}})
    client.execute()
    errors = [o for c in book.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert archive.read_bytes() == before and open_archive(archive, create=False).count_debates() == 1
    used = list(scratch.glob("debate-notebook-*/scratch.duckdb"))
    assert len(used) == 1 and open_archive(used[0], create=False).count_debates() > 0


def _one_debate():
    from debate_core.api import get_pack
    from debate_core.engines.offline import OfflineEngine
    from debate_core.models import DebateConfig
    from debate_core.protocols.master import MasterDebate

    pack = get_pack(None)
    md = MasterDebate(pack, OfflineEngine(pack))
    return md.run(md.prepare(DebateConfig(topic="放生一定有功德吗？", rounds=2)))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["01_explore_archive", "02_pack_coverage_and_ammo"])
def test_a_notebook_reads_the_users_archive_without_writing_to_it(name, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    from debate_core.archive import open_archive

    archive = tmp_path / "mine.duckdb"
    open_archive(archive).save(_one_debate())
    monkeypatch.setenv("DEBATE_NOTEBOOK_ARCHIVE", str(archive))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    book = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
    NotebookClient(book, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(REPO)}}).execute()
    errors = [o for c in book.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert open_archive(archive, create=False).count_debates() == 1  # read, nothing added
