"""The archive's schema: migrations v1..v13, applied in order, and the version checks.

Each migration is ``(number, what it adds, steps)``; a step is one SQL statement, or a
function of the connection for a step that needs data (v3 numbers the stored speeches).
Opening an archive applies the migrations above its stored ``meta.schema_version`` in one
write transaction.  A new migration is appended with the next number; a released one is
never edited.
"""

from __future__ import annotations

import re
from pathlib import Path

from debate_core.archive.values import now
from debate_core.errors import ArchiveError

SCHEMA_VERSION = 13

_V1 = [
    """CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)""",
    """CREATE TABLE debates (
        id VARCHAR PRIMARY KEY,
        protocol VARCHAR NOT NULL,
        topic VARCHAR NOT NULL,
        status VARCHAR NOT NULL,
        stop_reason VARCHAR,
        participants JSON,
        labels VARCHAR[],
        models VARCHAR[],
        pack_name VARCHAR,
        pack_version VARCHAR,
        planned_rounds INTEGER,
        config JSON,
        warnings VARCHAR[],
        degraded BOOLEAN,
        batch_id VARCHAR,
        source VARCHAR,
        imported_from VARCHAR,
        rounds_done INTEGER,
        failed_round INTEGER,
        prompt_tokens BIGINT,
        completion_tokens BIGINT,
        cost DOUBLE,
        created_at TIMESTAMP,
        updated_at TIMESTAMP,
        finished_at TIMESTAMP,
        writer_pid INTEGER,
        writer_host VARCHAR,
        writer_start VARCHAR,
        heartbeat_at TIMESTAMP)""",
    """CREATE TABLE speeches (
        debate_id VARCHAR NOT NULL,
        round INTEGER NOT NULL,
        ord INTEGER,
        speaker VARCHAR NOT NULL,
        speaker_name VARCHAR,
        role VARCHAR,
        text VARCHAR,
        citations VARCHAR[],
        findings JSON,
        ammo_used VARCHAR[],
        retries INTEGER,
        truncated BOOLEAN,
        engine VARCHAR,
        prompt_tokens BIGINT,
        completion_tokens BIGINT,
        cost DOUBLE,
        latency_ms DOUBLE,
        status VARCHAR,
        envelope JSON,
        tool_calls JSON,
        warnings VARCHAR[],
        recorded_at TIMESTAMP)""",
    """CREATE TABLE summaries (debate_id VARCHAR NOT NULL, round INTEGER, ord INTEGER, speaker VARCHAR,
        text VARCHAR)""",
    """CREATE TABLE observations (debate_id VARCHAR NOT NULL, divergence VARCHAR, consensus VARCHAR,
        to_reader VARCHAR, engine VARCHAR)""",
    """CREATE TABLE verdicts (debate_id VARCHAR NOT NULL, winner VARCHAR, summary VARCHAR, reasons JSON,
        note VARCHAR, parsed BOOLEAN, raw VARCHAR, judge VARCHAR)""",
    """CREATE TABLE verdict_rows (debate_id VARCHAR NOT NULL, ord INTEGER, label VARCHAR, stance VARCHAR,
        strongest VARCHAR, weakness VARCHAR, score DOUBLE)""",
    """CREATE TABLE verdict_rounds (debate_id VARCHAR NOT NULL, ord INTEGER, round INTEGER, comment VARCHAR)""",
    """CREATE TABLE llm_calls (
        debate_id VARCHAR NOT NULL,
        seq INTEGER,
        purpose VARCHAR,
        model VARCHAR,
        round INTEGER,
        speaker VARCHAR,
        prompt_tokens BIGINT,
        completion_tokens BIGINT,
        cost DOUBLE,
        latency_ms DOUBLE,
        error VARCHAR,
        messages JSON,
        response VARCHAR,
        created_at TIMESTAMP)""",
    """CREATE VIEW findings AS
        SELECT s.debate_id, s.round, s.speaker, s.speaker_name, s.role, f.rule, f.passed, f.message
        FROM speeches s,
             unnest(from_json(coalesce(s.findings, '[]'),
                    '[{"rule":"VARCHAR","passed":"BOOLEAN","message":"VARCHAR"}]')) AS t(f)""",
]

