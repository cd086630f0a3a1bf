"""The DuckDB archive: every debate saved as it happens, resumable, queryable.

One DuckDB file (default ``data/archive.duckdb``; ``$DEBATE_ARCHIVE`` or an
explicit path override it) holds every debate.  :class:`Archive` implements the
:class:`~debate_core.recorder.Recorder` interface, so a running debate commits each
finished speech before its next round starts, and it is the library the app, the
CLI and notebooks query.

Concurrency (see docs/archive.md): DuckDB lets one process write a file at a
time.  The archive never keeps the file open between operations.  Each operation
attaches the file to a per-process in-memory DuckDB instance, runs one short
transaction and detaches it, which releases the file lock; a lock held by another
process is waited for with bounded exponential backoff (``lock_timeout``, 30 s).
Within one process, operations are serialised by a lock, so the app's sessions
(threads) and a CLI batch (another process) can share one archive.

Crash safety: a running debate records its writer (pid, host, process start
time) and a heartbeat; :meth:`Archive.mark_interrupted` flips running debates
whose writer is gone to ``interrupted``; :mod:`debate_core.runs` continues them
under the protocol's own rules (the archive only stores and reads).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import socket
import threading
import time
import uuid
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

import duckdb
import pandas as pd

from debate_core.models import (Debate, DebateConfig, Finding, LLMCall, Observation, Pack, Participant, RoundComment,
                     RoundSummary, Speech, ToolCallRecord, Verdict, VerdictRow)
from debate_core.errors import ArchiveError, SqlRefused
from debate_core.recorder import Recorder
from debate_core.scrub import env_secrets as _env_secrets, scrub
from debate_core import text_index

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ARCHIVE = REPO_ROOT / "data" / "archive.duckdb"
ARCHIVE_ENV = "DEBATE_ARCHIVE"
LOCK_TIMEOUT = 30.0
STALE_FOREIGN_WRITER = timedelta(hours=1)
TEST_DELAY_ENV = "DEBATE_TEST_ROUND_DELAY"
WAL_CHECKPOINT_BYTES = 32 * 1024  # fold the write-ahead log into the file past this size
SEARCH_REFRESH_LIMIT = 65_536  # speeches one search indexes at most before answering (the rest is scanned)
COVERAGE_PREFIX = "⚠️"
TERMINAL = ("completed", "failed", "stopped", "interrupted")
FINISHED = ("completed", "failed", "stopped")  # checkpointed on reaching one: the file alone holds the debate




# ------------------------------------------------------------------------ schema

SCHEMA_VERSION = 5

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

MIGRATIONS: list[tuple[int, str, list]] = [
    (1, "debates, speeches, summaries, verdicts, observations, llm_calls", _V1),
    (2, "pack snapshot tables (packs, pack_masters, pack_sources, pack_critiques)", _V2),
    (3, "speech numbers (speeches.sno) and the text-search block index (search_blocks)", _V3),
    (4, "the text-search bigram index (search_runs, search_run_<n>) replaces search_blocks", _V4),
    (5, "judge audits (audits, audit_judgments, audit_calls)", _V5),
]

DEBATE_TABLES = ("speeches", "summaries", "observations", "verdicts", "verdict_rows", "verdict_rounds", "llm_calls")
AUDIT_TABLES = ("audits", "audit_judgments", "audit_calls")
ALL_TABLES = ("debates",) + DEBATE_TABLES + ("packs", "pack_masters", "pack_sources", "pack_critiques") + \
    AUDIT_TABLES + ("meta",)


# --------------------------------------------------------------- small helpers


def _utc(dt: Optional[datetime]) -> Optional[datetime]:
    """Naive UTC for storage."""
    if dt is None:
        return None
    if dt.tzinfo is not None:
        dt = dt.astimezone(timezone.utc).replace(tzinfo=None)
    return dt


def _aware(dt: Optional[datetime]) -> Optional[datetime]:
    if dt is None:
        return None
    if isinstance(dt, pd.Timestamp):
        dt = dt.to_pydatetime()
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def _dumps(value: Any) -> Optional[str]:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=False)


def _loads(value: Optional[str], default: Any = None) -> Any:
    if value is None:
        return default
    return json.loads(value)


def _proc_stat(pid: int) -> Optional[tuple[str, str]]:
    """(state, start time in clock ticks) from /proc, or None where there is no /proc."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2:].split()
    return (fields[0], fields[19]) if len(fields) > 19 else None


def writer_identity() -> tuple[int, str, str]:
    pid = os.getpid()
    stat = _proc_stat(pid)
    return pid, socket.gethostname(), stat[1] if stat else ""


def process_alive(pid: Optional[int], start: Optional[str] = None) -> bool:
    """Is process ``pid`` (started at ``start`` ticks, when known) still running on this host?"""
    if not pid or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    except OSError:
        return False
    stat = _proc_stat(pid)
    if stat is not None:
        state, started = stat
        if state in ("Z", "X", "x"):
            return False
        if start and started != start:
            return False  # the pid was reused by another process
    return True


def _test_round_delay(round_no: int) -> None:
    """Test hook: ``DEBATE_TEST_ROUND_DELAY=ROUND:SECONDS`` sleeps before committing
    that round's speech, so a test can SIGKILL a real process in the middle of a
    round.  Read here and nowhere else; inert when unset.  See tests/test_resume.py."""
    spec = os.environ.get(TEST_DELAY_ENV)
    if not spec:
        return
    try:
        r, secs = spec.split(":", 1)
        if int(r) == round_no:
            time.sleep(float(secs))
    except ValueError:
        return


# -------------------------------------------------------------- the DuckDB host

_HOST_LOCK = threading.RLock()
_HOST: Optional[duckdb.DuckDBPyConnection] = None
_HOST_PID: Optional[int] = None
_ALIAS = "arc"


def _host() -> duckdb.DuckDBPyConnection:
    """One in-memory DuckDB instance per process; archives are attached to it per operation."""
    global _HOST, _HOST_PID
    if _HOST is None or _HOST_PID != os.getpid():
        _HOST = duckdb.connect(":memory:")
        _HOST_PID = os.getpid()
        try:
            # Detaching would checkpoint (several fsyncs) after every short transaction;
            # the WAL is folded in by _session once it passes WAL_CHECKPOINT_BYTES instead.
            _HOST.execute("SET checkpoint_on_detach = 'DISABLED'")
        except duckdb.Error:
            pass
    return _HOST


def _is_lock_error(exc: BaseException) -> bool:
    msg = str(exc)
    return "lock" in msg.lower() and ("Could not set lock" in msg or "Conflicting lock" in msg)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return re.sub(r"\s+See also https?://\S+", "", text)


