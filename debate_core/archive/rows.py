"""The rows a debate is stored as: each table's row built from the models (every string that
can carry a key scrubbed on the way, :func:`debate_core.scrub.scrub`), the statements that insert
them, and a pack's snapshot.  Pure functions of a debate (and of an open connection, for the
inserts): the direct recorder, whole-debate saves and group commits all build their rows here.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from debate_core.archive.connection import FINISHED
from debate_core.archive.values import dumps, now, to_utc
from debate_core.models import Debate, LLMCall, Pack, Speech
from debate_core.scrub import scrub

COVERAGE_PREFIX = "⚠️"


def pack_hash(pack: Pack) -> str:
    data = {
        "name": pack.name,
        "version": pack.version,
        "masters": [
            {
                "slug": m.slug,
                "name": m.name,
                "school": m.school,
                "tradition": m.tradition,
                "era": m.era,
                "sources": [s.model_dump(mode="json") for s in m.sources],
                "critiques": [c.model_dump(mode="json") for c in m.cross_critique],
            }
            for m in pack.masters.values()
        ],
    }
    return hashlib.sha256(json.dumps(data, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]


def speech_key(round_no: int, speaker: str) -> str:
    return f"{round_no}\x1f{speaker}"


def insert_row(con, table: str, row: dict[str, Any]) -> None:
    cols = list(row)
    con.execute(
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})", [row[c] for c in cols]
    )


def insert_rows(con, table: str, rows: list[dict[str, Any]], chunk: int = 200) -> None:
    """Several rows in few statements (multi-row VALUES): a statement costs about 1 ms however
    many rows it carries.  Rows are grouped by their columns, so defaults still apply."""
    by_cols: dict[tuple, list[dict[str, Any]]] = {}
    for row in rows:
        by_cols.setdefault(tuple(row), []).append(row)
    for cols, group in by_cols.items():
        one = "(" + ", ".join("?" for _ in cols) + ")"
        for i in range(0, len(group), chunk):
            part = group[i : i + chunk]
            con.execute(
                f"INSERT INTO {table} ({', '.join(cols)}) VALUES {', '.join([one] * len(part))}",
                [r[c] for r in part for c in cols],
            )


def totals(debate: Debate) -> dict[str, Any]:
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
    return {
        "rounds_done": len(done),
        "prompt_tokens": p,
        "completion_tokens": c,
        "cached_tokens": cached,
        "cost": cost,
        "failed_round": min(failed) if failed and debate.status == "failed" else None,
    }


def header_row(debate: Debate, secrets: list[str]) -> dict[str, Any]:
    warnings = scrub(list(debate.warnings), secrets)
    row = {
        "id": debate.id,
        "protocol": debate.protocol,
        "topic": debate.topic,
        "status": debate.status,
        "stop_reason": scrub(debate.stop_reason, secrets),
        "participants": dumps([p.model_dump(mode="json") for p in debate.participants]),
        "labels": [p.label for p in debate.participants],
        "models": list(debate.models),
        "pack_name": debate.pack_name,
        "pack_version": debate.pack_version,
        "planned_rounds": debate.planned_rounds,
        "config": dumps(scrub(debate.config.model_dump(mode="json"), secrets)),
        "warnings": warnings,
        "degraded": any(w.startswith(COVERAGE_PREFIX) for w in warnings),
        "batch_id": debate.batch_id,
        "source": debate.source,
        "lang": debate.lang,
        "group_id": debate.group or None,
        "created_at": to_utc(debate.created_at),
        "updated_at": to_utc(debate.updated_at),
        "finished_at": now() if debate.status in FINISHED else None,
    }
    row.update(totals(debate))
    return row


def speech_row(debate_id: str, s: Speech, ord_: int, secrets: list[str]) -> dict[str, Any]:
    return {
        "debate_id": debate_id,
        "round": s.round,
        "ord": ord_,
        "speaker": s.speaker,
        "speaker_name": s.speaker_name,
        "role": s.role,
        "text": scrub(s.text, secrets),
        "citations": list(s.citations),
        "findings": dumps([f.model_dump(mode="json") for f in s.findings]),
        "ammo_used": list(s.ammo_used),
        "retries": s.retries,
        "truncated": s.truncated,
        "engine": s.engine,
        "prompt_tokens": s.prompt_tokens,
        "completion_tokens": s.completion_tokens,
        "cost": s.cost,
        "latency_ms": s.latency_ms,
        "status": s.status,
        "envelope": dumps(scrub(s.envelope, secrets)) if s.envelope is not None else None,
        "plan": dumps(s.plan.model_dump(mode="json")) if s.plan is not None else None,
        "tool_calls": dumps(scrub([t.model_dump(mode="json") for t in s.tool_calls], secrets)),
        "warnings": scrub(list(s.warnings), secrets),
        "recorded_at": now(),
    }


def judgment_rows(debate: Debate, secrets: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "debate_id": debate.id,
            "ord": i,
            "judge": j.judge,
            "winner": j.winner,
            "winner_name": j.winner_name,
            "margin": j.margin,
            "normalized": j.normalized,
            "entertainment": j.entertainment,
            "notes": scrub(j.notes, secrets),
            "decisive": scrub(j.decisive, secrets),
            "group_id": j.group or None,
            "template": j.template or None,
        }
        for i, j in enumerate(debate.judgments)
    ]


def call_row(debate_id: str, c: LLMCall, seq: int, secrets: list[str]) -> dict[str, Any]:
    return {
        "debate_id": debate_id,
        "seq": seq,
        "purpose": c.purpose,
        "model": c.model,
        "round": c.round,
        "speaker": c.speaker,
        "prompt_tokens": c.prompt_tokens,
        "completion_tokens": c.completion_tokens,
        "cached_tokens": c.cached_tokens,
        "cost": c.cost,
        "latency_ms": c.latency_ms,
        "error": scrub(c.error, secrets),
        "messages": dumps(scrub(c.messages, secrets)),
        "response": scrub(c.response, secrets),
        "created_at": to_utc(c.created_at),
    }


def pack_for(debate: Debate) -> Pack | None:
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
SUMMARY_KEY, CALL_KEY, OUTCOME_KEY = "S\x1e", "C\x1e", "O\x1e"  # other keys in a fresh debate's set than its speeches'

_PACK_HASHES: dict[int, tuple[Pack, str]] = {}


def pack_hash_of(pack: Pack) -> str:
    """:func:`pack_hash`, computed once per pack object (packs are cached and never change)."""
    hit = _PACK_HASHES.get(id(pack))
    if hit is None or hit[0] is not pack:
        hit = _PACK_HASHES[id(pack)] = (pack, pack_hash(pack))
    return hit[1]


TOUCHED = (
    "id",
    "status",
    "stop_reason",
    "rounds_done",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "cost",
    "failed_round",
    "updated_at",
    "finished_at",
)  # a debate's columns every write of it sets again


def touch_values(debate: Debate) -> dict[str, Any]:
    t = {k: v for k, v in totals(debate).items() if k != "failed_round"}
    return {"status": debate.status, **t, "updated_at": to_utc(debate.updated_at) if debate.updated_at else now()}


def outcome_rows(debate: Debate, secrets: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The rows of a debate's outcome tables (as :meth:`ArchiveRecorder._write_outcome` writes them)."""
    rows: list[tuple[str, dict[str, Any]]] = [("judgments", r) for r in judgment_rows(debate, secrets)]
    o, v = debate.observation, debate.verdict
    if o is not None:
        rows.append(
            (
                "observations",
                {
                    "debate_id": debate.id,
                    "divergence": o.divergence,
                    "consensus": o.consensus,
                    "to_reader": o.to_reader,
                    "engine": o.engine,
                },
            )
        )
    if v is not None:
        rows.append(
            (
                "verdicts",
                {
                    "debate_id": debate.id,
                    "winner": v.winner,
                    "summary": v.summary,
                    "reasons": dumps(v.reasons),
                    "note": v.note,
                    "parsed": v.parsed,
                    "raw": scrub(v.raw, secrets),
                    "judge": v.judge,
                    "complete": v.complete,
                    "missing": list(v.missing),
                },
            )
        )
        rows += [
            (
                "verdict_rows",
                {
                    "debate_id": debate.id,
                    "ord": i,
                    "label": r.label,
                    "stance": r.stance,
                    "strongest": r.strongest,
                    "weakness": r.weakness,
                    "score": r.score,
                },
            )
            for i, r in enumerate(v.rows)
        ]
        rows += [
            ("verdict_rounds", {"debate_id": debate.id, "ord": i, "round": c.round, "comment": c.comment})
            for i, c in enumerate(v.per_round)
        ]
    return rows