_V2 = [
    """CREATE TABLE packs (pack_hash VARCHAR PRIMARY KEY, name VARCHAR, version VARCHAR, path VARCHAR,
        masters INTEGER, critiques INTEGER, created_at TIMESTAMP)""",
    """CREATE TABLE pack_masters (pack_hash VARCHAR NOT NULL, slug VARCHAR, name VARCHAR, school VARCHAR,
        tradition VARCHAR, era VARCHAR, sources INTEGER, critiques INTEGER)""",
    """CREATE TABLE pack_sources (pack_hash VARCHAR NOT NULL, slug VARCHAR, source_id VARCHAR, type VARCHAR,
        title VARCHAR)""",
    """CREATE TABLE pack_critiques (pack_hash VARCHAR NOT NULL, slug VARCHAR, target_master VARCHAR,
        position VARCHAR, citation VARCHAR)""",
    "ALTER TABLE debates ADD COLUMN pack_hash VARCHAR",
    "ALTER TABLE debates ADD COLUMN pack_path VARCHAR",
    """CREATE VIEW pack_coverage AS
        SELECT pack_hash, slug AS critic, target_master AS target, count(*) AS critiques
        FROM pack_critiques GROUP BY ALL""",
]


def _v3_number_speeches(con) -> None:
    """Existing speeches are numbered in their physical order; new ones take the sequence."""
    n = con.execute("SELECT count(*) FROM speeches").fetchone()[0]
    con.execute("UPDATE speeches SET sno = rowid")
    if n:
        con.execute(f"SELECT max(nextval('speech_sno')) FROM range({n + 1})")


_V3 = [
    "CREATE SEQUENCE speech_sno START 1",
    "ALTER TABLE speeches ADD COLUMN sno BIGINT",
    _v3_number_speeches,
    "ALTER TABLE speeches ALTER COLUMN sno SET DEFAULT nextval('speech_sno')",
    """CREATE TABLE search_blocks (block BIGINT PRIMARY KEY, complete BOOLEAN, sig BIT, built_at TIMESTAMP)""",
]

_V4 = [
    "DROP TABLE IF EXISTS search_blocks",
    """CREATE TABLE search_runs (run INTEGER PRIMARY KEY, level INTEGER, first_sno BIGINT, end_sno BIGINT,
        rows BIGINT, built_at TIMESTAMP)""",
]

_V5 = [
    """CREATE TABLE audits (audit_id VARCHAR PRIMARY KEY, batch_id VARCHAR, judges VARCHAR[], variants VARCHAR[],
        debates INTEGER, judgments INTEGER, calls INTEGER, prompt_tokens BIGINT, completion_tokens BIGINT,
        cost DOUBLE, summary JSON, created_at TIMESTAMP)""",
    """CREATE TABLE audit_judgments (audit_id VARCHAR NOT NULL, debate_id VARCHAR, judge VARCHAR, variant VARCHAR,
        winner VARCHAR, shown VARCHAR, position INTEGER, first VARCHAR, n INTEGER, parsed BOOLEAN, stored BOOLEAN,
        error VARCHAR, prompt_tokens BIGINT, completion_tokens BIGINT, cost DOUBLE)""",
    """CREATE TABLE audit_calls (audit_id VARCHAR NOT NULL, seq INTEGER, debate_id VARCHAR, judge VARCHAR,
        variant VARCHAR, purpose VARCHAR, model VARCHAR, prompt_tokens BIGINT, completion_tokens BIGINT, cost DOUBLE,
        latency_ms DOUBLE, error VARCHAR, messages JSON, response VARCHAR, created_at TIMESTAMP)""",
]

_V6 = [
    "ALTER TABLE debates ADD COLUMN lang VARCHAR",
    # before debates had a language every protocol spoke Chinese (its prompts, labels and headings),
    # whatever the topic's language: that is what a stored debate is
    "UPDATE debates SET lang = 'zh'",
]

