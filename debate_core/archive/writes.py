"""Group commits: a debate's writes as values (:class:`Write`), built in the debate's own thread
and applied later, many debates' together, in one transaction.

:class:`DebateWrites` is the public write API of the archive recorder that a batch writer uses:
``write_start``, ``write_speech``, ``write_summary``, ``write_call`` and ``write_update`` each
build the :class:`Write` of one recorder event (rows computed and scrubbed there, nothing
touched), and :meth:`DebateWrites.apply_writes` applies a list of them inside a transaction.
:class:`GroupedRecorder` queues them on a :class:`~debate_core.archive.connection.GroupWriter`
(``Archive.grouped()``); a batch's worker process builds them with a :class:`WriteBuilder` and
sends them to its parent, whose archive applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate_core.archive.connection import FINISHED, GROUP_INTERVAL, GroupWriter
from debate_core.archive.parts import ArchiveParts
from debate_core.archive.rows import (
    CALL_KEY,
    OUTCOME_KEY,
    OUTCOME_TABLES,
    SUMMARY_KEY,
    TOUCHED,
    call_row,
    header_row,
    insert_row,
    insert_rows,
    outcome_rows,
    pack_for,
    pack_hash_of,
    snapshot_pack,
    speech_key,
    speech_row,
    touch_values,
    update_many,
)
from debate_core.errors import ArchiveError
from debate_core.models import Debate, LLMCall, Pack, RoundSummary, Speech
from debate_core.recorder import Recorder
from debate_core.scrub import env_secrets


@dataclass
class Write:
    """One recorder write of a debate, built in the debate's own thread (rows computed and
    scrubbed there) and applied later with others in one transaction (:class:`GroupedRecorder`).

    Applied in this order: the debate's row (``header``: upserted, with the pack linked),
    ``before`` (statements such as the deletes a rerun needs), ``rows`` (inserts, grouped by
    table with other writes' rows into multi-row statements), then the debate's status and
    totals (``touch``: only the latest per debate and transaction is written)."""

    debate_id: str
    header: dict[str, Any] | None = None
    pack: Pack | None = None
    before: list[tuple[str, list]] = field(default_factory=list)
    rows: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    touch: dict[str, Any] | None = None
    next_seq: bool = False  # a model call whose place in the debate is unknown: numbered after the stored ones


class DebateWrites(ArchiveParts):
    """The recorder's writes as values (:class:`Write`): built without touching the archive, applied
    by :meth:`apply_writes` in the caller's transaction.  A mixin of
    :class:`~debate_core.archive.Archive`; :class:`WriteBuilder` is one on its own."""

    _fresh: dict[str, set[str]]  # keys written for debates this object started (their rows need no delete)

    def grouped(self, *, interval: float = GROUP_INTERVAL, durable: str = "finish") -> GroupedRecorder:
        """A recorder on this archive whose writes are committed together by one writer thread
        (:class:`GroupedRecorder`); close it (or use it as a context manager) when done."""
        return GroupedRecorder(self, interval=interval, durable=durable)

    def write_start(self, debate: Debate) -> Write:
        """The write of a debate just created: its row (and its pack's snapshot, linked)."""
        # runs.start reports a debate it has just created (a fresh id): no row of it can exist yet
        self._fresh[debate.id] = set()
        header = header_row(debate, env_secrets())
        self.__dict__.setdefault("_headers", {})[debate.id] = header
        return Write(debate.id, header=header, pack=pack_for(debate))

    def write_speech(self, debate: Debate, speech: Speech) -> Write:
        """The write of a finished speech (replacing a rerun round's row), with the debate's totals."""
        ord_ = next((i for i, s in enumerate(debate.rounds) if s is speech), len(debate.rounds))
        return self._keyed(
            debate,
            speech_key(speech.round, speech.speaker),
            "speeches",
            speech_row(debate.id, speech, ord_, env_secrets()),
            "round = ? AND speaker = ?",
            [speech.round, speech.speaker],
        )

    def write_summary(self, debate: Debate, summary: RoundSummary) -> Write:
        """The write of a round's summary (replacing the one stored for its round and speaker)."""
        ord_ = next((i for i, s in enumerate(debate.summaries) if s is summary), len(debate.summaries))
        row = {
            "debate_id": debate.id,
            "round": summary.round,
            "ord": ord_,
            "speaker": summary.speaker,
            "text": summary.text,
        }
        return self._keyed(
            debate,
            SUMMARY_KEY + speech_key(summary.round, summary.speaker),
            "summaries",
            row,
            "round = ? AND speaker = ?",
            [summary.round, summary.speaker],
        )

    def write_call(self, debate: Debate, call: LLMCall) -> Write:
        """The write of one model call in the debate's call ledger (numbered after the stored
        ones when ``call`` is not in ``debate.llm_calls``)."""
        seq = next((i for i in range(len(debate.llm_calls) - 1, -1, -1) if debate.llm_calls[i] is call), None)
        row = call_row(debate.id, call, -1 if seq is None else seq, env_secrets())
        if seq is None:
            return Write(debate.id, rows=[("llm_calls", row)], touch=touch_values(debate), next_seq=True)
        return self._keyed(debate, f"{CALL_KEY}{seq}", "llm_calls", row, "seq = ?", [seq])

    def _keyed(self, debate: Debate, key: str, table: str, row: dict[str, Any], where: str, params: list) -> Write:
        """A row that replaces the one stored under the same key; a debate this archive started
        writes its keys once each, so the delete is skipped for a key not written yet."""
        written = self._fresh.get(debate.id)
        before = (
            []
            if written is not None and key not in written
            else [(f"DELETE FROM {table} WHERE debate_id = ? AND {where}", [debate.id, *params])]
        )
        if written is not None:
            written.add(key)
        return Write(debate.id, before=before, rows=[(table, row)], touch=touch_values(debate))

    def write_update(self, debate: Debate) -> Write:
        """The write of the debate's row as it is now (only what changed since the last one, for a
        debate this builder started), dropping speeches and summaries it no longer holds and
        replacing its outcome (observation, verdict, judgments)."""
        secrets = env_secrets()
        keys = [speech_key(s.round, s.speaker) for s in debate.rounds]
        skeys = [speech_key(s.round, s.speaker) for s in debate.summaries]
        written = self._fresh.get(debate.id)
        before = []
        if written is None or {k for k in written if k[:2] not in (SUMMARY_KEY, CALL_KEY, OUTCOME_KEY)} - set(keys):
            before.append(
                (
                    "DELETE FROM speeches WHERE debate_id = ? AND NOT list_contains(?, "
                    "round::VARCHAR || chr(31) || speaker)",
                    [debate.id, keys],
                )
            )
        if written is None or {k[2:] for k in written if k[:2] == SUMMARY_KEY} - set(skeys):
            before.append(
                (
                    "DELETE FROM summaries WHERE debate_id = ? AND NOT list_contains(?, "
                    "round::VARCHAR || chr(31) || speaker)",
                    [debate.id, skeys],
                )
            )
        if written is None or OUTCOME_KEY in written:
            before += [(f"DELETE FROM {t} WHERE debate_id = ?", [debate.id]) for t in OUTCOME_TABLES]
        rows = outcome_rows(debate, secrets)
        if written is not None and rows:
            written.add(OUTCOME_KEY)
        header = header_row(debate, secrets)
        headers = self.__dict__.setdefault("_headers", {})
        prev = headers.get(debate.id) if written is not None else None
        if debate.status != "running":
            self._fresh.pop(debate.id, None)
            headers.pop(debate.id, None)
        elif written is not None:
            headers[debate.id] = header
        if prev is not None:  # only what changed (and the status and totals, which touches also write)
            header = {k: v for k, v in header.items() if k in TOUCHED or prev.get(k) != v}
        return Write(debate.id, header=header, before=before, rows=rows)

    def apply_writes(self, con, writes: Sequence[Write]) -> None:
        """Apply ``writes`` (in the order they were built) on ``con``, the archive attached for writing
        inside the caller's transaction (the :class:`~debate_core.archive.connection.GroupWriter`'s),
        in few statements: the debates' rows (a debate's headers merged, later values winning)
        inserted or updated together, the other rows in one multi-row insert per table, the status
        and totals (the latest per debate, when newer than its row) in one update."""
        owner = self._writer_cols()
        last: dict[str, int] = {}
        packs: dict[str, Pack] = {}
        merged: dict[str, dict[str, Any]] = {}
        for i, w in enumerate(writes):
            if w.header is not None:
                last[w.debate_id] = i
                merged.setdefault(w.debate_id, {}).update(w.header)
            if w.pack is not None:
                packs[w.debate_id] = w.pack
        headers = []
        for debate_id in last:
            row = {**merged[debate_id], **owner}
            pack = packs.get(debate_id)
            if pack is not None:
                h = pack_hash_of(pack)
                if con.execute("SELECT 1 FROM packs WHERE pack_hash = ?", [h]).fetchone() is None:
                    snapshot_pack(con, pack)
                row.update(pack_hash=h, pack_path=str(Path(pack.path).resolve()))
            headers.append(row)
        stored = (
            {
                r[0]
                for r in con.execute(
                    "SELECT id FROM debates WHERE list_contains(?, id)", [[h["id"] for h in headers]]
                ).fetchall()
            }
            if headers
            else set()
        )
        insert_rows(con, "debates", [h for h in headers if h["id"] not in stored])
        update_many(
            con, "debates", [{k: v for k, v in h.items() if k != "created_at"} for h in headers if h["id"] in stored]
        )
        pending: dict[str, list[dict[str, Any]]] = {}
        touches: dict[str, dict[str, Any]] = {}

        def insert_pending() -> None:
            for table, rows in pending.items():
                insert_rows(con, table, rows)
            pending.clear()

        for i, w in enumerate(writes):
            if w.before or w.next_seq:
                insert_pending()
                for sql, params in w.before:
                    con.execute(sql, params)
            for table, row in w.rows:
                if w.next_seq:
                    row["seq"] = con.execute(
                        "SELECT coalesce(max(seq), -1) + 1 FROM llm_calls WHERE debate_id = ?", [w.debate_id]
                    ).fetchone()[0]
                    insert_row(con, table, row)
                else:
                    pending.setdefault(table, []).append(row)
            if w.touch is not None and i > last.get(w.debate_id, -1):  # newer than the row written above
                touches[w.debate_id] = {"id": w.debate_id, **w.touch, **owner}
        insert_pending()
        update_many(con, "debates", list(touches.values()))


class WriteBuilder(DebateWrites):
    """Builds a debate's writes away from the archive (a batch's worker process, which sends them to
    the process whose archive applies them); it never opens the archive file."""

    def __init__(self) -> None:
        self._fresh = {}


class GroupedRecorder(Recorder):
    """The archive as a recorder whose writes many debates share: each write is built in the
    debate's thread and queued; one :class:`~debate_core.archive.connection.GroupWriter` thread
    commits whatever has queued, from every debate, in one transaction at most ``interval``
    seconds later.  ``durable`` says which writes the debate waits for: ``finish`` (a debate
    leaving ``running`` — completed, failed, stopped — returns once everything it wrote is
    committed), ``speech`` (also every speech, as the direct path promises) or ``all``.

    Everything else (reads, ``claim``, ``mark_interrupted`` …) is the archive's own, so this
    object stands in for the archive wherever a run takes one (``runs.reopen``).  A write that
    could not be committed makes the debate's next write raise :class:`ArchiveError`."""

    def __init__(self, archive: Any, *, interval: float = GROUP_INTERVAL, durable: str = "finish"):
        if durable not in ("finish", "speech", "all"):
            raise ValueError(f"durable: {durable!r} is not finish, speech or all")
        self.archive = archive
        self.durable = durable
        self.writer = GroupWriter(archive, archive.apply_writes, interval=interval)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.archive, name)

    def __repr__(self) -> str:
        return f"GroupedRecorder({self.archive!r})"

    def __enter__(self) -> GroupedRecorder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def failures(self) -> dict[str, str]:
        return self.writer.failures

    def _submit(self, write: Any, wait: bool, checkpoint: bool = False) -> None:
        why = self.writer.failures.get(write.debate_id)
        if why:
            raise ArchiveError(why)
        self.writer.submit(write, wait=wait or self.durable == "all", checkpoint=checkpoint)

    def start(self, debate: Debate) -> None:
        self._submit(self.archive.write_start(debate), wait=False)

    def speech(self, debate: Debate, speech: Speech) -> None:
        self._submit(self.archive.write_speech(debate, speech), wait=self.durable == "speech")

    def summary(self, debate: Debate, summary: RoundSummary) -> None:
        self._submit(self.archive.write_summary(debate, summary), wait=False)

    def call(self, debate: Debate, call: LLMCall) -> None:
        self._submit(self.archive.write_call(debate, call), wait=False)

    def update(self, debate: Debate) -> None:
        # a debate leaving "running" is committed before the caller goes on, and a finished one
        # is folded into the file, as on the direct path
        self._submit(
            self.archive.write_update(debate), wait=debate.status != "running", checkpoint=debate.status in FINISHED
        )

    def set_status(self, debate_id: str, status: str, reason: str = "") -> None:
        self.writer.flush()  # after this debate's queued writes, never before them
        self.archive.set_status(debate_id, status, reason)

    def flush(self) -> None:
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()
