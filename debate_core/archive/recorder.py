"""The archive's writes: the :class:`~debate_core.recorder.Recorder` a running debate reports
to (each finished speech committed before the next round starts), whole debates in one
transaction (imports, batches), pack snapshots and judge audits.  The rows come from
:mod:`debate_core.archive.rows`; the same writes as values, for group commits, from
:mod:`debate_core.archive.writes`.

Every string that can carry a key (speeches, the config, warnings, model calls, a verdict's
raw text, audit errors) passes through :func:`debate_core.scrub.scrub` before it is stored.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from debate_core.archive.claims import BatchClaims
from debate_core.archive.connection import FINISHED
from debate_core.archive.migrations import AUDIT_JUDGMENT_COLUMNS, AUDIT_TABLES, DEBATE_TABLES, VOTE_TABLES
from debate_core.archive.rows import (
    OUTCOME_TABLES,
    call_row,
    header_row,
    insert_row,
    insert_rows,
    outcome_rows,
    pack_for,
    snapshot_pack,
    speech_key,
    speech_row,
    totals,
)
from debate_core.archive.values import aggregate, dumps, now, to_utc
from debate_core.archive.writes import DebateWrites, GroupedRecorder, Write, WriteBuilder
from debate_core.models import Debate, LLMCall, RoundSummary, Speech
from debate_core.recorder import Recorder
from debate_core.scrub import env_secrets, scrub

__all__ = ["ArchiveRecorder", "GroupedRecorder", "Write", "WriteBuilder"]  # the last three re-exported from .writes


class ArchiveRecorder(DebateWrites, BatchClaims, Recorder):
    """The writes of :class:`~debate_core.archive.Archive` (sessions come from its connection; the
    group-commit builders, ``write_start`` …, from :class:`~debate_core.archive.writes.DebateWrites`)."""

    _fresh: dict[str, set[str]]  # speech keys written for debates this instance started

    # ---------------------------------------------------------- row writing
    def _upsert_header(self, con, debate: Debate, secrets: list[str], *, owner: bool = True) -> bool:
        row = header_row(debate, secrets)
        if owner:
            row.update(self._writer_cols())
        if con.execute("SELECT 1 FROM debates WHERE id = ?", [debate.id]).fetchone() is None:
            insert_row(con, "debates", row)
            return True
        for key in ("id", "created_at"):
            row.pop(key)
        sets = ", ".join(f"{c} = ?" for c in row)
        con.execute(f"UPDATE debates SET {sets} WHERE id = ?", list(row.values()) + [debate.id])
        return False

    @staticmethod
    def _write_outcome(con, debate: Debate, secrets: list[str], *, existed: bool = True) -> None:
        """Observation, verdict and judgments: replaced wholesale."""
        for table in OUTCOME_TABLES if existed else ():
            con.execute(f"DELETE FROM {table} WHERE debate_id = ?", [debate.id])
        by_table: dict[str, list[dict[str, Any]]] = {}
        for table, row in outcome_rows(debate, secrets):
            by_table.setdefault(table, []).append(row)
        for table, rows in by_table.items():
            insert_rows(con, table, rows)

    def _link_pack(self, con, debate: Debate) -> None:
        pack = pack_for(debate)
        if pack is not None:
            h = snapshot_pack(con, pack)
            con.execute(
                "UPDATE debates SET pack_hash = ?, pack_path = ? WHERE id = ?",
                [h, str(Path(pack.path).resolve()), debate.id],
            )

    def _touch(self, con, debate: Debate) -> None:
        t = totals(debate)
        w = self._writer_cols()
        con.execute(
            "UPDATE debates SET status = ?, rounds_done = ?, prompt_tokens = ?, completion_tokens = ?, cost = ?, "
            "cached_tokens = ?, "
            "updated_at = ?, writer_pid = ?, writer_host = ?, writer_start = ?, heartbeat_at = ? WHERE id = ?",
            [
                debate.status,
                t["rounds_done"],
                t["prompt_tokens"],
                t["completion_tokens"],
                t["cost"],
                t["cached_tokens"],
                to_utc(debate.updated_at) if debate.updated_at else now(),
                w["writer_pid"],
                w["writer_host"],
                w["writer_start"],
                w["heartbeat_at"],
                debate.id,
            ],
        )

    # ---------------------------------------------------------- the recorder
    def start(self, debate: Debate) -> None:
        secrets = env_secrets()
        with self._session(write=True) as con:
            new = self._upsert_header(con, debate, secrets)
            self._link_pack(con, debate)
        if new:
            self._fresh[debate.id] = set()  # no speech row can exist yet: appends skip the delete

    def speech(self, debate: Debate, speech: Speech) -> None:
        secrets = env_secrets()
        ord_ = next((i for i, s in enumerate(debate.rounds) if s is speech), len(debate.rounds))
        row = speech_row(debate.id, speech, ord_, secrets)
        key = speech_key(speech.round, speech.speaker)
        written = self._fresh.get(debate.id)
        with self._session(write=True) as con:
            if written is None or key in written:  # a rerun of a round replaces its row
                con.execute(
                    "DELETE FROM speeches WHERE debate_id = ? AND round = ? AND speaker = ?",
                    [debate.id, speech.round, speech.speaker],
                )
            insert_row(con, "speeches", row)
            self._touch(con, debate)
        if written is not None:
            written.add(key)

    def summary(self, debate: Debate, summary: RoundSummary) -> None:
        ord_ = next((i for i, s in enumerate(debate.summaries) if s is summary), len(debate.summaries))
        with self._session(write=True) as con:
            con.execute(
                "DELETE FROM summaries WHERE debate_id = ? AND round = ? AND speaker = ?",
                [debate.id, summary.round, summary.speaker],
            )
            insert_row(
                con,
                "summaries",
                {
                    "debate_id": debate.id,
                    "round": summary.round,
                    "ord": ord_,
                    "speaker": summary.speaker,
                    "text": summary.text,
                },
            )
            self._touch(con, debate)

    def call(self, debate: Debate, call: LLMCall) -> None:
        secrets = env_secrets()
        with self._session(write=True) as con:
            seq = next((i for i in range(len(debate.llm_calls) - 1, -1, -1) if debate.llm_calls[i] is call), None)
            if seq is None:
                seq = aggregate(
                    con.execute(
                        "SELECT coalesce(max(seq), -1) + 1 FROM llm_calls WHERE debate_id = ?", [debate.id]
                    ).fetchone()
                )[0]
            con.execute("DELETE FROM llm_calls WHERE debate_id = ? AND seq = ?", [debate.id, seq])
            insert_row(con, "llm_calls", call_row(debate.id, call, seq, secrets))
            self._touch(con, debate)

    def update(self, debate: Debate) -> None:
        secrets = env_secrets()
        # a finished debate is folded into the file: copying the .duckdb alone keeps it
        with self._session(write=True, checkpoint=debate.status in FINISHED) as con:
            self._upsert_header(con, debate, secrets)
            keys = [speech_key(s.round, s.speaker) for s in debate.rounds]
            con.execute(
                "DELETE FROM speeches WHERE debate_id = ? AND NOT list_contains(?, "
                "round::VARCHAR || chr(31) || speaker)",
                [debate.id, keys],
            )
            skeys = [speech_key(s.round, s.speaker) for s in debate.summaries]
            con.execute(
                "DELETE FROM summaries WHERE debate_id = ? AND NOT list_contains(?, "
                "round::VARCHAR || chr(31) || speaker)",
                [debate.id, skeys],
            )
            self._write_outcome(con, debate, secrets)
        if debate.status != "running":
            self._fresh.pop(debate.id, None)

    # ----------------------------------------------------------- full writes
    def save(self, debate: Debate, *, imported_from: str | None = None, replace: bool = True) -> bool:
        """Write a whole debate in one transaction.  Returns False when it exists and ``replace`` is off."""
        return self.save_many([debate], imported_from=[imported_from], replace=replace)[0]

    def save_many(
        self,
        debates: list[Debate],
        *,
        imported_from: list[str | None] | None = None,
        replace: bool = True,
        sources: dict[str, list[dict[str, Any]]] | None = None,
    ) -> list[bool]:
        """Write several whole debates in ONE transaction: all of them or none.

        New debates are written table by table in multi-row statements (an import of
        1,500 debates is a few hundred statements, not tens of thousands).  ``sources``
        holds rows of what a source publishes beside its debates (``leaderboards``,
        ``model_names``): a leaderboard replaces the one stored for the same source and
        template, a model's display name replaces the one stored for that model."""
        secrets = env_secrets()
        written: list[bool] = []
        srcs = imported_from or [None] * len(debates)
        with self._session(write=True, checkpoint=any(d.status in FINISHED for d in debates)) as con:
            ids = [d.id for d in debates]
            existing = (
                {r[0] for r in con.execute("SELECT id FROM debates WHERE list_contains(?, id)", [ids]).fetchall()}
                if ids
                else set()
            )
            fresh: dict[str, tuple[Debate, str | None]] = {}  # new debates, the last copy of each id
            for debate, src in zip(debates, srcs, strict=False):
                if debate.id in existing or debate.id in fresh:
                    if not replace:
                        written.append(False)
                        continue
                    if debate.id in existing:
                        self._write_full(con, debate, secrets, imported_from=src, existed=True)
                        written.append(True)
                        continue
                fresh[debate.id] = (debate, src)
                written.append(True)
            bulk: dict[str, list[dict[str, Any]]] = {}
            for debate, src in fresh.values():
                self._rows_of(debate, secrets, src, bulk)
            for table, rows in bulk.items():
                insert_rows(con, table, rows)
            for debate, _ in fresh.values():
                self._link_pack(con, debate)
            self._write_sources(con, sources or {})
        self._catch_up_search_index()
        return written

    @staticmethod
    def _rows_of(
        debate: Debate, secrets: list[str], imported_from: str | None, bulk: dict[str, list[dict[str, Any]]]
    ) -> None:
        """Every row of a new debate, appended to ``bulk`` by table."""
        row = header_row(debate, secrets)
        row["finished_at"] = to_utc(debate.updated_at) if debate.status in FINISHED else None
        if imported_from is not None:
            row["imported_from"] = imported_from
        bulk.setdefault("debates", []).append(row)
        add = bulk.setdefault
        add("speeches", []).extend(speech_row(debate.id, s, i, secrets) for i, s in enumerate(debate.rounds))
        add("summaries", []).extend(
            {"debate_id": debate.id, "round": s.round, "ord": i, "speaker": s.speaker, "text": s.text}
            for i, s in enumerate(debate.summaries)
        )
        add("llm_calls", []).extend(call_row(debate.id, c, i, secrets) for i, c in enumerate(debate.llm_calls))
        for table, r in outcome_rows(debate, secrets):
            add(table, []).append(r)

    @staticmethod
    def _write_sources(con, sources: dict[str, list[dict[str, Any]]]) -> None:
        boards = sources.get("leaderboards") or []
        for key in {(r["source"], r.get("template")) for r in boards}:
            con.execute("DELETE FROM leaderboards WHERE source = ? AND template IS NOT DISTINCT FROM ?", list(key))
        insert_rows(con, "leaderboards", [{**r, "imported_at": now()} for r in boards])
        names = {r["model"]: r for r in sources.get("model_names") or []}
        if names:
            con.execute("DELETE FROM model_names WHERE list_contains(?, model)", [list(names)])
            insert_rows(con, "model_names", list(names.values()))

    def _write_full(
        self, con, debate: Debate, secrets: list[str], imported_from: str | None = None, *, existed: bool = True
    ) -> None:
        if existed:
            for table in DEBATE_TABLES:
                con.execute(f"DELETE FROM {table} WHERE debate_id = ?", [debate.id])
            con.execute("DELETE FROM debates WHERE id = ?", [debate.id])
        row = header_row(debate, secrets)
        row["finished_at"] = to_utc(debate.updated_at) if debate.status in FINISHED else None
        if imported_from is not None:
            row["imported_from"] = imported_from
        insert_row(con, "debates", row)
        insert_rows(con, "speeches", [speech_row(debate.id, s, i, secrets) for i, s in enumerate(debate.rounds)])
        insert_rows(
            con,
            "summaries",
            [
                {"debate_id": debate.id, "round": s.round, "ord": i, "speaker": s.speaker, "text": s.text}
                for i, s in enumerate(debate.summaries)
            ],
        )
        insert_rows(con, "llm_calls", [call_row(debate.id, c, i, secrets) for i, c in enumerate(debate.llm_calls)])
        self._write_outcome(con, debate, secrets, existed=existed)
        self._link_pack(con, debate)

    def delete(self, debate_id: str) -> bool:
        with self._session(write=True) as con:
            if con.execute("SELECT 1 FROM debates WHERE id = ?", [debate_id]).fetchone() is None:
                return False
            for table in DEBATE_TABLES + VOTE_TABLES:
                con.execute(f"DELETE FROM {table} WHERE debate_id = ?", [debate_id])
            con.execute("DELETE FROM debates WHERE id = ?", [debate_id])
        return True

    # ---------------------------------------------------------------- audits
    def save_audit(self, report: Any, *, batch_id: str | None = None) -> str:
        """Store a judge audit (:class:`debate_core.analysis.audit.AuditReport`): its judgments, its
        summary and every judge call it made (prompts and replies, keys scrubbed), in one
        transaction.  Returns the audit id (also set on the report)."""
        secrets = env_secrets()
        j = report.judgments
        audit_id = report.audit_id or uuid.uuid4().hex[:12]
        judgments = (
            [
                {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
                for row in j.to_dict(orient="records")
            ]
            if len(j)
            else []
        )
        rows = [{"audit_id": audit_id, **{c: r.get(c) for c in AUDIT_JUDGMENT_COLUMNS}} for r in judgments]
        for r in rows:
            r["position"] = None if r["position"] is None else int(r["position"])
            r["error"] = scrub(r["error"] or "", secrets)
        calls = [
            {
                "audit_id": audit_id,
                "seq": i,
                "judge": c["judge"],
                "variant": c["variant"],
                **{
                    k: v
                    for k, v in call_row(c["debate_id"], c["call"], i, secrets).items()
                    if k not in ("seq", "round", "speaker")
                },
            }
            for i, c in enumerate(report.calls)
        ]
        header = {
            "audit_id": audit_id,
            "batch_id": batch_id,
            "judges": sorted({r["judge"] for r in rows if r["judge"]}),
            "variants": sorted({r["variant"] for r in rows if r["variant"]}),
            "debates": len({r["debate_id"] for r in rows}),
            "judgments": len(rows),
            "calls": len(calls),
            "prompt_tokens": sum(c["prompt_tokens"] or 0 for c in calls),
            "completion_tokens": sum(c["completion_tokens"] or 0 for c in calls),
            "cost": float(sum(c["cost"] or 0 for c in calls)),
            "summary": dumps(scrub(report.summary, secrets)),
            "created_at": now(),
        }
        with self._session(write=True) as con:
            for table in AUDIT_TABLES:
                con.execute(f"DELETE FROM {table} WHERE audit_id = ?", [audit_id])
            insert_row(con, "audits", header)
            insert_rows(con, "audit_judgments", rows)
            insert_rows(con, "audit_calls", calls)
        report.audit_id = audit_id
        return audit_id