_V7 = [
    "ALTER TABLE debates ADD COLUMN group_id VARCHAR",
    """CREATE TABLE judgments (debate_id VARCHAR NOT NULL, ord INTEGER, judge VARCHAR NOT NULL, winner VARCHAR,
        winner_name VARCHAR, margin DOUBLE, normalized DOUBLE, entertainment DOUBLE, notes VARCHAR,
        decisive VARCHAR, group_id VARCHAR, template VARCHAR)""",
    # a source's published ratings (a benchmark's leaderboard), to compare our fits with
    """CREATE TABLE leaderboards (source VARCHAR NOT NULL, template VARCHAR, rank INTEGER, model VARCHAR,
        rating DOUBLE, path VARCHAR, imported_at TIMESTAMP)""",
    # the display names a source gives its models (slug -> name)
    """CREATE TABLE model_names (model VARCHAR PRIMARY KEY, name VARCHAR, source VARCHAR)""",
]

_V8 = [
    "ALTER TABLE llm_calls ADD COLUMN cached_tokens BIGINT DEFAULT 0",
    "ALTER TABLE debates ADD COLUMN cached_tokens BIGINT DEFAULT 0",
    "ALTER TABLE audit_calls ADD COLUMN cached_tokens BIGINT DEFAULT 0",
]

_V9 = ["ALTER TABLE speeches ADD COLUMN plan JSON"]

_V10 = [
    # whether a verdict was checked against what the judge was asked for, and what it lacks;
    # NULL / NULL for every verdict stored before: never checked (not "complete")
    "ALTER TABLE verdicts ADD COLUMN complete BOOLEAN",
    "ALTER TABLE verdicts ADD COLUMN missing VARCHAR[]",
]

_V11 = [
    # the argument ledger's model labels (ledger ID --model M): one row per attack a model labelled, under the
    # key of what it was shown (the prompt version and the claims), and one row per labelling run (its cost,
    # and that it ran even when it found no attack)
    """CREATE TABLE ledger_labels (debate_id VARCHAR NOT NULL, model VARCHAR NOT NULL, key VARCHAR NOT NULL,
        ord INTEGER, source VARCHAR, target VARCHAR, kind VARCHAR)""",
    """CREATE TABLE ledger_label_runs (debate_id VARCHAR NOT NULL, model VARCHAR NOT NULL, key VARCHAR NOT NULL,
        labels INTEGER, calls INTEGER, prompt_tokens BIGINT, completion_tokens BIGINT, cost DOUBLE,
        created_at TIMESTAMP)""",
]

_V12 = [
    # a batch run claims each cell before it runs it (archive/claims.py): two runs of one spec share the cells;
    # no key constraint, since every claim is written inside the archive's one write transaction
    """CREATE TABLE IF NOT EXISTS batch_claims (batch_id VARCHAR NOT NULL, cell VARCHAR NOT NULL,
        run_id VARCHAR NOT NULL, writer_pid INTEGER, writer_host VARCHAR, writer_start VARCHAR,
        claimed_at TIMESTAMP, heartbeat_at TIMESTAMP)""",
]

_V13 = [
    # the audience vote of a presented debate (archive/votes.py): the presenter opens a phase (before / after)
    # with the sides it offers, and closes it; a device holds one vote per phase (a second one replaces it).
    # No key constraint: every write checks and writes inside the archive's one write transaction
    """CREATE TABLE IF NOT EXISTS vote_phases (debate_id VARCHAR NOT NULL, phase VARCHAR NOT NULL,
        status VARCHAR NOT NULL, sides VARCHAR[], opened_at TIMESTAMP, closed_at TIMESTAMP)""",
    """CREATE TABLE IF NOT EXISTS audience_votes (debate_id VARCHAR NOT NULL, phase VARCHAR NOT NULL,
        device VARCHAR NOT NULL, side VARCHAR NOT NULL, voted_at TIMESTAMP)""",
]

