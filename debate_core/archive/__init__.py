"""The DuckDB archive: every debate saved as it happens, resumable, queryable.

One DuckDB file (default ``data/archive.duckdb``; ``$DEBATE_ARCHIVE`` or an
explicit path override it) holds every debate.  :class:`Archive` implements the
:class:`~debate_core.recorder.Recorder` interface, so a running debate commits each
finished speech before its next round starts, and it is the library the app, the
CLI and notebooks query.  It is composed of:

* :mod:`~debate_core.archive.connection`: attaching the file per operation (one short
  transaction, then detach: see docs/archive.md, Concurrency), lock waits, checkpoints,
  the schema on opening, and the writer of a running debate;
* :mod:`~debate_core.archive.migrations`: the schema, v1 to :data:`SCHEMA_VERSION`;
* :mod:`~debate_core.archive.recorder`: the writes (the recorder, whole debates, audits), their
  rows from :mod:`~debate_core.archive.rows`;
* :mod:`~debate_core.archive.writes`: the same writes as values for group commits (the public
  write API a batch writer uses: ``write_start`` … ``apply_writes``, :class:`WriteBuilder`);
* :mod:`~debate_core.archive.reads`: one debate, the list, counts and text search
  (:mod:`~debate_core.archive.text_index`);
* :mod:`~debate_core.archive.queries`: the analytic reads and the SQL box
  (:mod:`~debate_core.archive.sql_guard`, with the box's :data:`SQL_EXAMPLES`);
* :mod:`~debate_core.archive.lookups`: the named lookups the library, the app and the
  benchmarks make (a debate's status, a batch's debates, the app's filter values …);
* :mod:`~debate_core.archive.synthetic`: bulk-filled synthetic archives for the benchmarks;
* :mod:`~debate_core.archive.labels`: the argument ledger's cached model labels;
* :mod:`~debate_core.archive.votes`: a presented debate's audience vote (before / after, one vote
  per device per phase).

Crash safety: a running debate records its writer (pid, host, process start
time) and a heartbeat; :meth:`Archive.mark_interrupted` flips running debates
whose writer is gone to ``interrupted``; :mod:`debate_core.runs` continues them
under the protocol's own rules (the archive only stores and reads).

Every SQL statement against the archive's tables lives in this package, each behind a named,
documented method or function (tests/test_archive_sealed.py keeps it so); the one way in for
SQL text from outside is the user's own read-only query, through :meth:`Archive.sql`.
"""

from __future__ import annotations

from pathlib import Path

from debate_core.archive.connection import (
    DEFAULT_ARCHIVE,
    LOCK_TIMEOUT,
    REPO_ROOT,
    Connection,
    default_archive_path,
    process_alive,
    writer_identity,
)
from debate_core.archive.connection import (
    _proc_stat as _proc_stat,  # re-exported: tests read a process's start time through the package
)
from debate_core.archive.labels import LedgerLabels
from debate_core.archive.lookups import Lookups
from debate_core.archive.migrations import MIGRATIONS, SCHEMA_VERSION
from debate_core.archive.queries import Queries
from debate_core.archive.reads import Reads
from debate_core.archive.recorder import ArchiveRecorder
from debate_core.archive.sql_guard import SQL_EXAMPLES, check_readonly_sql, run_readonly_sql
from debate_core.archive.votes import PHASES, UNDECIDED, AudienceVotes, PhaseState, VoteRefused
from debate_core.errors import ArchiveError, SqlRefused
from debate_core.scrub import scrub


class Archive(Connection, Reads, Queries, Lookups, ArchiveRecorder, LedgerLabels, AudienceVotes):
    """A debate archive in one DuckDB file.  Safe to share between threads."""

    def __init__(self, path: str | Path, *, lock_timeout: float = LOCK_TIMEOUT, create: bool = True):
        self.path = Path(path).expanduser().resolve()
        self.lock_timeout = lock_timeout
        self._identity = writer_identity()
        self._fresh: dict[str, set[str]] = {}  # speech keys written for debates this instance started
        self._ensure_schema(create)

    def __repr__(self) -> str:
        return f"Archive({str(self.path)!r})"


def open_archive(path: str | Path | None = None, *, create: bool = True, lock_timeout: float = LOCK_TIMEOUT) -> Archive:
    """The archive at ``path``, else ``$DEBATE_ARCHIVE``, else ``data/archive.duckdb`` in the repo.

    Creates the file (and its folder) when missing; migrates an older schema; refuses a
    newer or corrupt file with :class:`ArchiveError`, leaving it untouched.
    """
    target = Path(path).expanduser() if path else default_archive_path()
    if target.is_dir():
        raise ArchiveError(f"archive path {target} is a folder; give a file such as {target / 'archive.duckdb'}")
    return Archive(target, lock_timeout=lock_timeout, create=create)


__all__ = [
    "Archive",
    "ArchiveError",
    "SqlRefused",
    "open_archive",
    "run_readonly_sql",
    "check_readonly_sql",
    "SQL_EXAMPLES",
    "scrub",
    "SCHEMA_VERSION",
    "MIGRATIONS",
    "DEFAULT_ARCHIVE",
    "REPO_ROOT",
    "LOCK_TIMEOUT",
    "default_archive_path",
    "process_alive",
    "writer_identity",
    "PHASES",
    "UNDECIDED",
    "PhaseState",
    "VoteRefused",
]
