"""The archive is sealed: every SQL statement against its tables lives in debate_core/archive/,
behind a named, documented method or function.  Nothing else in the workbench (the rest of the
library, the app, the pages, the benchmarks, scripts) holds SQL text that reads or writes an
archive table; the tests may (they inspect what was stored).  The user's own read-only SQL goes
through ``Archive.sql`` (its example queries live in the archive too: ``SQL_EXAMPLES``).

The tables are read from the migrations, so a table added later is covered at once."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from debate_core.archive.migrations import archive_tables

ROOT = Path(__file__).resolve().parent.parent
SEALED = ROOT / "debate_core" / "archive"
SKIP_DIRS = {"tests", "data", "node_modules", "__pycache__"}


def _outside_files() -> list[Path]:
    """Every .py file of the repository outside the archive package and the tests (hidden folders,
    such as the virtual environment, left out)."""
    out = []
    for p in sorted(ROOT.rglob("*.py")):
        rel = p.relative_to(ROOT)
        if any(part.startswith(".") or part in SKIP_DIRS for part in rel.parts[:-1]):
            continue
        if p.is_relative_to(SEALED):
            continue
        out.append(p)
    return out


def _pattern() -> re.Pattern[str]:
    """A statement against an archive table: SELECT … FROM / JOIN it, INSERT INTO it, UPDATE it SET,
    DELETE FROM it, COPY it, or DDL on it (keywords in capitals, as the workbench writes SQL, or a
    whole string in lower case that starts with the statement).  ``{…}`` stands for a table
    interpolated into an f-string: SQL with a table name made at run time counts too."""
    tables = "|".join(sorted(map(re.escape, archive_tables()), key=len, reverse=True))
    name = rf"(?:(?:\w+\.)?(?:{tables}|search_run_\w+)\b|\{{)"
    upper = (rf"\bSELECT\b[\s\S]*?\b(?:FROM|JOIN)\s+{name}"
             rf"|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\s+{name}"
             rf"|\bUPDATE\s+{name}\s*[\s\S]*?\bSET\b"
             rf"|\bDELETE\s+FROM\s+{name}"
             rf"|\bCOPY\s+{name}"
             rf"|\b(?:CREATE|ALTER|DROP|TRUNCATE)\s+(?:TABLE|VIEW)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?{name}")
    lower = rf"^\s*(?:select\b[\s\S]*?\b(?:from|join)|insert\s+into|delete\s+from|update)\s+{name}"
    return re.compile(rf"{upper}|(?i:{lower})")


SQL = _pattern()


def _strings(source: str) -> list[tuple[int, str]]:
    """Every string literal of a module with its line: plain strings (adjacent literals already
    joined by the parser) and f-strings, whose interpolations read ``{}``."""
    tree = ast.parse(source)
    parts_of_fstrings = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}"
                           for v in node.values)
            out.append((node.lineno, text))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts_of_fstrings:
            out.append((node.lineno, node.value))
    return out


def _sql_in(source: str) -> list[tuple[int, str]]:
    """(line, the statement's opening) for each string of ``source`` holding SQL against an archive table."""
    hits = []
    for line, text in _strings(source):
        m = SQL.search(text)
        if m:
            hits.append((line, " ".join(m.group(0).split())[:80]))
    return hits


# --------------------------------------------------------------- the finder


CAUGHT = [
    'con.execute("SELECT status FROM debates WHERE id = ?", [i])',
    'arc.query("""\n    SELECT s.text, d.topic\n    FROM speeches s JOIN debates d ON d.id = s.debate_id""")',
    'q = ("SELECT v.winner FROM verdicts v "\n     "JOIN debates d ON d.id = v.debate_id")',  # joined literals
    'arc.query(f"SELECT * FROM {table} WHERE debate_id = ?", [i])',  # a table made at run time
    'arc.query(f"SELECT count(*) FROM findings WHERE NOT passed AND rule = \'{rule}\'")',
    'con.execute("INSERT INTO judgments BY NAME SELECT * FROM df")',
    'con.execute(f"INSERT INTO {t} VALUES (?)", [1])',
    'con.execute("UPDATE debates SET status = ? WHERE id = ?", ["failed", i])',
    'con.execute("DELETE FROM audience_votes WHERE debate_id = ?", [i])',
    'con.execute("DROP TABLE IF EXISTS batch_claims")',
    'con.execute("select id from debates")',  # lower case
    'con.execute("SELECT block_id FROM search_run_3")',
    'con.execute("SELECT * FROM main.leaderboards")',  # a qualified name
]

PASSED = [
    'p.add_parser("sql", help="run one read-only SELECT over the archive")',  # prose about SQL
    'N_("Read-only: one SELECT at a time over the tables debates, speeches and findings.")',
    'run_readonly_sql(path, "SELECT 1")',  # no table
    'arc.sql(SQL_EXAMPLES["winners"])',  # the user's SQL box, its query from the archive
    'doc = "the checks select quotes from speeches and the judges pick from verdicts"',  # English words
    'x = "SELECT a FROM debate_summaries_cache"',  # a table of another name
]


@pytest.mark.parametrize("code", CAUGHT)
def test_the_finder_catches_sql_against_an_archive_table(code):
    assert _sql_in(code), code


@pytest.mark.parametrize("code", PASSED)
def test_the_finder_leaves_prose_and_other_sql_alone(code):
    assert _sql_in(code) == [], code


def test_the_table_list_comes_from_the_migrations():
    tables = set(archive_tables())
    assert {"debates", "speeches", "verdicts", "judgments", "findings", "llm_calls", "packs", "audits",
            "batch_claims", "vote_phases", "audience_votes"} <= tables
    assert "search_blocks" not in tables  # made by v3, dropped by v4


def test_the_finder_would_catch_a_regression_in_a_real_file(tmp_path):
    """A copy of a real module with the lookup it calls replaced by the SQL it used to run is caught."""
    source = (ROOT / "debate_core" / "jobs.py").read_text(encoding="utf-8")
    assert _sql_in(source) == []
    assert "self.archive.debate_status(debate_id)" in source
    regressed = source.replace("self.archive.debate_status(debate_id)",
                               'self.archive.query("SELECT status FROM debates WHERE id = ?", [debate_id])'
                               '.iloc[0, 0]')
    assert [line for line, _ in _sql_in(regressed)]


# ---------------------------------------------------------------- the seal


def test_the_scan_covers_the_workbench():
    files = {str(p.relative_to(ROOT)) for p in _outside_files()}
    for expected in ("app.py", "debate_core/jobs.py", "debate_core/analysis/judgments.py", "debate_core/batch/grid.py",
                     "webapp/views/archive.py", "bench/archive_bench.py", "bench/app_bench.py"):
        assert expected in files, expected
    assert any(f.startswith("pages/") for f in files)
    assert not any(f.startswith(("debate_core/archive/", "tests/", ".venv/")) for f in files)


def test_no_sql_against_the_archive_outside_its_package():
    hits = [f"{p.relative_to(ROOT)}:{line}: {text}" for p in _outside_files()
            for line, text in _sql_in(p.read_text(encoding="utf-8"))]
    assert hits == [], "SQL against archive tables outside debate_core/archive (add a named archive method):\n" \
        + "\n".join(hits)


def test_inside_the_package_the_same_finder_sees_the_sql():
    """The seal is not vacuous: the archive package itself is full of what the finder looks for."""
    hits = [h for p in sorted(SEALED.glob("*.py")) for h in _sql_in(p.read_text(encoding="utf-8"))]
    assert len(hits) > 50