def snapshot_pack(con, pack: Pack) -> str:
    """Store ``pack``'s snapshot (its masters, sources and critiques) unless it is there; its hash."""
    h = pack_hash(pack)
    if con.execute("SELECT 1 FROM packs WHERE pack_hash = ?", [h]).fetchone():
        return h
    insert_row(
        con,
        "packs",
        {
            "pack_hash": h,
            "name": pack.name,
            "version": pack.version,
            "path": str(Path(pack.path).resolve()),
            "masters": len(pack.masters),
            "critiques": sum(len(m.cross_critique) for m in pack.masters.values()),
            "created_at": now(),
        },
    )
    for m in pack.masters.values():
        insert_row(
            con,
            "pack_masters",
            {"pack_hash": h, **m.listing_row()},
        )
        for s in m.sources:
            insert_row(
                con,
                "pack_sources",
                {"pack_hash": h, "slug": m.slug, "source_id": s.id, "type": s.type, "title": s.title},
            )
        for c in m.cross_critique:
            insert_row(
                con,
                "pack_critiques",
                {
                    "pack_hash": h,
                    "slug": m.slug,
                    "target_master": c.target_master,
                    "position": c.position,
                    "citation": c.citation,
                },
            )
    return h


def update_many(con, table: str, rows: list[dict[str, Any]]) -> None:
    """Update the rows named by ``id`` with the other values of each dict; one statement per column set."""
    by_cols: dict[tuple, list[dict[str, Any]]] = {}
    for row in rows:
        by_cols.setdefault(tuple(row), []).append(row)
    for cols, group in by_cols.items():
        one = "(" + ", ".join("?" for _ in cols) + ")"
        sets = ", ".join(f"{c} = v.{c}" for c in cols if c != "id")
        for i in range(0, len(group), 200):
            part = group[i : i + 200]
            con.execute(
                f"UPDATE {table} SET {sets} FROM (VALUES {', '.join([one] * len(part))}) "
                f"AS v({', '.join(cols)}) WHERE {table}.id = v.id",
                [r[c] for r in part for c in cols],
            )
