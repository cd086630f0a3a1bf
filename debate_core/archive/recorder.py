"""The archive's writes: the :class:`~debate_core.recorder.Recorder` a running debate reports
to (each finished speech committed before the next round starts), whole debates in one
transaction (imports, batches), pack snapshots and judge audits.

Every string that can carry a key (speeches, the config, warnings, model calls, a verdict's
raw text, audit errors) passes through :func:`debate_core.scrub.scrub` before it is stored.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate_core.archive.claims import BatchClaims
from debate_core.archive.connection import FINISHED, GROUP_INTERVAL, GroupedRecorder, update_many
from debate_core.archive.migrations import AUDIT_TABLES, DEBATE_TABLES, VOTE_TABLES
from debate_core.archive.values import aggregate, dumps, now, to_utc
from debate_core.models import Debate, LLMCall, Pack, RoundSummary, Speech
from debate_core.recorder import Recorder
from debate_core.scrub import env_secrets, scrub

COVERAGE_PREFIX = "⚠️"


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


def _insert(con, table: str, row: dict[str, Any]) -> None:
    cols = list(row)
    con.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                [row[c] for c in cols])


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


def _totals(debate: Debate) -> dict[str, Any]:
    done = {s.round for s in debate.rounds if s.status != "failed"}
    cached = sum(x.cached_tokens for x in debate.llm_calls)
    if debate.llm_calls:
        p = sum(c.prompt_tokens for c in debate.llm_calls)
        c = sum(c.completion_tokens for c in debate.llm_calls)
        cost = sum(x.cost for x in debate.llm_calls)
    else:
        p = sum(s.prompt_tokens for s in debate.rounds)
        c = sum(s.completion_tokens for s in debate.rounds)
        cost = sum(s.cost for s in debate.rounds)
    failed = [s.round for s in debate.rounds if s.status == "failed"]
    return {"rounds_done": len(done), "prompt_tokens": p, "completion_tokens": c, "cached_tokens": cached,
            "cost": cost,
            "failed_round": min(failed) if failed and debate.status == "failed" else None}


def _header(debate: Debate, secrets: list[str]) -> dict[str, Any]:
    warnings = scrub(list(debate.warnings), secrets)
    row = {
        "id": debate.id, "protocol": debate.protocol, "topic": debate.topic, "status": debate.status,
        "stop_reason": scrub(debate.stop_reason, secrets),
        "participants": dumps([p.model_dump(mode="json") for p in debate.participants]),
        "labels": [p.label for p in debate.participants], "models": list(debate.models),
        "pack_name": debate.pack_name, "pack_version": debate.pack_version,
        "planned_rounds": debate.planned_rounds,
        "config": dumps(scrub(debate.config.model_dump(mode="json"), secrets)),
        "warnings": warnings, "degraded": any(w.startswith(COVERAGE_PREFIX) for w in warnings),
        "batch_id": debate.batch_id, "source": debate.source, "lang": debate.lang, "group_id": debate.group or None,
        "created_at": to_utc(debate.created_at), "updated_at": to_utc(debate.updated_at),
        "finished_at": now() if debate.status in FINISHED else None,
    }
    row.update(_totals(debate))
    return row


def _speech_row(debate_id: str, s: Speech, ord_: int, secrets: list[str]) -> dict[str, Any]:
    return {
        "debate_id": debate_id, "round": s.round, "ord": ord_, "speaker": s.speaker,
        "speaker_name": s.speaker_name, "role": s.role, "text": scrub(s.text, secrets),
        "citations": list(s.citations), "findings": dumps([f.model_dump(mode="json") for f in s.findings]),
        "ammo_used": list(s.ammo_used), "retries": s.retries, "truncated": s.truncated, "engine": s.engine,
        "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens, "cost": s.cost,
        "latency_ms": s.latency_ms, "status": s.status,
        "envelope": dumps(scrub(s.envelope, secrets)) if s.envelope is not None else None,
        "plan": dumps(s.plan.model_dump(mode="json")) if s.plan is not None else None,
        "tool_calls": dumps(scrub([t.model_dump(mode="json") for t in s.tool_calls], secrets)),
        "warnings": scrub(list(s.warnings), secrets), "recorded_at": now(),
    }


def _judgment_rows(debate: Debate, secrets: list[str]) -> list[dict[str, Any]]:
    return [{"debate_id": debate.id, "ord": i, "judge": j.judge, "winner": j.winner, "winner_name": j.winner_name,
             "margin": j.margin, "normalized": j.normalized, "entertainment": j.entertainment,
             "notes": scrub(j.notes, secrets), "decisive": scrub(j.decisive, secrets), "group_id": j.group or None,
             "template": j.template or None} for i, j in enumerate(debate.judgments)]


def _call_row(debate_id: str, c: LLMCall, seq: int, secrets: list[str]) -> dict[str, Any]:
    return {
        "debate_id": debate_id, "seq": seq, "purpose": c.purpose, "model": c.model, "round": c.round,
        "speaker": c.speaker, "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
        "cached_tokens": c.cached_tokens, "cost": c.cost, "latency_ms": c.latency_ms, "error": scrub(c.error, secrets),
        "messages": dumps(scrub(c.messages, secrets)), "response": scrub(c.response, secrets),
        "created_at": to_utc(c.created_at),
    }


def _pack_for(debate: Debate) -> Pack | None:
    """The pack a debate was run on, when it names one (``pack_name``) and the pack at
    ``config.pack`` is still that pack; else None."""
    if not debate.pack_name:
        return None
    try:
        from debate_core.content.packs import get_pack

        pack = get_pack(debate.config.pack)
    except Exception:  # noqa: BLE001 - a missing pack must not stop the debate
        return None
    if (pack.name, pack.version) != (debate.pack_name, debate.pack_version):
        return None
    return pack


OUTCOME_TABLES = ("observations", "verdicts", "verdict_rows", "verdict_rounds", "judgments")
_SUMMARY, _CALL, _OUTCOME = "S\x1e", "C\x1e", "O\x1e"  # other keys in a fresh debate's set than its speeches'


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


_PACK_HASHES: dict[int, tuple[Pack, str]] = {}


def _pack_hash_of(pack: Pack) -> str:
    """:func:`_pack_hash`, computed once per pack object (packs are cached and never change)."""
    hit = _PACK_HASHES.get(id(pack))
    if hit is None or hit[0] is not pack:
        hit = _PACK_HASHES[id(pack)] = (pack, _pack_hash(pack))
    return hit[1]


_TOUCHED = ("id", "status", "stop_reason", "rounds_done", "prompt_tokens", "completion_tokens", "cached_tokens", "cost",
            "failed_round", "updated_at", "finished_at")


def _touch_values(debate: Debate) -> dict[str, Any]:
    t = {k: v for k, v in _totals(debate).items() if k != "failed_round"}
    return {"status": debate.status, **t, "updated_at": to_utc(debate.updated_at) if debate.updated_at else now()}


def _outcome_rows(debate: Debate, secrets: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The rows of a debate's outcome tables (as :meth:`ArchiveRecorder._write_outcome` writes them)."""
    rows: list[tuple[str, dict[str, Any]]] = [("judgments", r) for r in _judgment_rows(debate, secrets)]
    o, v = debate.observation, debate.verdict
    if o is not None:
        rows.append(("observations", {"debate_id": debate.id, "divergence": o.divergence, "consensus": o.consensus,
                                      "to_reader": o.to_reader, "engine": o.engine}))
    if v is not None:
        rows.append(("verdicts", {"debate_id": debate.id, "winner": v.winner, "summary": v.summary,
                                  "reasons": dumps(v.reasons), "note": v.note, "parsed": v.parsed,
                                  "raw": scrub(v.raw, secrets), "judge": v.judge,
                                  "complete": v.complete, "missing": list(v.missing)}))
        rows += [("verdict_rows", {"debate_id": debate.id, "ord": i, "label": r.label, "stance": r.stance,
                                   "strongest": r.strongest, "weakness": r.weakness, "score": r.score})
                 for i, r in enumerate(v.rows)]
        rows += [("verdict_rounds", {"debate_id": debate.id, "ord": i, "round": c.round, "comment": c.comment})
                 for i, c in enumerate(v.per_round)]
    return rows