def _resolve_date(value: Any, end: bool = False) -> Optional[datetime]:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return _utc(value)
    if isinstance(value, date):
        d = datetime(value.year, value.month, value.day)
        return d + timedelta(days=1) if end else d
    text = str(value).strip()
    try:
        if len(text) == 10:
            d = datetime.strptime(text, "%Y-%m-%d")
            return d + timedelta(days=1) if end else d
        return _utc(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        raise ArchiveError(f"not a date: {value!r} (use YYYY-MM-DD)") from None


def default_archive_path() -> Path:
    env = os.environ.get(ARCHIVE_ENV, "").strip()
    return Path(env).expanduser() if env else DEFAULT_ARCHIVE


def _pack_hash(pack: Pack) -> str:
    data = {
        "name": pack.name, "version": pack.version,
        "masters": [{"slug": m.slug, "name": m.name, "school": m.school, "tradition": m.tradition, "era": m.era,
                     "sources": [s.model_dump(mode="json") for s in m.sources],
                     "critiques": [c.model_dump(mode="json") for c in m.cross_critique]}
                    for m in pack.masters.values()],
    }
    return hashlib.sha256(json.dumps(data, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]


def _speech_key(round_no: int, speaker: str) -> str:
    return f"{round_no}\x1f{speaker}"


# ----------------------------------------------------------------- the archive


class Archive(Recorder):
    """A debate archive in one DuckDB file.  Safe to share between threads."""

    def __init__(self, path: str | Path, *, lock_timeout: float = LOCK_TIMEOUT, create: bool = True):
        self.path = Path(path).expanduser().resolve()
        self.lock_timeout = lock_timeout
        self._identity = writer_identity()
        self._fresh: dict[str, set[str]] = {}  # speech keys written for debates this instance started
        self._ensure_schema(create)

    def __repr__(self) -> str:
        return f"Archive({str(self.path)!r})"

    # ------------------------------------------------------------- sessions
    def _check_header(self) -> None:
        try:
            with open(self.path, "rb") as fh:
                head = fh.read(16)
        except OSError as exc:
            raise ArchiveError(f"cannot read archive {self.path}: {exc.strerror}") from None
        if len(head) < 12 or head[8:12] != b"DUCK":
            raise ArchiveError(f"{self.path} is not a DuckDB archive (corrupt or another kind of file); "
                               "it was left untouched")

    def _attach(self, host: duckdb.DuckDBPyConnection, write: bool) -> None:
        opts = "" if write else " (READ_ONLY)"
        path = str(self.path).replace("'", "''")
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.002
        while True:
            try:
                host.execute(f"ATTACH '{path}' AS {_ALIAS}{opts}")
                return
            except duckdb.Error as exc:
                if _is_lock_error(exc):
                    if time.monotonic() >= deadline:
                        raise ArchiveError(f"archive {self.path} stayed locked by another process for "
                                           f"{self.lock_timeout:.0f} s") from None
                    time.sleep(delay * (0.5 + random.random()))
                    delay = min(delay * 2, 0.1)
                    continue
                raise ArchiveError(f"cannot open archive {self.path}: {_first_line(exc)} "
                                   "(the file was left untouched)") from None

    @contextmanager
    def _session(self, write: bool = False, checkpoint: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        """Attach, run one transaction (when writing), detach: the file lock is held only inside.
        ``checkpoint`` folds the write-ahead log into the file after the commit (a debate finished)."""
        with _HOST_LOCK:
            host = _host()
            if self.path.exists() and self.path.stat().st_size > 0:
                self._check_header()
            elif not write:
                raise ArchiveError(f"archive {self.path} does not exist")
            self._attach(host, write)
            try:
                host.execute(f"USE {_ALIAS}")
                if write:
                    host.execute("BEGIN TRANSACTION")
                try:
                    yield host
                    if write:
                        host.execute("COMMIT")
                        self._maybe_checkpoint(host, force=checkpoint)
                except BaseException:
                    if write:
                        try:
                            host.execute("ROLLBACK")
                        except duckdb.Error:
                            pass
                    raise
            finally:
                try:
                    host.execute("USE memory")
                finally:
                    host.execute(f"DETACH {_ALIAS}")

    def _wal(self) -> Path:
        return self.path.with_name(self.path.name + ".wal")

    def _maybe_checkpoint(self, host, force: bool = False) -> None:
        try:
            size = self._wal().stat().st_size
        except OSError:
            return
        if size > WAL_CHECKPOINT_BYTES or (force and size > 0):
            try:
                host.execute(f"CHECKPOINT {_ALIAS}")
            except duckdb.Error:
                pass  # committed already; the log is folded in by a later write

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the archive file (e.g. before copying the file)."""
        with _HOST_LOCK:
            host = _host()
            self._attach(host, True)
            try:
                host.execute(f"CHECKPOINT {_ALIAS}")
            finally:
                host.execute(f"DETACH {_ALIAS}")

    # ------------------------------------------------------------ migrations
    @staticmethod
    def _version(con) -> Optional[int]:
        tables = {r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database()").fetchall()}
        if "meta" not in tables:
            return None if tables else 0
        row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        try:
            return int(row[0]) if row else 0
        except ValueError:
            return -1

    def _ensure_schema(self, create: bool) -> None:
        exists = self.path.exists() and self.path.stat().st_size > 0
        if exists:
            with self._session(write=False) as con:
                version = self._version(con)
            self._check_version(version)
            if version == SCHEMA_VERSION:
                return
        elif not create:
            raise ArchiveError(f"archive {self.path} does not exist")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._session(write=True) as con:
            version = self._version(con)  # again, under the write lock: another process may have migrated
            self._check_version(version)
            for number, _what, statements in MIGRATIONS:
                if number <= (version or 0):
                    continue
                for step in statements:
                    if callable(step):
                        step(con)
                    else:
                        con.execute(step)
                con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(number)])
                con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                            [f"migrated_{number}_at", _now().isoformat(timespec="seconds")])
        self.checkpoint()  # a new or migrated archive is one self-contained file

    def _check_version(self, version: Optional[int]) -> None:
        if version is None:
            raise ArchiveError(f"{self.path} is a DuckDB file but not a debate archive (no meta table); "
                               "it was left untouched")
        if version < 0:
            raise ArchiveError(f"{self.path} has an unreadable schema version; it was left untouched")
        if version > SCHEMA_VERSION:
            raise ArchiveError(f"archive {self.path} has schema version {version}, newer than this workbench "
                               f"supports ({SCHEMA_VERSION}); upgrade the workbench (the file was left untouched)")

    def schema_version(self) -> int:
        with self._session() as con:
            return int(self._version(con) or 0)

    # --------------------------------------------------------- row building
    def _writer_cols(self) -> dict[str, Any]:
        pid, host, start = self._identity
        return {"writer_pid": pid, "writer_host": host, "writer_start": start, "heartbeat_at": _now()}

    @staticmethod
    def _totals(debate: Debate) -> dict[str, Any]:
        done = {s.round for s in debate.rounds if s.status != "failed"}
        if debate.llm_calls:
            p = sum(c.prompt_tokens for c in debate.llm_calls)
            c = sum(c.completion_tokens for c in debate.llm_calls)
            cost = sum(x.cost for x in debate.llm_calls)
        else:
            p = sum(s.prompt_tokens for s in debate.rounds)
            c = sum(s.completion_tokens for s in debate.rounds)
            cost = sum(s.cost for s in debate.rounds)
        failed = [s.round for s in debate.rounds if s.status == "failed"]
        return {"rounds_done": len(done), "prompt_tokens": p, "completion_tokens": c, "cost": cost,
                "failed_round": min(failed) if failed and debate.status == "failed" else None}

    def _header(self, debate: Debate, secrets: list[str]) -> dict[str, Any]:
        warnings = scrub(list(debate.warnings), secrets)
        row = {
            "id": debate.id, "protocol": debate.protocol, "topic": debate.topic, "status": debate.status,
            "stop_reason": scrub(debate.stop_reason, secrets),
            "participants": _dumps([p.model_dump(mode="json") for p in debate.participants]),
            "labels": [p.label for p in debate.participants], "models": list(debate.models),
            "pack_name": debate.pack_name, "pack_version": debate.pack_version,
            "planned_rounds": debate.planned_rounds,
            "config": _dumps(scrub(debate.config.model_dump(mode="json"), secrets)),
            "warnings": warnings, "degraded": any(w.startswith(COVERAGE_PREFIX) for w in warnings),
            "batch_id": debate.batch_id, "source": debate.source,
            "created_at": _utc(debate.created_at), "updated_at": _utc(debate.updated_at),
            "finished_at": _now() if debate.status in ("completed", "failed", "stopped") else None,
        }
        row.update(self._totals(debate))
        return row

    @staticmethod
    def _speech_row(debate_id: str, s: Speech, ord_: int, secrets: list[str]) -> dict[str, Any]:
        return {
            "debate_id": debate_id, "round": s.round, "ord": ord_, "speaker": s.speaker,
            "speaker_name": s.speaker_name, "role": s.role, "text": scrub(s.text, secrets),
            "citations": list(s.citations), "findings": _dumps([f.model_dump(mode="json") for f in s.findings]),
            "ammo_used": list(s.ammo_used), "retries": s.retries, "truncated": s.truncated, "engine": s.engine,
            "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens, "cost": s.cost,
            "latency_ms": s.latency_ms, "status": s.status,
            "envelope": _dumps(scrub(s.envelope, secrets)) if s.envelope is not None else None,
            "tool_calls": _dumps(scrub([t.model_dump(mode="json") for t in s.tool_calls], secrets)),
            "warnings": scrub(list(s.warnings), secrets), "recorded_at": _now(),
        }

    @staticmethod
    def _call_row(debate_id: str, c: LLMCall, seq: int, secrets: list[str]) -> dict[str, Any]:
        return {
            "debate_id": debate_id, "seq": seq, "purpose": c.purpose, "model": c.model, "round": c.round,
            "speaker": c.speaker, "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
            "cost": c.cost, "latency_ms": c.latency_ms, "error": scrub(c.error, secrets),
            "messages": _dumps(scrub(c.messages, secrets)), "response": scrub(c.response, secrets),
            "created_at": _utc(c.created_at),
        }

    @staticmethod
    def _insert(con, table: str, row: dict[str, Any]) -> None:
        cols = list(row)
        con.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                    [row[c] for c in cols])

    @staticmethod
    def _insert_many(con, table: str, rows: list[dict[str, Any]], chunk: int = 200) -> None:
        """Several rows in few statements (multi-row VALUES): a statement costs about 1 ms however
        many rows it carries.  Rows are grouped by their columns, so defaults still apply."""
        by_cols: dict[tuple, list[dict[str, Any]]] = {}
        for row in rows:
            by_cols.setdefault(tuple(row), []).append(row)
        for cols, group in by_cols.items():
            one = "(" + ", ".join("?" for _ in cols) + ")"
            for i in range(0, len(group), chunk):
                part = group[i:i + chunk]
                con.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES {', '.join([one] * len(part))}",
                            [r[c] for r in part for c in cols])

    def _upsert_header(self, con, debate: Debate, secrets: list[str], *, owner: bool = True) -> bool:
        row = self._header(debate, secrets)
        if owner:
            row.update(self._writer_cols())
        if con.execute("SELECT 1 FROM debates WHERE id = ?", [debate.id]).fetchone() is None:
            self._insert(con, "debates", row)
            return True
        for key in ("id", "created_at"):
            row.pop(key)
        sets = ", ".join(f"{c} = ?" for c in row)
        con.execute(f"UPDATE debates SET {sets} WHERE id = ?", list(row.values()) + [debate.id])
        return False

    def _write_outcome(self, con, debate: Debate, secrets: list[str], *, existed: bool = True) -> None:
        """Observation and verdict: replaced wholesale."""
        for table in ("observations", "verdicts", "verdict_rows", "verdict_rounds") if existed else ():
            con.execute(f"DELETE FROM {table} WHERE debate_id = ?", [debate.id])
        if debate.observation is not None:
            o = debate.observation
            self._insert(con, "observations", {"debate_id": debate.id, "divergence": o.divergence,
                                               "consensus": o.consensus, "to_reader": o.to_reader,
                                               "engine": o.engine})
        v = debate.verdict
        if v is not None:
            self._insert(con, "verdicts", {"debate_id": debate.id, "winner": v.winner, "summary": v.summary,
                                           "reasons": _dumps(v.reasons), "note": v.note, "parsed": v.parsed,
                                           "raw": scrub(v.raw, secrets), "judge": v.judge})
            self._insert_many(con, "verdict_rows", [{"debate_id": debate.id, "ord": i, "label": r.label,
                                                     "stance": r.stance, "strongest": r.strongest,
                                                     "weakness": r.weakness, "score": r.score}
                                                    for i, r in enumerate(v.rows)])
            self._insert_many(con, "verdict_rounds", [{"debate_id": debate.id, "ord": i, "round": c.round,
                                                       "comment": c.comment} for i, c in enumerate(v.per_round)])

    def _snapshot_pack(self, con, pack: Pack) -> str:
        h = _pack_hash(pack)
        if con.execute("SELECT 1 FROM packs WHERE pack_hash = ?", [h]).fetchone():
            return h
        self._insert(con, "packs", {"pack_hash": h, "name": pack.name, "version": pack.version,
                                    "path": str(Path(pack.path).resolve()), "masters": len(pack.masters),
                                    "critiques": sum(len(m.cross_critique) for m in pack.masters.values()),
                                    "created_at": _now()})
        for m in pack.masters.values():
            self._insert(con, "pack_masters", {"pack_hash": h, "slug": m.slug, "name": m.name, "school": m.school,
                                               "tradition": m.tradition, "era": m.era, "sources": len(m.sources),
                                               "critiques": len(m.cross_critique)})
            for s in m.sources:
                self._insert(con, "pack_sources", {"pack_hash": h, "slug": m.slug, "source_id": s.id,
                                                   "type": s.type, "title": s.title})
            for c in m.cross_critique:
                self._insert(con, "pack_critiques", {"pack_hash": h, "slug": m.slug,
                                                     "target_master": c.target_master, "position": c.position,
                                                     "citation": c.citation})
        return h

    @staticmethod
    def _pack_for(debate: Debate) -> Optional[Pack]:
        if debate.protocol != "master":
            return None
        try:
            from debate_core.content.packs import get_pack

            pack = get_pack(debate.config.pack)
        except Exception:  # noqa: BLE001 - a missing pack must not stop the debate
            return None
        if debate.pack_name and (pack.name, pack.version) != (debate.pack_name, debate.pack_version):
            return None
        return pack

    def _link_pack(self, con, debate: Debate) -> None:
        pack = self._pack_for(debate)
        if pack is not None:
            h = self._snapshot_pack(con, pack)
            con.execute("UPDATE debates SET pack_hash = ?, pack_path = ? WHERE id = ?",
                        [h, str(Path(pack.path).resolve()), debate.id])

    # ---------------------------------------------------------- the recorder
    def start(self, debate: Debate) -> None:
        secrets = _env_secrets()
        with self._session(write=True) as con:
            new = self._upsert_header(con, debate, secrets)
            self._link_pack(con, debate)
        if new:
            self._fresh[debate.id] = set()  # no speech row can exist yet: appends skip the delete

    def speech(self, debate: Debate, speech: Speech) -> None:
        _test_round_delay(speech.round)
        secrets = _env_secrets()
        ord_ = next((i for i, s in enumerate(debate.rounds) if s is speech), len(debate.rounds))
        row = self._speech_row(debate.id, speech, ord_, secrets)
        key = _speech_key(speech.round, speech.speaker)
        written = self._fresh.get(debate.id)
        with self._session(write=True) as con:
            if written is None or key in written:  # a rerun of a round replaces its row
                con.execute("DELETE FROM speeches WHERE debate_id = ? AND round = ? AND speaker = ?",
                            [debate.id, speech.round, speech.speaker])
            self._insert(con, "speeches", row)
            self._touch(con, debate)
        if written is not None:
            written.add(key)

    def summary(self, debate: Debate, summary: RoundSummary) -> None:
        ord_ = next((i for i, s in enumerate(debate.summaries) if s is summary), len(debate.summaries))
        with self._session(write=True) as con:
            con.execute("DELETE FROM summaries WHERE debate_id = ? AND round = ? AND speaker = ?",
                        [debate.id, summary.round, summary.speaker])
            self._insert(con, "summaries", {"debate_id": debate.id, "round": summary.round, "ord": ord_,
                                            "speaker": summary.speaker, "text": summary.text})
            self._touch(con, debate)

    def call(self, debate: Debate, call: LLMCall) -> None:
        secrets = _env_secrets()
        with self._session(write=True) as con:
            seq = next((i for i in range(len(debate.llm_calls) - 1, -1, -1) if debate.llm_calls[i] is call), None)
            if seq is None:
                seq = con.execute("SELECT coalesce(max(seq), -1) + 1 FROM llm_calls WHERE debate_id = ?",
                                  [debate.id]).fetchone()[0]
            con.execute("DELETE FROM llm_calls WHERE debate_id = ? AND seq = ?", [debate.id, seq])
            self._insert(con, "llm_calls", self._call_row(debate.id, call, seq, secrets))
            self._touch(con, debate)

    def update(self, debate: Debate) -> None:
        secrets = _env_secrets()
        # a finished debate is folded into the file: copying the .duckdb alone keeps it
        with self._session(write=True, checkpoint=debate.status in FINISHED) as con:
            self._upsert_header(con, debate, secrets)
            keys = [_speech_key(s.round, s.speaker) for s in debate.rounds]
            con.execute("DELETE FROM speeches WHERE debate_id = ? AND NOT list_contains(?, "
                        "round::VARCHAR || chr(31) || speaker)", [debate.id, keys])
            skeys = [_speech_key(s.round, s.speaker) for s in debate.summaries]
            con.execute("DELETE FROM summaries WHERE debate_id = ? AND NOT list_contains(?, "
                        "round::VARCHAR || chr(31) || speaker)", [debate.id, skeys])
            self._write_outcome(con, debate, secrets)
        if debate.status != "running":
            self._fresh.pop(debate.id, None)

    def _touch(self, con, debate: Debate) -> None:
        t = self._totals(debate)
        w = self._writer_cols()
        con.execute(
            "UPDATE debates SET status = ?, rounds_done = ?, prompt_tokens = ?, completion_tokens = ?, cost = ?, "
            "updated_at = ?, writer_pid = ?, writer_host = ?, writer_start = ?, heartbeat_at = ? WHERE id = ?",
            [debate.status, t["rounds_done"], t["prompt_tokens"], t["completion_tokens"], t["cost"],
             _utc(debate.updated_at) if debate.updated_at else _now(), w["writer_pid"], w["writer_host"],
             w["writer_start"], w["heartbeat_at"], debate.id])

    # ----------------------------------------------------------- full writes
    def save(self, debate: Debate, *, imported_from: Optional[str] = None, replace: bool = True) -> bool:
        """Write a whole debate in one transaction.  Returns False when it exists and ``replace`` is off."""
        return self.save_many([debate], imported_from=[imported_from], replace=replace)[0]

    def save_many(self, debates: list[Debate], *, imported_from: Optional[list[Optional[str]]] = None,
                  replace: bool = True) -> list[bool]:
        """Write several whole debates in ONE transaction: all of them or none."""
        secrets = _env_secrets()
        written: list[bool] = []
        sources = imported_from or [None] * len(debates)
        with self._session(write=True, checkpoint=any(d.status in FINISHED for d in debates)) as con:
            for debate, src in zip(debates, sources):
                exists = con.execute("SELECT 1 FROM debates WHERE id = ?", [debate.id]).fetchone() is not None
                if exists and not replace:
                    written.append(False)
                    continue
                self._write_full(con, debate, secrets, imported_from=src, existed=exists)
                written.append(True)
        self._catch_up_search_index()
        return written

    def _catch_up_search_index(self, limit: Optional[int] = None) -> None:
        """After a bulk write (an import, a batch's flush) and before a search: index the waiting
        speeches once RUN_MIN of them have piled up (at most ``limit``).  The backlog is read
        first, so the write lock is only taken when there is work.  Best effort: a read-only
        file or a busy writer only leaves the speeches to be scanned, or indexed later."""
        try:
            with self._session() as con:
                waiting = text_index.backlog(con)
            if waiting >= text_index.RUN_MIN:
                self.refresh_search_index(limit=limit)
        except (ArchiveError, duckdb.Error):
            pass

    def _write_full(self, con, debate: Debate, secrets: list[str], imported_from: Optional[str] = None,
                    *, existed: bool = True) -> None:
        if existed:
            for table in DEBATE_TABLES:
                con.execute(f"DELETE FROM {table} WHERE debate_id = ?", [debate.id])
            con.execute("DELETE FROM debates WHERE id = ?", [debate.id])
        row = self._header(debate, secrets)
        row["finished_at"] = _utc(debate.updated_at) if debate.status in ("completed", "failed", "stopped") else None
        if imported_from is not None:
            row["imported_from"] = imported_from
        self._insert(con, "debates", row)
        self._insert_many(con, "speeches", [self._speech_row(debate.id, s, i, secrets)
                                            for i, s in enumerate(debate.rounds)])
        self._insert_many(con, "summaries", [{"debate_id": debate.id, "round": s.round, "ord": i,
                                              "speaker": s.speaker, "text": s.text}
                                             for i, s in enumerate(debate.summaries)])
        self._insert_many(con, "llm_calls", [self._call_row(debate.id, c, i, secrets)
                                             for i, c in enumerate(debate.llm_calls)])
        self._write_outcome(con, debate, secrets, existed=existed)
        self._link_pack(con, debate)

    def exists(self, debate_id: str) -> bool:
        with self._session() as con:
            return con.execute("SELECT 1 FROM debates WHERE id = ?", [debate_id]).fetchone() is not None

    def delete(self, debate_id: str) -> bool:
        with self._session(write=True) as con:
            if con.execute("SELECT 1 FROM debates WHERE id = ?", [debate_id]).fetchone() is None:
                return False
            for table in DEBATE_TABLES:
                con.execute(f"DELETE FROM {table} WHERE debate_id = ?", [debate_id])
            con.execute("DELETE FROM debates WHERE id = ?", [debate_id])
        return True

    # --------------------------------------------------------------- status
    def set_status(self, debate_id: str, status: str, reason: str = "") -> None:
        if status not in ("running", "completed", "failed", "stopped", "interrupted"):
            raise ArchiveError(f"unknown status {status!r}")
        with self._session(write=True, checkpoint=status in FINISHED) as con:
            if con.execute("SELECT 1 FROM debates WHERE id = ?", [debate_id]).fetchone() is None:
                raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
            con.execute("UPDATE debates SET status = ?, stop_reason = ?, updated_at = ?, "
                        "finished_at = CASE WHEN ? IN ('completed', 'failed', 'stopped') THEN ? ELSE finished_at END "
                        "WHERE id = ?", [status, reason, _now(), status, _now(), debate_id])

    def _dead_writers(self, rows: Iterable[tuple]) -> list[tuple[str, str]]:
        """(id, reason) for running debates whose writer is gone."""
        here = socket.gethostname()
        now = _now()
        out = []
        for debate_id, pid, host, start, beat, rounds_done in rows:
            if pid is None:
                continue  # imported as running: no writer here to lose
            nxt = (rounds_done or 0) + 1
            if host == here:
                if process_alive(pid, start):
                    continue
                out.append((debate_id, f"主机 {host} 上的进程 {pid} 在第 {nxt} 轮中途停止"))
            elif beat is None or now - beat > STALE_FOREIGN_WRITER:
                out.append((debate_id, f"主机 {host} 上的写入进程自 {beat} 起无响应（第 {nxt} 轮）"))
        return out

    def mark_interrupted(self) -> list[str]:
        """Flip running debates whose writer process is gone to ``interrupted``; return their ids."""
        q = ("SELECT id, writer_pid, writer_host, writer_start, heartbeat_at, rounds_done FROM debates "
             "WHERE status = 'running'")
        with self._session() as con:
            dead = self._dead_writers(con.execute(q).fetchall())
        if not dead:
            return []
        flipped = []
        with self._session(write=True) as con:
            dead = dict(self._dead_writers(con.execute(q).fetchall()))  # re-check under the write lock
            for debate_id, reason in dead.items():
                con.execute("UPDATE debates SET status = 'interrupted', stop_reason = ?, updated_at = ? "
                            "WHERE id = ? AND status = 'running'", [reason, _now(), debate_id])
                flipped.append(debate_id)
        return flipped

    def claim(self, debate_id: str) -> None:
        """Take ownership of a debate to continue it; refuses one a live process is running."""
        with self._session(write=True) as con:
            row = con.execute("SELECT status, writer_pid, writer_host, writer_start, heartbeat_at, rounds_done "
                              "FROM debates WHERE id = ?", [debate_id]).fetchone()
            if row is None:
                raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
            status, pid, host, start, beat, done = row
            mine = (pid, host) == self._identity[:2]
            if status == "running" and not mine and pid is not None and \
                    not self._dead_writers([(debate_id, pid, host, start, beat, done)]):
                raise ArchiveError(f"debate {debate_id} is running in process {pid} on {host}; "
                                   "wait for it or stop it first")
            w = self._writer_cols()
            con.execute("UPDATE debates SET writer_pid = ?, writer_host = ?, writer_start = ?, heartbeat_at = ? "
                        "WHERE id = ?", [w["writer_pid"], w["writer_host"], w["writer_start"], w["heartbeat_at"],
                                         debate_id])

    # ---------------------------------------------------------------- reads
    def get_debate(self, debate_id: str) -> Debate:
        """One debate in full; ``KeyError`` naming the id when it is not archived."""
        with self._session() as con:
            cur = con.execute("SELECT * FROM debates WHERE id = ?", [debate_id])
            cols = [d[0] for d in cur.description]
            row = cur.fetchone()
            if row is None:
                hint = ""
                near = con.execute("SELECT id FROM debates WHERE starts_with(id, ?) LIMIT 2",
                                   [debate_id]).fetchall() if debate_id else []
                if len(near) == 1:
                    hint = f"; did you mean {near[0][0]!r}?"
                raise KeyError(f"no debate {debate_id!r} in archive {self.path}{hint}")
            h = dict(zip(cols, row))
            speeches = self._rows(con, "SELECT * FROM speeches WHERE debate_id = ? ORDER BY round, ord", debate_id)
            summaries = self._rows(con, "SELECT * FROM summaries WHERE debate_id = ? ORDER BY round, ord",
                                   debate_id)
            obs = self._rows(con, "SELECT * FROM observations WHERE debate_id = ?", debate_id)
            verdict = self._rows(con, "SELECT * FROM verdicts WHERE debate_id = ?", debate_id)
            vrows = self._rows(con, "SELECT * FROM verdict_rows WHERE debate_id = ? ORDER BY ord", debate_id)
            vrounds = self._rows(con, "SELECT * FROM verdict_rounds WHERE debate_id = ? ORDER BY ord", debate_id)
            calls = self._rows(con, "SELECT * FROM llm_calls WHERE debate_id = ? ORDER BY seq", debate_id)
        return self._build(h, speeches, summaries, obs, verdict, vrows, vrounds, calls)

    @staticmethod
    def _rows(con, sql: str, *params) -> list[dict[str, Any]]:
        cur = con.execute(sql, list(params))
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    @staticmethod
    def _build(h, speeches, summaries, obs, verdict, vrows, vrounds, calls) -> Debate:
        rounds = [Speech(
            round=s["round"], speaker=s["speaker"], speaker_name=s["speaker_name"] or "", role=s["role"] or "",
            text=s["text"] or "", citations=s["citations"] or [],
            findings=[Finding(**f) for f in _loads(s["findings"], [])], ammo_used=s["ammo_used"] or [],
            retries=s["retries"] or 0, truncated=bool(s["truncated"]), engine=s["engine"] or "",
            prompt_tokens=s["prompt_tokens"] or 0, completion_tokens=s["completion_tokens"] or 0,
            cost=s["cost"] or 0.0, latency_ms=s["latency_ms"] or 0.0, status=s["status"] or "ok",
            envelope=_loads(s["envelope"]), tool_calls=[ToolCallRecord(**t) for t in _loads(s["tool_calls"], [])],
            warnings=s["warnings"] or [],
        ) for s in speeches]
        v = None
        if verdict:
            vr = verdict[0]
            v = Verdict(winner=vr["winner"], summary=vr["summary"] or "", reasons=_loads(vr["reasons"], {}),
                        rows=[VerdictRow(label=r["label"], stance=r["stance"] or "", strongest=r["strongest"] or "",
                                         weakness=r["weakness"] or "", score=r["score"]) for r in vrows],
                        per_round=[RoundComment(round=r["round"], comment=r["comment"] or "") for r in vrounds],
                        note=vr["note"] or "", parsed=bool(vr["parsed"]), raw=vr["raw"] or "",
                        judge=vr["judge"] or "")
        return Debate(
            id=h["id"], protocol=h["protocol"], topic=h["topic"], status=h["status"],
            stop_reason=h["stop_reason"] or "",
            participants=[Participant(**p) for p in _loads(h["participants"], [])], models=h["models"] or [],
            pack_name=h["pack_name"] or "", pack_version=h["pack_version"] or "",
            planned_rounds=h["planned_rounds"] or 0, config=DebateConfig(**_loads(h["config"], {"topic": h["topic"]})),
            warnings=h["warnings"] or [], rounds=rounds,
            summaries=[RoundSummary(round=s["round"], speaker=s["speaker"] or "", text=s["text"] or "")
                       for s in summaries],
            observation=Observation(divergence=obs[0]["divergence"] or "", consensus=obs[0]["consensus"] or "",
                                    to_reader=obs[0]["to_reader"] or "", engine=obs[0]["engine"] or "")
            if obs else None,
            verdict=v,
            llm_calls=[LLMCall(purpose=c["purpose"] or "", model=c["model"] or "", round=c["round"],
                               speaker=c["speaker"] or "", prompt_tokens=c["prompt_tokens"] or 0,
                               completion_tokens=c["completion_tokens"] or 0, cost=c["cost"] or 0.0,
                               latency_ms=c["latency_ms"] or 0.0, error=c["error"] or "",
                               messages=_loads(c["messages"], []), response=c["response"] or "",
                               created_at=_aware(c["created_at"])) for c in calls],
            created_at=_aware(h["created_at"]), updated_at=_aware(h["updated_at"]),
            batch_id=h["batch_id"], source=h["source"] or "",
        )

    def query(self, sql: str, params: Optional[list] = None) -> pd.DataFrame:
        """A trusted, parameterised read (library use; user SQL goes through :meth:`sql`)."""
        with self._session() as con:
            return con.execute(sql, params or []).df()

    LIST_COLUMNS = ("id, protocol, topic, status, stop_reason, participants, labels, models, pack_name, "
                    "pack_version, planned_rounds, rounds_done AS rounds, prompt_tokens, completion_tokens, cost, "
                    "warnings, degraded, batch_id, source, imported_from, created_at, updated_at, finished_at")

    def list_debates(self, protocol: Optional[str] = None, master: Optional[str] = None,
                     model: Optional[str] = None, status: Optional[str] = None, date_from: Any = None,
                     date_to: Any = None, text: Optional[str] = None, limit: int = 500,
                     batch_id: Optional[str] = None, mark: bool = True) -> pd.DataFrame:
        """Debates, newest first, filtered.  ``master`` matches a participant label or name,
        ``model`` one of the debate's models, ``text`` the topic or any speech (case-insensitive)."""
        if mark:
            self.mark_interrupted()
        needle = (text or "").strip()
        lim = max(0, int(limit))
        where, params = self._filters(protocol, master, model, status, date_from, date_to, None, batch_id)
        if needle and text_index.indexable(needle):
            self._catch_up_search_index(limit=SEARCH_REFRESH_LIMIT)
        try:
            with self._session() as con:
                if needle:
                    ids = self._text_hits(con, needle, where, params, lim)
                    df = con.execute(f"SELECT {self.LIST_COLUMNS} FROM debates WHERE id IN "
                                     "(SELECT unnest(?::VARCHAR[])) ORDER BY created_at DESC, id", [ids]).df()
                else:
                    df = con.execute(f"SELECT {self.LIST_COLUMNS} FROM debates {where} "
                                     f"ORDER BY created_at DESC, id LIMIT {lim}", params).df()
        except duckdb.Error as exc:
            raise ArchiveError(f"listing debates in {self.path} failed: {_first_line(exc)}") from None
        parts = [_loads(p, []) for p in df["participants"]] if len(df) else []
        df["participants"] = [[x.get("name") or x.get("label", "") for x in p] for p in parts]
        return df

    @staticmethod
    def _text_hits(con, needle: str, where: str, params: list, limit: int) -> list[str]:
        """Ids of the first ``limit`` debates (newest first) passing ``where`` whose topic or a
        speech contains ``needle``.  The index narrows the debates to check when it can; they
        are then checked newest first until ``limit`` match."""
        pat = text_index.pattern(needle)
        candidates = text_index.candidate_debates(con, needle)
        if candidates is None:
            ordered = con.execute(f"SELECT id, regexp_matches(topic, ?) FROM debates {where} "
                                  "ORDER BY created_at DESC, id", [pat] + params).fetchall()
        else:
            glue = " AND " if where else "WHERE "
            ordered = con.execute(
                f"SELECT id, regexp_matches(topic, ?) FROM debates {where}{glue}(regexp_matches(topic, ?) "
                "OR id IN (SELECT unnest(?::VARCHAR[]))) ORDER BY created_at DESC, id",
                [pat] + params + [pat, candidates]).fetchall()
        return text_index.first_matches(con, ordered, needle, limit)

    def count_debates(self, **filters) -> int:
        keys = ("protocol", "master", "model", "status", "date_from", "date_to", "text", "batch_id")
        args = {k: filters.get(k) for k in keys}
        text = args.get("text")
        args["text_ids"] = self.search_speeches(text) if text and text.strip() else None
        where, params = self._filters(**args)
        with self._session() as con:
            return con.execute(f"SELECT count(*) FROM debates {where}", params).fetchone()[0]

    @staticmethod
    def _filters(protocol=None, master=None, model=None, status=None, date_from=None, date_to=None, text=None,
                 batch_id=None, text_ids=None) -> tuple[str, list]:
        clauses, params = [], []
        if protocol:
            clauses.append("protocol = ?")
            params.append(protocol)
        if status:
            if isinstance(status, (list, tuple, set)):
                clauses.append("list_contains(?, status)")
                params.append(list(status))
            else:
                clauses.append("status = ?")
                params.append(status)
        if master:
            clauses.append("(list_contains(labels, ?) OR contains(participants::VARCHAR, ?))")
            params += [master, json.dumps(master, ensure_ascii=False)]
        if model:
            clauses.append("list_contains(models, ?)")
            params.append(model)
        if batch_id:
            clauses.append("batch_id = ?")
            params.append(batch_id)
        d0, d1 = _resolve_date(date_from), _resolve_date(date_to, end=True)
        if d0 is not None:
            clauses.append("created_at >= ?")
            params.append(d0)
        if d1 is not None:
            clauses.append("created_at < ?" if not isinstance(date_to, datetime) else "created_at <= ?")
            params.append(d1)
        if text and text.strip():
            pattern = text_index.pattern(text.strip())
            if text_ids is None:
                clauses.append("(regexp_matches(topic, ?) OR id IN (SELECT debate_id FROM speeches "
                               "WHERE regexp_matches(text, ?)))")
                params += [pattern, pattern]
            else:
                clauses.append("(regexp_matches(topic, ?) OR id IN (SELECT unnest(?::VARCHAR[])))")
                params += [pattern, list(text_ids)]
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", params

    # ----------------------------------------------------------- text search
    def refresh_search_index(self, *, full: bool = False, limit: Optional[int] = None,
                             minimum: Optional[int] = None) -> int:
        """Index the speeches stored since the last refresh (or rebuild the index with ``full``),
        then merge its runs (see :mod:`debate_core.text_index`).  Nothing is written unless
        ``minimum`` speeches wait (default ``RUN_MIN``; any whole group with ``full``).  Works in
        transactions of at most ``text_index.CHUNK`` speeches, so other writers get the file
        between them.  Returns the number of speeches newly indexed.  Searches and bulk writes
        call this themselves."""
        if minimum is None:
            minimum = 1 if full else text_index.RUN_MIN
        done, first = 0, True
        while limit is None or done < limit:
            step = text_index.CHUNK if limit is None else min(text_index.CHUNK, limit - done)
            with self._session(write=True) as con:
                n = text_index.refresh(con, full=full and first, minimum=minimum if first else 1, limit=step)
            done, first = done + n, False
            if n < step:
                break
        return done

    def search_index_status(self) -> dict[str, Any]:
        """What the text-search index covers: runs, postings, speeches covered and waiting."""
        with self._session() as con:
            runs = text_index.runs(con)
            return {"runs": len(runs), "levels": [r[1] for r in runs], "postings": int(sum(r[4] for r in runs)),
                    "covered_to": text_index.covered_to(con), "waiting": text_index.backlog(con),
                    "speeches": con.execute("SELECT count(*) FROM speeches").fetchone()[0]}

    def search_speeches(self, text: str) -> Optional[list[str]]:
        """Ids of all debates with a speech containing ``text`` (case-insensitive), exactly.  The
        bigram index narrows the speeches to check; speeches it does not cover yet are scanned.
        None only when the search itself failed."""
        needle = (text or "").strip()
        if not needle:
            return None
        if text_index.indexable(needle):
            self._catch_up_search_index(limit=SEARCH_REFRESH_LIMIT)
        try:
            with self._session() as con:
                return text_index.search(con, needle)
        except (ArchiveError, duckdb.Error):
            return None

    # ---------------------------------------------------------------- audits
    def save_audit(self, report: Any, *, batch_id: Optional[str] = None) -> str:
        """Store a judge audit (:class:`debate_core.audit.AuditReport`): its judgments, its summary
        and every judge call it made (prompts and replies, keys scrubbed), in one transaction.
        Returns the audit id (also set on the report)."""
        secrets = _env_secrets()
        j = report.judgments
        audit_id = report.audit_id or uuid.uuid4().hex[:12]
        judgments = [{k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
                     for row in j.to_dict(orient="records")] if len(j) else []
        cols = ("debate_id", "judge", "variant", "winner", "shown", "position", "first", "n", "parsed", "stored",
                "error", "prompt_tokens", "completion_tokens", "cost")
        rows = [{"audit_id": audit_id, **{c: r.get(c) for c in cols}} for r in judgments]
        for r in rows:
            r["position"] = None if r["position"] is None else int(r["position"])
            r["error"] = scrub(r["error"] or "", secrets)
        calls = [{"audit_id": audit_id, "seq": i, "judge": c["judge"], "variant": c["variant"],
                  **{k: v for k, v in self._call_row(c["debate_id"], c["call"], i, secrets).items()
                     if k not in ("seq", "round", "speaker")}}
                 for i, c in enumerate(report.calls)]
        header = {"audit_id": audit_id, "batch_id": batch_id,
                  "judges": sorted({r["judge"] for r in rows if r["judge"]}),
                  "variants": sorted({r["variant"] for r in rows if r["variant"]}),
                  "debates": len({r["debate_id"] for r in rows}), "judgments": len(rows), "calls": len(calls),
                  "prompt_tokens": sum(c["prompt_tokens"] or 0 for c in calls),
                  "completion_tokens": sum(c["completion_tokens"] or 0 for c in calls),
                  "cost": float(sum(c["cost"] or 0 for c in calls)),
                  "summary": _dumps(scrub(report.summary, secrets)), "created_at": _now()}
        with self._session(write=True) as con:
            for table in AUDIT_TABLES:
                con.execute(f"DELETE FROM {table} WHERE audit_id = ?", [audit_id])
            self._insert(con, "audits", header)
            self._insert_many(con, "audit_judgments", rows)
            self._insert_many(con, "audit_calls", calls)
        report.audit_id = audit_id
        return audit_id

    def audits(self) -> pd.DataFrame:
        """Stored judge audits, newest first."""
        return self.query("SELECT audit_id, batch_id, judges, variants, debates, judgments, calls, prompt_tokens, "
                          "completion_tokens, cost, created_at FROM audits ORDER BY created_at DESC, audit_id")

    def audit_judgments(self, audit_id: str) -> pd.DataFrame:
        return self.query("SELECT * EXCLUDE (audit_id) FROM audit_judgments WHERE audit_id = ? "
                          "ORDER BY debate_id, judge, variant", [audit_id])

    # ------------------------------------------------------------ analytics
    def tokens_by_model(self) -> pd.DataFrame:
        """Calls, tokens and cost per model: from llm_calls, plus the speeches of debates
        that have no call ledger (imported ones)."""
        sql = """
            WITH ledger AS (SELECT DISTINCT debate_id FROM llm_calls),
            c AS (SELECT model, count(*) AS calls, count(DISTINCT debate_id) AS debates,
                         sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                         sum(cost) AS cost, count(*) FILTER (WHERE coalesce(error, '') <> '') AS errors,
                         avg(latency_ms) AS avg_latency_ms
                  FROM llm_calls GROUP BY model),
            s AS (SELECT engine AS model, 0 AS calls, count(DISTINCT debate_id) AS debates,
                         sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                         sum(cost) AS cost, 0 AS errors, avg(latency_ms) AS avg_latency_ms
                  FROM speeches WHERE debate_id NOT IN (SELECT debate_id FROM ledger) AND coalesce(engine, '') <> ''
                  GROUP BY engine)
            SELECT model, sum(calls)::BIGINT AS calls, sum(debates)::BIGINT AS debates,
                   sum(prompt_tokens)::BIGINT AS prompt_tokens, sum(completion_tokens)::BIGINT AS completion_tokens,
                   (sum(prompt_tokens) + sum(completion_tokens))::BIGINT AS tokens, sum(cost) AS cost,
                   sum(errors)::BIGINT AS errors, avg(avg_latency_ms) AS avg_latency_ms
            FROM (SELECT * FROM c UNION ALL SELECT * FROM s) GROUP BY model ORDER BY cost DESC, tokens DESC, model"""
        return self.query(sql)

    def check_failures(self) -> pd.DataFrame:
        """Failed checks per rule and speaker (master slug or label), most frequent first."""
        return self.query("""
            SELECT rule, speaker, any_value(speaker_name) AS speaker_name, count(*) AS count,
                   count(DISTINCT debate_id) AS debates
            FROM findings WHERE NOT passed GROUP BY rule, speaker ORDER BY count DESC, rule, speaker""")

    def debates_over_time(self, freq: str = "day") -> pd.DataFrame:
        if freq not in ("hour", "day", "week", "month", "year"):
            raise ArchiveError(f"freq must be hour, day, week, month or year, not {freq!r}")
        return self.query(f"""
            SELECT date_trunc('{freq}', created_at) AS period, protocol, status, count(*) AS debates
            FROM debates GROUP BY ALL ORDER BY period, protocol, status""")

    def rounds_per_debate(self) -> pd.DataFrame:
        return self.query("""
            SELECT id, protocol, topic, status, planned_rounds, rounds_done AS rounds, created_at
            FROM debates ORDER BY created_at DESC, id""")

    def tokens_per_round(self, debate_id: str) -> pd.DataFrame:
        return self.query("""
            SELECT round, speaker, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                   sum(cost) AS cost FROM speeches WHERE debate_id = ? GROUP BY round, speaker ORDER BY round""",
                          [debate_id])

    def winners(self) -> pd.DataFrame:
        """Judged debates: the winner label, its stance and model."""
        return self.query("""
            WITH p AS (
                SELECT d.id, x.p.label AS label, x.p.model AS model, x.p.stance AS stance
                FROM debates d, unnest(from_json(coalesce(d.participants, '[]'),
                     '[{"label":"VARCHAR","model":"VARCHAR","stance":"VARCHAR"}]')) AS x(p))
            SELECT d.id, d.protocol, d.topic, v.winner, coalesce(nullif(p.stance, ''), r.stance) AS stance, p.model,
                   r.score, v.judge, d.created_at
            FROM verdicts v JOIN debates d ON d.id = v.debate_id
            LEFT JOIN verdict_rows r ON r.debate_id = v.debate_id AND r.label = v.winner
            LEFT JOIN p ON p.id = v.debate_id AND p.label = v.winner
            ORDER BY d.created_at DESC, d.id""")

    # ------------------------------------------------------------- coverage
    def degraded_pairs(self) -> pd.DataFrame:
        """Master pairs debated with the coverage warning ("⚠️ …"), and how often."""
        df = self.query("""
            SELECT list_sort(labels[1:2]) AS pair_list, count(*) AS debates, max(created_at) AS last_at,
                   count(*) FILTER (WHERE status = 'completed') AS completed
            FROM debates WHERE protocol = 'master' AND degraded AND len(labels) >= 2
            GROUP BY ALL ORDER BY debates DESC, pair_list""")
        df.insert(0, "pair", [f"{p[0]}-vs-{p[1]}" for p in df["pair_list"]])
        df.insert(1, "a", [p[0] for p in df["pair_list"]])
        df.insert(2, "b", [p[1] for p in df["pair_list"]])
        return df.drop(columns=["pair_list"])

    def pack_snapshots(self) -> pd.DataFrame:
        return self.query("SELECT * FROM packs ORDER BY created_at")

    def _snapshot_edges(self, debate_id: Optional[str] = None, pack_hash: Optional[str] = None):
        with self._session() as con:
            if pack_hash is None:
                if debate_id is not None:
                    row = con.execute("SELECT pack_hash FROM debates WHERE id = ?", [debate_id]).fetchone()
                    if row is None:
                        raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
                    if row[0] is None:
                        raise ArchiveError(f"debate {debate_id} has no stored pack snapshot")
                    pack_hash = row[0]
                else:
                    row = con.execute("SELECT pack_hash FROM packs ORDER BY created_at DESC LIMIT 1").fetchone()
                    if row is None:
                        raise ArchiveError("the archive holds no pack snapshot yet")
                    pack_hash = row[0]
            info = con.execute("SELECT name, version, path FROM packs WHERE pack_hash = ?", [pack_hash]).fetchone()
            if info is None:
                raise ArchiveError(f"no pack snapshot {pack_hash!r} in the archive")
            slugs = [r[0] for r in con.execute("SELECT slug FROM pack_masters WHERE pack_hash = ? ORDER BY slug",
                                               [pack_hash]).fetchall()]
            edges = con.execute("SELECT slug, target_master FROM pack_critiques WHERE pack_hash = ?",
                                [pack_hash]).fetchall()
        return pack_hash, info, slugs, [tuple(e) for e in edges]

    def coverage_snapshot(self, debate_id: Optional[str] = None, pack_hash: Optional[str] = None
                          ) -> tuple[pd.DataFrame, dict]:
        """(matrix, gaps) from the pack snapshot stored with a debate (or a given / the latest snapshot)."""
        from debate_core.content.coverage import gaps_from_edges, matrix_from_edges

        h, info, slugs, edges = self._snapshot_edges(debate_id, pack_hash)
        gaps = gaps_from_edges(slugs, edges)
        gaps["pack"] = {"name": info[0], "version": info[1], "path": info[2], "hash": h}
        return matrix_from_edges(slugs, edges), gaps

    # ---------------------------------------------------------------- SQL box
    def sql(self, query: str, *, max_rows: int = 10_000, timeout: float = 10.0) -> pd.DataFrame:
        """Run one user query strictly read-only; raises :class:`SqlRefused` (one line) otherwise.
        The query holds this process's archive lock while it runs (live debates in the same
        process wait to commit), hence the short default ``timeout``."""
        return run_readonly_sql(self.path, query, max_rows=max_rows, timeout=timeout, lock_timeout=self.lock_timeout)

    # ------------------------------------------------------- import / export
    def pack_path(self, debate_id: str) -> Optional[str]:
        """The pack folder recorded when the debate was saved, or None."""
        with self._session() as con:
            row = con.execute("SELECT pack_path FROM debates WHERE id = ?", [debate_id]).fetchone()
        return row[0] if row and row[0] else None


# ------------------------------------------------------------------- SQL guard

_ALLOWED_PRAGMAS = {"show_tables", "show_tables_expanded", "table_info", "show", "database_size", "storage_info",
                    "version", "database_list", "functions"}


def check_readonly_sql(con: duckdb.DuckDBPyConnection, query: str) -> None:
    """Refuse anything but one SELECT / EXPLAIN (or an informational PRAGMA) before it runs."""
    if not query or not query.strip():
        raise SqlRefused("refused: the query is empty")
    try:
        statements = con.extract_statements(query)
    except duckdb.Error as exc:
        raise SqlRefused(f"SQL error: {_first_line(exc)}") from None
    if len(statements) != 1:
        raise SqlRefused(f"refused: one statement at a time ({len(statements)} given)")
    st = statements[0]
    kind = st.type.name if hasattr(st.type, "name") else str(st.type)
    if kind in ("SELECT", "EXPLAIN"):
        return
    if kind == "PRAGMA":
        name = re.match(r"\s*pragma\s+([a-z_]+)", st.query, re.I)
        if name and name.group(1).lower() in _ALLOWED_PRAGMAS:
            return
        raise SqlRefused("refused: only informational PRAGMAs (show_tables, table_info, …) are allowed")
    reasons = {
        "COPY": "COPY reads or writes files", "COPY_DATABASE": "COPY reads or writes files",
        "EXPORT": "EXPORT writes files", "ATTACH": "ATTACH opens other databases",
        "DETACH": "DETACH is not allowed", "LOAD": "installing or loading extensions is not allowed",
        "EXTENSION": "installing or loading extensions is not allowed", "SET": "settings cannot be changed",
        "VARIABLE_SET": "settings cannot be changed", "CALL": "CALL is not allowed",
        "TRANSACTION": "transactions are not needed to read", "PREPARE": "prepared statements are not allowed",
        "EXECUTE": "prepared statements are not allowed",
    }
    what = reasons.get(kind)
    if what is None:
        raise SqlRefused(f"refused: the archive is read-only here ({kind} would write; only SELECT queries run)")
    raise SqlRefused(f"refused: {what}; only SELECT queries run")


def run_readonly_sql(path: str | Path, query: str, *, max_rows: int = 10_000, timeout: float = 30.0,
                     lock_timeout: float = LOCK_TIMEOUT) -> pd.DataFrame:
    """The SQL box: a read_only connection with ``enable_external_access=false`` and locked
    configuration; one SELECT at a time; at most ``max_rows`` rows; interrupted after
    ``timeout`` seconds.  Every refusal or failure is a one-line :class:`SqlRefused`."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise SqlRefused(f"archive {path} does not exist")
    config = {"enable_external_access": False, "autoinstall_known_extensions": False,
              "autoload_known_extensions": False}
    with _HOST_LOCK:  # never open the file twice in one process while an operation has it attached
        deadline = time.monotonic() + lock_timeout
        delay = 0.002
        while True:
            try:
                con = duckdb.connect(str(path), read_only=True, config=config)
                break
            except duckdb.Error as exc:
                if _is_lock_error(exc) and time.monotonic() < deadline:
                    time.sleep(delay * (0.5 + random.random()))
                    delay = min(delay * 2, 0.1)
                    continue
                raise SqlRefused(f"cannot open archive: {_first_line(exc)}") from None
        timer = None
        try:
            con.execute("SET lock_configuration = true")
            check_readonly_sql(con, query)
            timer = threading.Timer(timeout, con.interrupt)
            timer.daemon = True
            timer.start()
            try:
                rel = con.sql(query)
                if rel is None:
                    return pd.DataFrame()
                return rel.limit(max_rows).df() if max_rows else rel.df()
            except duckdb.InterruptException:
                raise SqlRefused(f"refused: the query ran longer than {timeout:g} s and was stopped") from None
            except duckdb.PermissionException:
                raise SqlRefused("refused: reading or writing files is disabled in the SQL box") from None
            except duckdb.Error as exc:
                msg = _first_line(exc)
                if "read-only" in msg or "read only" in msg:
                    raise SqlRefused("refused: the archive is read-only here") from None
                if "disabled" in msg and ("configuration" in msg or "extension" in msg.lower()):
                    raise SqlRefused("refused: reading or writing files is disabled in the SQL box") from None
                raise SqlRefused(f"SQL error: {msg}") from None
        finally:
            if timer is not None:
                timer.cancel()
            con.close()


# --------------------------------------------------------------------- opening


def open_archive(path: Optional[str | Path] = None, *, create: bool = True,
                 lock_timeout: float = LOCK_TIMEOUT) -> Archive:
    """The archive at ``path``, else ``$DEBATE_ARCHIVE``, else ``data/archive.duckdb`` in the repo.

    Creates the file (and its folder) when missing; migrates an older schema; refuses a
    newer or corrupt file with :class:`ArchiveError`, leaving it untouched.
    """
    target = Path(path).expanduser() if path else default_archive_path()
    if target.is_dir():
        raise ArchiveError(f"archive path {target} is a folder; give a file such as {target / 'archive.duckdb'}")
    return Archive(target, lock_timeout=lock_timeout, create=create)


__all__ = ["Archive", "ArchiveError", "SqlRefused", "open_archive", "run_readonly_sql", "check_readonly_sql",
           "scrub", "SCHEMA_VERSION", "MIGRATIONS", "default_archive_path"]