MIGRATIONS: list[tuple[int, str, list]] = [
    (1, "debates, speeches, summaries, verdicts, observations, llm_calls", _V1),
    (2, "pack snapshot tables (packs, pack_masters, pack_sources, pack_critiques)", _V2),
    (3, "speech numbers (speeches.sno) and the text-search block index (search_blocks)", _V3),
    (4, "the text-search bigram index (search_runs, search_run_<n>) replaces search_blocks", _V4),
    (5, "judge audits (audits, audit_judgments, audit_calls)", _V5),
    (6, "each debate's language (debates.lang), Chinese for every debate stored before", _V6),
    (7, "per-judge judgments, side-swap groups (debates.group_id), published leaderboards, model names", _V7),
    (8, "cached input tokens per model call and per debate (llm_calls, debates, audit_calls .cached_tokens)", _V8),
    (9, "each master-debate speech's plan over the argument layer (speeches.plan)", _V9),
    (10, "verdict completeness: verdicts.complete and verdicts.missing (NULL for verdicts never checked)", _V10),
    (11, "the argument ledger's cached model labels (ledger_labels, ledger_label_runs)", _V11),
    (12, "batch cell claims (batch_claims): concurrent runs of one spec share its cells", _V12),
    (13, "audience votes (vote_phases, audience_votes): one vote per device per phase, before and after", _V13),
]

DEBATE_TABLES = (
    "speeches",
    "summaries",
    "observations",
    "verdicts",
    "verdict_rows",
    "verdict_rounds",
    "llm_calls",
    "judgments",
    "ledger_labels",
    "ledger_label_runs",
)
PACK_TABLES = ("packs", "pack_masters", "pack_sources", "pack_critiques")
SOURCE_TABLES = ("leaderboards", "model_names")
AUDIT_TABLES = ("audits", "audit_judgments", "audit_calls")
# the columns of one judgment in ``audit_judgments`` after its audit_id (version 5 above): the recorder
# writes them and the audit builds its frame on them (with the debate's batch, protocol and topic beside)
AUDIT_JUDGMENT_COLUMNS = (
    "debate_id",
    "judge",
    "variant",
    "winner",
    "shown",
    "position",
    "first",
    "n",
    "parsed",
    "stored",
    "error",
    "prompt_tokens",
    "completion_tokens",
    "cost",
)
# a debate's audience vote: kept when the debate is written again (a re-save, an import), dropped with the debate
VOTE_TABLES = ("vote_phases", "audience_votes")


_CREATED = re.compile(r"^\s*CREATE\s+(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.I)
_DROPPED = re.compile(r"^\s*DROP\s+(?:TABLE|VIEW)\s+(?:IF\s+EXISTS\s+)?(\w+)", re.I)


def archive_tables() -> tuple[str, ...]:
    """Every table and view the migrations leave in an archive, in the order they were created
    (read from :data:`MIGRATIONS`, so it follows the schema; the text index's own
    ``search_run_<n>`` tables, made at run time, are not in it)."""
    names: list[str] = []
    for _number, _what, statements in MIGRATIONS:
        for step in statements:
            if callable(step):
                continue
            if m := _CREATED.match(step):
                names.append(m.group(1))
            elif m := _DROPPED.match(step):
                names = [n for n in names if n != m.group(1)]
    return tuple(dict.fromkeys(names))


def stored_version(con) -> int | None:
    """The attached file's schema version: 0 for an empty file, None for a DuckDB file that is
    not an archive (no meta table), -1 for an unreadable version."""
    tables = {
        r[0]
        for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database()"
        ).fetchall()
    }
    if "meta" not in tables:
        return None if tables else 0
    row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    try:
        return int(row[0]) if row else 0
    except ValueError:
        return -1


def check_version(path: Path, version: int | None) -> None:
    """:class:`ArchiveError` for a file this build must leave untouched."""
    if version is None:
        raise ArchiveError(f"{path} is a DuckDB file but not a debate archive (no meta table); it was left untouched")
    if version < 0:
        raise ArchiveError(f"{path} has an unreadable schema version; it was left untouched")
    if version > SCHEMA_VERSION:
        raise ArchiveError(
            f"archive {path} has schema version {version}, newer than this workbench "
            f"supports ({SCHEMA_VERSION}); upgrade the workbench (the file was left untouched)"
        )


def migrate(con, version: int) -> None:
    """Apply every migration above ``version``, recording each in ``meta`` (inside the caller's transaction)."""
    for number, _what, statements in MIGRATIONS:
        if number <= version:
            continue
        for step in statements:
            if callable(step):
                step(con)
            else:
                con.execute(step)
        con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(number)])
        con.execute(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", [f"migrated_{number}_at", now().isoformat(timespec="seconds")]
        )