class ArchiveRecorder(BatchClaims, Recorder):
    """The writes of :class:`~debate_core.archive.Archive` (sessions come from its connection)."""

    _fresh: dict[str, set[str]]  # speech keys written for debates this instance started

    # ---------------------------------------------------------- row writing
    def _upsert_header(self, con, debate: Debate, secrets: list[str], *, owner: bool = True) -> bool:
        row = _header(debate, secrets)
        if owner:
            row.update(self._writer_cols())
        if con.execute("SELECT 1 FROM debates WHERE id = ?", [debate.id]).fetchone() is None:
            _insert(con, "debates", row)
            return True
        for key in ("id", "created_at"):
            row.pop(key)
        sets = ", ".join(f"{c} = ?" for c in row)
        con.execute(f"UPDATE debates SET {sets} WHERE id = ?", list(row.values()) + [debate.id])
        return False

    @staticmethod
    def _write_outcome(con, debate: Debate, secrets: list[str], *, existed: bool = True) -> None:
        """Observation and verdict: replaced wholesale."""
        for table in ("observations", "verdicts", "verdict_rows", "verdict_rounds", "judgments") if existed else ():
            con.execute(f"DELETE FROM {table} WHERE debate_id = ?", [debate.id])
        _insert_many(con, "judgments", _judgment_rows(debate, secrets))
        if debate.observation is not None:
            o = debate.observation
            _insert(con, "observations", {"debate_id": debate.id, "divergence": o.divergence,
                                          "consensus": o.consensus, "to_reader": o.to_reader, "engine": o.engine})
        v = debate.verdict
        if v is not None:
            _insert(con, "verdicts", {"debate_id": debate.id, "winner": v.winner, "summary": v.summary,
                                      "reasons": dumps(v.reasons), "note": v.note, "parsed": v.parsed,
                                      "raw": scrub(v.raw, secrets), "judge": v.judge,
                                      "complete": v.complete, "missing": list(v.missing)})
            _insert_many(con, "verdict_rows", [{"debate_id": debate.id, "ord": i, "label": r.label,
                                                "stance": r.stance, "strongest": r.strongest,
                                                "weakness": r.weakness, "score": r.score}
                                               for i, r in enumerate(v.rows)])
            _insert_many(con, "verdict_rounds", [{"debate_id": debate.id, "ord": i, "round": c.round,
                                                  "comment": c.comment} for i, c in enumerate(v.per_round)])

    @staticmethod
    def _snapshot_pack(con, pack: Pack) -> str:
        h = _pack_hash(pack)
        if con.execute("SELECT 1 FROM packs WHERE pack_hash = ?", [h]).fetchone():
            return h
        _insert(con, "packs", {"pack_hash": h, "name": pack.name, "version": pack.version,
                               "path": str(Path(pack.path).resolve()), "masters": len(pack.masters),
                               "critiques": sum(len(m.cross_critique) for m in pack.masters.values()),
                               "created_at": now()})
        for m in pack.masters.values():
            _insert(con, "pack_masters", {"pack_hash": h, "slug": m.slug, "name": m.name, "school": m.school,
                                          "tradition": m.tradition, "era": m.era, "sources": len(m.sources),
                                          "critiques": len(m.cross_critique)})
            for s in m.sources:
                _insert(con, "pack_sources", {"pack_hash": h, "slug": m.slug, "source_id": s.id,
                                              "type": s.type, "title": s.title})
            for c in m.cross_critique:
                _insert(con, "pack_critiques", {"pack_hash": h, "slug": m.slug, "target_master": c.target_master,
                                                "position": c.position, "citation": c.citation})
        return h

    def _link_pack(self, con, debate: Debate) -> None:
        pack = _pack_for(debate)
        if pack is not None:
            h = self._snapshot_pack(con, pack)
            con.execute("UPDATE debates SET pack_hash = ?, pack_path = ? WHERE id = ?",
                        [h, str(Path(pack.path).resolve()), debate.id])

    def _touch(self, con, debate: Debate) -> None:
        t = _totals(debate)
        w = self._writer_cols()
        con.execute(
            "UPDATE debates SET status = ?, rounds_done = ?, prompt_tokens = ?, completion_tokens = ?, cost = ?, "
            "cached_tokens = ?, "
            "updated_at = ?, writer_pid = ?, writer_host = ?, writer_start = ?, heartbeat_at = ? WHERE id = ?",
            [debate.status, t["rounds_done"], t["prompt_tokens"], t["completion_tokens"], t["cost"], t["cached_tokens"],
             to_utc(debate.updated_at) if debate.updated_at else now(), w["writer_pid"], w["writer_host"],
             w["writer_start"], w["heartbeat_at"], debate.id])

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
        row = _speech_row(debate.id, speech, ord_, secrets)
        key = _speech_key(speech.round, speech.speaker)
        written = self._fresh.get(debate.id)
        with self._session(write=True) as con:
            if written is None or key in written:  # a rerun of a round replaces its row
                con.execute("DELETE FROM speeches WHERE debate_id = ? AND round = ? AND speaker = ?",
                            [debate.id, speech.round, speech.speaker])
            _insert(con, "speeches", row)
            self._touch(con, debate)
        if written is not None:
            written.add(key)

    def summary(self, debate: Debate, summary: RoundSummary) -> None:
        ord_ = next((i for i, s in enumerate(debate.summaries) if s is summary), len(debate.summaries))
        with self._session(write=True) as con:
            con.execute("DELETE FROM summaries WHERE debate_id = ? AND round = ? AND speaker = ?",
                        [debate.id, summary.round, summary.speaker])
            _insert(con, "summaries", {"debate_id": debate.id, "round": summary.round, "ord": ord_,
                                       "speaker": summary.speaker, "text": summary.text})
            self._touch(con, debate)

    def call(self, debate: Debate, call: LLMCall) -> None:
        secrets = env_secrets()
        with self._session(write=True) as con:
            seq = next((i for i in range(len(debate.llm_calls) - 1, -1, -1) if debate.llm_calls[i] is call), None)
            if seq is None:
                seq = aggregate(con.execute("SELECT coalesce(max(seq), -1) + 1 FROM llm_calls WHERE debate_id = ?",
                                            [debate.id]).fetchone())[0]
            con.execute("DELETE FROM llm_calls WHERE debate_id = ? AND seq = ?", [debate.id, seq])
            _insert(con, "llm_calls", _call_row(debate.id, call, seq, secrets))
            self._touch(con, debate)

    def update(self, debate: Debate) -> None:
        secrets = env_secrets()
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

    # ------------------------------------------------ group commits (batches)
    def grouped(self, *, interval: float = GROUP_INTERVAL, durable: str = "finish") -> GroupedRecorder:
        """A recorder on this archive whose writes are committed together by one writer thread
        (:class:`GroupedRecorder`); close it (or use it as a context manager) when done."""
        return GroupedRecorder(self, interval=interval, durable=durable)

    def _write_start(self, debate: Debate) -> Write:
        # runs.start reports a debate it has just created (a fresh id): no row of it can exist yet
        self._fresh[debate.id] = set()
        header = _header(debate, env_secrets())
        self.__dict__.setdefault("_headers", {})[debate.id] = header
        return Write(debate.id, header=header, pack=_pack_for(debate))

    def _write_speech(self, debate: Debate, speech: Speech) -> Write:
        ord_ = next((i for i, s in enumerate(debate.rounds) if s is speech), len(debate.rounds))
        return self._keyed(debate, _speech_key(speech.round, speech.speaker), "speeches",
                           _speech_row(debate.id, speech, ord_, env_secrets()),
                           "round = ? AND speaker = ?", [speech.round, speech.speaker])

    def _write_summary(self, debate: Debate, summary: RoundSummary) -> Write:
        ord_ = next((i for i, s in enumerate(debate.summaries) if s is summary), len(debate.summaries))
        row = {"debate_id": debate.id, "round": summary.round, "ord": ord_, "speaker": summary.speaker,
               "text": summary.text}
        return self._keyed(debate, _SUMMARY + _speech_key(summary.round, summary.speaker), "summaries", row,
                           "round = ? AND speaker = ?", [summary.round, summary.speaker])

    def _write_call(self, debate: Debate, call: LLMCall) -> Write:
        seq = next((i for i in range(len(debate.llm_calls) - 1, -1, -1) if debate.llm_calls[i] is call), None)
        row = _call_row(debate.id, call, -1 if seq is None else seq, env_secrets())
        if seq is None:
            return Write(debate.id, rows=[("llm_calls", row)], touch=_touch_values(debate), next_seq=True)
        return self._keyed(debate, f"{_CALL}{seq}", "llm_calls", row, "seq = ?", [seq])

    def _keyed(self, debate: Debate, key: str, table: str, row: dict[str, Any], where: str, params: list) -> Write:
        """A row that replaces the one stored under the same key; a debate this archive started
        writes its keys once each, so the delete is skipped for a key not written yet."""
        written = self._fresh.get(debate.id)
        before = [] if written is not None and key not in written else \
            [(f"DELETE FROM {table} WHERE debate_id = ? AND {where}", [debate.id, *params])]
        if written is not None:
            written.add(key)
        return Write(debate.id, before=before, rows=[(table, row)], touch=_touch_values(debate))

    def _write_update(self, debate: Debate) -> Write:
        secrets = env_secrets()
        keys = [_speech_key(s.round, s.speaker) for s in debate.rounds]
        skeys = [_speech_key(s.round, s.speaker) for s in debate.summaries]
        written = self._fresh.get(debate.id)
        before = []
        if written is None or {k for k in written if k[:2] not in (_SUMMARY, _CALL, _OUTCOME)} - set(keys):
            before.append(("DELETE FROM speeches WHERE debate_id = ? AND NOT list_contains(?, "
                           "round::VARCHAR || chr(31) || speaker)", [debate.id, keys]))
        if written is None or {k[2:] for k in written if k[:2] == _SUMMARY} - set(skeys):
            before.append(("DELETE FROM summaries WHERE debate_id = ? AND NOT list_contains(?, "
                           "round::VARCHAR || chr(31) || speaker)", [debate.id, skeys]))
        if written is None or _OUTCOME in written:
            before += [(f"DELETE FROM {t} WHERE debate_id = ?", [debate.id]) for t in OUTCOME_TABLES]
        rows = _outcome_rows(debate, secrets)
        if written is not None and rows:
            written.add(_OUTCOME)
        header = _header(debate, secrets)
        headers = self.__dict__.setdefault("_headers", {})
        prev = headers.get(debate.id) if written is not None else None
        if debate.status != "running":
            self._fresh.pop(debate.id, None)
            headers.pop(debate.id, None)
        elif written is not None:
            headers[debate.id] = header
        if prev is not None:  # only what changed (and the status and totals, which touches also write)
            header = {k: v for k, v in header.items() if k in _TOUCHED or prev.get(k) != v}
        return Write(debate.id, header=header, before=before, rows=rows)

    def _apply_writes(self, con, writes: Sequence[Write]) -> None:
        """Apply queued writes in the caller's transaction, in few statements: the debates' rows
        (a debate's headers merged, later values winning) inserted or updated together, the
        other rows in one multi-row insert per table, the status and totals (the latest per
        debate, when newer than its row) in one update."""
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
                h = _pack_hash_of(pack)
                if con.execute("SELECT 1 FROM packs WHERE pack_hash = ?", [h]).fetchone() is None:
                    self._snapshot_pack(con, pack)
                row.update(pack_hash=h, pack_path=str(Path(pack.path).resolve()))
            headers.append(row)
        stored = {r[0] for r in con.execute("SELECT id FROM debates WHERE list_contains(?, id)",
                                            [[h["id"] for h in headers]]).fetchall()} if headers else set()
        _insert_many(con, "debates", [h for h in headers if h["id"] not in stored])
        update_many(con, "debates", [{k: v for k, v in h.items() if k != "created_at"} for h in headers
                                     if h["id"] in stored])
        pending: dict[str, list[dict[str, Any]]] = {}
        touches: dict[str, dict[str, Any]] = {}

        def insert_pending() -> None:
            for table, rows in pending.items():
                _insert_many(con, table, rows)
            pending.clear()

        for i, w in enumerate(writes):
            if w.before or w.next_seq:
                insert_pending()
                for sql, params in w.before:
                    con.execute(sql, params)
            for table, row in w.rows:
                if w.next_seq:
                    row["seq"] = con.execute("SELECT coalesce(max(seq), -1) + 1 FROM llm_calls WHERE debate_id = ?",
                                             [w.debate_id]).fetchone()[0]
                    _insert(con, table, row)
                else:
                    pending.setdefault(table, []).append(row)
            if w.touch is not None and i > last.get(w.debate_id, -1):  # newer than the row written above
                touches[w.debate_id] = {"id": w.debate_id, **w.touch, **owner}
        insert_pending()
        update_many(con, "debates", list(touches.values()))

    # ----------------------------------------------------------- full writes
    def save(self, debate: Debate, *, imported_from: str | None = None, replace: bool = True) -> bool:
        """Write a whole debate in one transaction.  Returns False when it exists and ``replace`` is off."""
        return self.save_many([debate], imported_from=[imported_from], replace=replace)[0]

    def save_many(self, debates: list[Debate], *, imported_from: list[str | None] | None = None,
                  replace: bool = True, sources: dict[str, list[dict[str, Any]]] | None = None) -> list[bool]:
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
            existing = {r[0] for r in con.execute(
                "SELECT id FROM debates WHERE list_contains(?, id)", [ids]).fetchall()} if ids else set()
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
                _insert_many(con, table, rows)
            for debate, _ in fresh.values():
                self._link_pack(con, debate)
            self._write_sources(con, sources or {})
        self._catch_up_search_index()
        return written

    @staticmethod
    def _rows_of(debate: Debate, secrets: list[str], imported_from: str | None,
                 bulk: dict[str, list[dict[str, Any]]]) -> None:
        """Every row of a new debate, appended to ``bulk`` by table."""
        row = _header(debate, secrets)
        row["finished_at"] = to_utc(debate.updated_at) if debate.status in FINISHED else None
        if imported_from is not None:
            row["imported_from"] = imported_from
        bulk.setdefault("debates", []).append(row)
        add = bulk.setdefault
        add("speeches", []).extend(_speech_row(debate.id, s, i, secrets) for i, s in enumerate(debate.rounds))
        add("summaries", []).extend({"debate_id": debate.id, "round": s.round, "ord": i, "speaker": s.speaker,
                                     "text": s.text} for i, s in enumerate(debate.summaries))
        add("llm_calls", []).extend(_call_row(debate.id, c, i, secrets) for i, c in enumerate(debate.llm_calls))
        add("judgments", []).extend(_judgment_rows(debate, secrets))
        o, v = debate.observation, debate.verdict
        if o is not None:
            add("observations", []).append({"debate_id": debate.id, "divergence": o.divergence,
                                            "consensus": o.consensus, "to_reader": o.to_reader, "engine": o.engine})
        if v is not None:
            add("verdicts", []).append({"debate_id": debate.id, "winner": v.winner, "summary": v.summary,
                                        "reasons": dumps(v.reasons), "note": v.note, "parsed": v.parsed,
                                        "raw": scrub(v.raw, secrets), "judge": v.judge,
                                        "complete": v.complete, "missing": list(v.missing)})
            add("verdict_rows", []).extend({"debate_id": debate.id, "ord": i, "label": r.label, "stance": r.stance,
                                            "strongest": r.strongest, "weakness": r.weakness, "score": r.score}
                                           for i, r in enumerate(v.rows))
            add("verdict_rounds", []).extend({"debate_id": debate.id, "ord": i, "round": c.round,
                                              "comment": c.comment} for i, c in enumerate(v.per_round))

    @staticmethod
    def _write_sources(con, sources: dict[str, list[dict[str, Any]]]) -> None:
        boards = sources.get("leaderboards") or []
        for key in {(r["source"], r.get("template")) for r in boards}:
            con.execute("DELETE FROM leaderboards WHERE source = ? AND template IS NOT DISTINCT FROM ?", list(key))
        _insert_many(con, "leaderboards", [{**r, "imported_at": now()} for r in boards])
        names = {r["model"]: r for r in sources.get("model_names") or []}
        if names:
            con.execute("DELETE FROM model_names WHERE list_contains(?, model)", [list(names)])
            _insert_many(con, "model_names", list(names.values()))

    def _write_full(self, con, debate: Debate, secrets: list[str], imported_from: str | None = None,
                    *, existed: bool = True) -> None:
        if existed:
            for table in DEBATE_TABLES:
                con.execute(f"DELETE FROM {table} WHERE debate_id = ?", [debate.id])
            con.execute("DELETE FROM debates WHERE id = ?", [debate.id])
        row = _header(debate, secrets)
        row["finished_at"] = to_utc(debate.updated_at) if debate.status in FINISHED else None
        if imported_from is not None:
            row["imported_from"] = imported_from
        _insert(con, "debates", row)
        _insert_many(con, "speeches", [_speech_row(debate.id, s, i, secrets) for i, s in enumerate(debate.rounds)])
        _insert_many(con, "summaries", [{"debate_id": debate.id, "round": s.round, "ord": i,
                                         "speaker": s.speaker, "text": s.text}
                                        for i, s in enumerate(debate.summaries)])
        _insert_many(con, "llm_calls", [_call_row(debate.id, c, i, secrets) for i, c in enumerate(debate.llm_calls)])
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
        judgments = [{k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
                     for row in j.to_dict(orient="records")] if len(j) else []
        cols = ("debate_id", "judge", "variant", "winner", "shown", "position", "first", "n", "parsed", "stored",
                "error", "prompt_tokens", "completion_tokens", "cost")
        rows = [{"audit_id": audit_id, **{c: r.get(c) for c in cols}} for r in judgments]
        for r in rows:
            r["position"] = None if r["position"] is None else int(r["position"])
            r["error"] = scrub(r["error"] or "", secrets)
        calls = [{"audit_id": audit_id, "seq": i, "judge": c["judge"], "variant": c["variant"],
                  **{k: v for k, v in _call_row(c["debate_id"], c["call"], i, secrets).items()
                     if k not in ("seq", "round", "speaker")}}
                 for i, c in enumerate(report.calls)]
        header = {"audit_id": audit_id, "batch_id": batch_id,
                  "judges": sorted({r["judge"] for r in rows if r["judge"]}),
                  "variants": sorted({r["variant"] for r in rows if r["variant"]}),
                  "debates": len({r["debate_id"] for r in rows}), "judgments": len(rows), "calls": len(calls),
                  "prompt_tokens": sum(c["prompt_tokens"] or 0 for c in calls),
                  "completion_tokens": sum(c["completion_tokens"] or 0 for c in calls),
                  "cost": float(sum(c["cost"] or 0 for c in calls)),
                  "summary": dumps(scrub(report.summary, secrets)), "created_at": now()}
        with self._session(write=True) as con:
            for table in AUDIT_TABLES:
                con.execute(f"DELETE FROM {table} WHERE audit_id = ?", [audit_id])
            _insert(con, "audits", header)
            _insert_many(con, "audit_judgments", rows)
            _insert_many(con, "audit_calls", calls)
        report.audit_id = audit_id
        return audit_id
