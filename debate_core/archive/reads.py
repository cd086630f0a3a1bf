"""The archive's reads: one debate in full, the filtered list, counts, text search (through
:mod:`debate_core.archive.text_index`), a debate's pack folder, and its rows as Parquet."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from debate_core.archive import text_index
from debate_core.archive.migrations import AUDIT_TABLES, DEBATE_TABLES, PACK_TABLES, SOURCE_TABLES, VOTE_TABLES
from debate_core.archive.parts import ArchiveParts
from debate_core.archive.values import aggregate, first_line, loads, to_aware, to_utc
from debate_core.errors import ArchiveError
from debate_core.models import (
    Debate,
    DebateConfig,
    Finding,
    Judgment,
    LLMCall,
    Observation,
    Participant,
    RoundComment,
    RoundSummary,
    Speech,
    ToolCallRecord,
    Verdict,
    VerdictRow,
)

SEARCH_REFRESH_LIMIT = 65_536  # speeches one search indexes at most before answering (the rest is scanned)
LIST_COLUMNS = (
    "id, protocol, topic, status, stop_reason, participants, labels, models, pack_name, "
    "pack_version, planned_rounds, rounds_done AS rounds, prompt_tokens, completion_tokens, cost, "
    "warnings, degraded, batch_id, source, imported_from, lang, group_id, created_at, updated_at, "
    "finished_at"
)


def _resolve_date(value: Any, end: bool = False) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return to_utc(value)
    if isinstance(value, date):
        d = datetime(value.year, value.month, value.day)
        return d + timedelta(days=1) if end else d
    text = str(value).strip()
    try:
        if len(text) == 10:
            d = datetime.strptime(text, "%Y-%m-%d")
            return d + timedelta(days=1) if end else d
        return to_utc(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError:
        raise ArchiveError(f"not a date: {value!r} (use YYYY-MM-DD)") from None


def _rows(con, sql: str, *params) -> list[dict[str, Any]]:
    cur = con.execute(sql, list(params))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _build(h, speeches, summaries, obs, verdict, vrows, vrounds, calls, judgments=()) -> Debate:
    rounds = [
        Speech(
            round=s["round"],
            speaker=s["speaker"],
            speaker_name=s["speaker_name"] or "",
            role=s["role"] or "",
            text=s["text"] or "",
            citations=s["citations"] or [],
            findings=[Finding(**f) for f in loads(s["findings"], [])],
            ammo_used=s["ammo_used"] or [],
            retries=s["retries"] or 0,
            truncated=bool(s["truncated"]),
            engine=s["engine"] or "",
            prompt_tokens=s["prompt_tokens"] or 0,
            completion_tokens=s["completion_tokens"] or 0,
            cost=s["cost"] or 0.0,
            latency_ms=s["latency_ms"] or 0.0,
            status=s["status"] or "ok",
            envelope=loads(s["envelope"]),
            plan=loads(s["plan"]) if "plan" in s else None,
            tool_calls=[ToolCallRecord(**t) for t in loads(s["tool_calls"], [])],
            warnings=s["warnings"] or [],
        )
        for s in speeches
    ]
    v = None
    if verdict:
        vr = verdict[0]
        v = Verdict(
            winner=vr["winner"],
            summary=vr["summary"] or "",
            reasons=loads(vr["reasons"], {}),
            rows=[
                VerdictRow(
                    label=r["label"],
                    stance=r["stance"] or "",
                    strongest=r["strongest"] or "",
                    weakness=r["weakness"] or "",
                    score=r["score"],
                )
                for r in vrows
            ],
            per_round=[RoundComment(round=r["round"], comment=r["comment"] or "") for r in vrounds],
            note=vr["note"] or "",
            parsed=bool(vr["parsed"]),
            raw=vr["raw"] or "",
            judge=vr["judge"] or "",
            complete=vr.get("complete"),
            missing=list(vr.get("missing") or []),
        )
    return Debate(
        id=h["id"],
        protocol=h["protocol"],
        topic=h["topic"],
        status=h["status"],
        stop_reason=h["stop_reason"] or "",
        participants=[Participant(**p) for p in loads(h["participants"], [])],
        models=h["models"] or [],
        pack_name=h["pack_name"] or "",
        pack_version=h["pack_version"] or "",
        planned_rounds=h["planned_rounds"] or 0,
        config=DebateConfig(**loads(h["config"], {"topic": h["topic"]})),
        warnings=h["warnings"] or [],
        rounds=rounds,
        summaries=[RoundSummary(round=s["round"], speaker=s["speaker"] or "", text=s["text"] or "") for s in summaries],
        observation=Observation(
            divergence=obs[0]["divergence"] or "",
            consensus=obs[0]["consensus"] or "",
            to_reader=obs[0]["to_reader"] or "",
            engine=obs[0]["engine"] or "",
        )
        if obs
        else None,
        verdict=v,
        llm_calls=[
            LLMCall(
                purpose=c["purpose"] or "",
                model=c["model"] or "",
                round=c["round"],
                speaker=c["speaker"] or "",
                prompt_tokens=c["prompt_tokens"] or 0,
                completion_tokens=c["completion_tokens"] or 0,
                cached_tokens=c.get("cached_tokens") or 0,
                cost=c["cost"] or 0.0,
                latency_ms=c["latency_ms"] or 0.0,
                error=c["error"] or "",
                messages=loads(c["messages"], []),
                response=c["response"] or "",
                created_at=to_aware(c["created_at"]),
            )
            for c in calls
        ],
        created_at=to_aware(h["created_at"]),
        updated_at=to_aware(h["updated_at"]),
        batch_id=h["batch_id"],
        source=h["source"] or "",
        lang=h.get("lang") or None,
        group=h.get("group_id") or "",
        judgments=[
            Judgment(
                judge=j["judge"],
                winner=j["winner"],
                winner_name=j["winner_name"] or "",
                margin=j["margin"],
                normalized=j["normalized"],
                entertainment=j["entertainment"],
                notes=j["notes"] or "",
                decisive=j["decisive"] or "",
                group=j["group_id"] or "",
                template=j["template"] or "",
            )
            for j in judgments
        ],
    )


def _seat(label_param: str, model_param: str) -> str:
    """SQL: a participant (of up to 4) has this label and this model."""
    return (
        "("
        + " OR ".join(
            f"(json_extract_string(participants, '$[{i}].label') = {label_param} AND "
            f"json_extract_string(participants, '$[{i}].model') = {model_param})"
            for i in range(4)
        )
        + ")"
    )


def _filters(
    protocol=None,
    master=None,
    model=None,
    status=None,
    date_from=None,
    date_to=None,
    text=None,
    batch_id=None,
    text_ids=None,
    lang=None,
    judge=None,
    side=None,
    winner=None,
    topic=None,
) -> tuple[str, list]:
    clauses, params = [], []
    if judge:
        clauses.append(
            "(id IN (SELECT debate_id FROM judgments WHERE judge = ?) OR "
            "id IN (SELECT debate_id FROM verdicts WHERE judge = ?))"
        )
        params += [judge, judge]
    if side and model:
        clauses.append(_seat("?", "?"))
        params += [side, model] * 4
    elif side:
        clauses.append("list_contains(labels, ?)")
        params.append(side)
    if winner:
        if winner in ("pro", "con", "draw"):
            clauses.append("id IN (SELECT debate_id FROM verdicts WHERE winner = ?)")
            params.append(winner)
        else:  # a model: the verdict's winning label is that model's seat
            clauses.append(
                "id IN (SELECT v.debate_id FROM verdicts v JOIN debates dd ON dd.id = v.debate_id WHERE "
                + _seat("v.winner", "?").replace("participants", "dd.participants")
                + ")"
            )
            params += [winner] * 4
    if topic:
        clauses.append("topic = ?")
        params.append(topic)
    if lang:
        clauses.append("lang = ?")
        params.append(lang)
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
            clauses.append(
                "(regexp_matches(topic, ?) OR id IN (SELECT debate_id FROM speeches WHERE regexp_matches(text, ?)))"
            )
            params += [pattern, pattern]
        else:
            clauses.append("(regexp_matches(topic, ?) OR id IN (SELECT unnest(?::VARCHAR[])))")
            params += [pattern, list(text_ids)]
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def _text_hits(con, needle: str, where: str, params: list, limit: int) -> list[str]:
    """Ids of the first ``limit`` debates (newest first) passing ``where`` whose topic or a
    speech contains ``needle``.  The index narrows the debates to check when it can; they
    are then checked newest first until ``limit`` match."""
    pat = text_index.pattern(needle)
    candidates = text_index.candidate_debates(con, needle)
    if candidates is None:
        ordered = con.execute(
            f"SELECT id, regexp_matches(topic, ?) FROM debates {where} ORDER BY created_at DESC, id", [pat] + params
        ).fetchall()
    else:
        glue = " AND " if where else "WHERE "
        ordered = con.execute(
            f"SELECT id, regexp_matches(topic, ?) FROM debates {where}{glue}(regexp_matches(topic, ?) "
            "OR id IN (SELECT unnest(?::VARCHAR[]))) ORDER BY created_at DESC, id",
            [pat] + params + [pat, candidates],
        ).fetchall()
    return text_index.first_matches(con, ordered, needle, limit)


def _lit(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


class Reads(ArchiveParts):
    """The reads of :class:`~debate_core.archive.Archive` (sessions come from its connection)."""

    path: Path

    def exists(self, debate_id: str) -> bool:
        with self._session() as con:
            return con.execute("SELECT 1 FROM debates WHERE id = ?", [debate_id]).fetchone() is not None

    def get_debate(self, debate_id: str) -> Debate:
        """One debate in full; ``KeyError`` naming the id when it is not archived."""
        with self._session() as con:
            cur = con.execute("SELECT * FROM debates WHERE id = ?", [debate_id])
            cols = [d[0] for d in cur.description]
            row = cur.fetchone()
            if row is None:
                hint = ""
                near = (
                    con.execute("SELECT id FROM debates WHERE starts_with(id, ?) LIMIT 2", [debate_id]).fetchall()
                    if debate_id
                    else []
                )
                if len(near) == 1:
                    hint = f"; did you mean {near[0][0]!r}?"
                raise KeyError(f"no debate {debate_id!r} in archive {self.path}{hint}")
            h = dict(zip(cols, row, strict=True))
            speeches = _rows(con, "SELECT * FROM speeches WHERE debate_id = ? ORDER BY round, ord", debate_id)
            summaries = _rows(con, "SELECT * FROM summaries WHERE debate_id = ? ORDER BY round, ord", debate_id)
            obs = _rows(con, "SELECT * FROM observations WHERE debate_id = ?", debate_id)
            verdict = _rows(con, "SELECT * FROM verdicts WHERE debate_id = ?", debate_id)
            vrows = _rows(con, "SELECT * FROM verdict_rows WHERE debate_id = ? ORDER BY ord", debate_id)
            vrounds = _rows(con, "SELECT * FROM verdict_rounds WHERE debate_id = ? ORDER BY ord", debate_id)
            calls = _rows(con, "SELECT * FROM llm_calls WHERE debate_id = ? ORDER BY seq", debate_id)
            judgments = _rows(con, "SELECT * FROM judgments WHERE debate_id = ? ORDER BY ord", debate_id)
        return _build(h, speeches, summaries, obs, verdict, vrows, vrounds, calls, judgments)

    def get_debates(self, ids: list[str]) -> list[Debate]:
        """Several debates in full, in the order of ``ids`` (unknown ids are left out): one query per
        table for all of them, for analyses over many debates."""
        ids = list(dict.fromkeys(ids))
        with self._session() as con:
            heads = _rows(con, "SELECT * FROM debates WHERE list_contains(?, id)", ids)
            per: dict[str, dict[str, list]] = {h["id"]: {} for h in heads}
            for table, order in (
                ("speeches", "round, ord"),
                ("summaries", "round, ord"),
                ("observations", "debate_id"),
                ("verdicts", "debate_id"),
                ("verdict_rows", "ord"),
                ("verdict_rounds", "ord"),
                ("llm_calls", "seq"),
                ("judgments", "ord"),
            ):
                for r in _rows(
                    con, f"SELECT * FROM {table} WHERE list_contains(?, debate_id) ORDER BY debate_id, {order}", ids
                ):
                    per[r["debate_id"]].setdefault(table, []).append(r)
        by_id = {h["id"]: h for h in heads}
        out = []
        for i in ids:
            if i in by_id:
                t = per[i]
                out.append(
                    _build(
                        by_id[i],
                        t.get("speeches", []),
                        t.get("summaries", []),
                        t.get("observations", []),
                        t.get("verdicts", []),
                        t.get("verdict_rows", []),
                        t.get("verdict_rounds", []),
                        t.get("llm_calls", []),
                        t.get("judgments", []),
                    )
                )
        return out

    def judges(self) -> list[str]:
        """Every judge named in the archive: panel judges and verdict judges."""
        with self._session() as con:
            rows = con.execute(
                "SELECT DISTINCT judge FROM judgments UNION SELECT DISTINCT judge FROM verdicts "
                "WHERE coalesce(judge, '') <> ''"
            ).fetchall()
        return sorted(r[0] for r in rows if r[0])

    def judgment_counts(self, ids: list[str]) -> dict[str, int]:
        """How many per-judge judgments each of ``ids`` has stored (ids not archived are left out)."""
        with self._session() as con:
            rows = con.execute(
                "SELECT d.id, count(j.judge) FROM debates d LEFT JOIN judgments j ON j.debate_id = d.id "
                "WHERE list_contains(?, d.id) GROUP BY d.id",
                [list(ids)],
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def pack_path(self, debate_id: str) -> str | None:
        """The pack folder recorded when the debate was saved, or None."""
        with self._session() as con:
            row = con.execute("SELECT pack_path FROM debates WHERE id = ?", [debate_id]).fetchone()
        return row[0] if row and row[0] else None

    def copy_to_parquet(self, folder: Path, debate_id: str | None = None) -> list[Path]:
        """Copy the archive's tables into ``folder`` as Parquet files, one per table: the rows of
        one debate and its pack snapshot, or with ``debate_id`` None every row of every table
        (judge audits included).  ``KeyError`` for an unknown debate.  Returns the files written."""
        with self._session() as con:
            if debate_id is not None:
                row = con.execute("SELECT pack_hash FROM debates WHERE id = ?", [debate_id]).fetchone()
                if row is None:
                    raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
                queries = {"debates": f"SELECT * FROM debates WHERE id = {_lit(debate_id)}"}
                queries.update(
                    {t: f"SELECT * FROM {t} WHERE debate_id = {_lit(debate_id)}" for t in DEBATE_TABLES + VOTE_TABLES}
                )
                for t in PACK_TABLES:
                    queries[t] = f"SELECT * FROM {t} WHERE pack_hash = {_lit(row[0] or '')}"
            else:
                queries = {
                    t: f"SELECT * FROM {t}"
                    for t in ("debates",) + DEBATE_TABLES + PACK_TABLES + AUDIT_TABLES + SOURCE_TABLES + VOTE_TABLES
                }
            written = []
            for table, sql in queries.items():
                target = folder / (table + ".parquet")
                con.execute(f"COPY ({sql}) TO {_lit(target)} (FORMAT parquet)")
                written.append(target)
        return written

    # ----------------------------------------------------------------- list
    def list_debates(
        self,
        protocol: str | None = None,
        master: str | None = None,
        model: str | None = None,
        status: str | None = None,
        date_from: Any = None,
        date_to: Any = None,
        text: str | None = None,
        limit: int = 500,
        batch_id: str | None = None,
        mark: bool = True,
        lang: str | None = None,
        judge: str | None = None,
        side: str | None = None,
        winner: str | None = None,
        topic: str | None = None,
    ) -> pd.DataFrame:
        """Debates, newest first, filtered.  ``master`` matches a participant label or name,
        ``model`` one of the debate's models, ``text`` the topic or any speech (case-insensitive),
        ``lang`` the debate's language (zh / en), ``judge`` a judge of the debate (a panel's or the
        verdict's), ``side`` the side (pro / con, or any label) ``model`` argued, ``winner`` the
        verdict's winner (pro / con / draw, or a model: its side won), ``topic`` the exact topic."""
        if mark:
            self.mark_interrupted()
        needle = (text or "").strip()
        lim = max(0, int(limit))
        where, params = _filters(
            protocol,
            master,
            model,
            status,
            date_from,
            date_to,
            None,
            batch_id,
            lang=lang,
            judge=judge,
            side=side,
            winner=winner,
            topic=topic,
        )
        if needle and text_index.indexable(needle):
            self._catch_up_search_index(limit=SEARCH_REFRESH_LIMIT)
        try:
            with self._session() as con:
                if needle:
                    ids = _text_hits(con, needle, where, params, lim)
                    df = con.execute(
                        f"SELECT {LIST_COLUMNS} FROM debates WHERE id IN "
                        "(SELECT unnest(?::VARCHAR[])) ORDER BY created_at DESC, id",
                        [ids],
                    ).df()
                else:
                    df = con.execute(
                        f"SELECT {LIST_COLUMNS} FROM debates {where} ORDER BY created_at DESC, id LIMIT {lim}", params
                    ).df()
        except duckdb.Error as exc:
            raise ArchiveError(f"listing debates in {self.path} failed: {first_line(exc)}") from None
        parts = [loads(p, []) for p in df["participants"]] if len(df) else []
        df["participants"] = [[x.get("name") or x.get("label", "") for x in p] for p in parts]
        return df

    def count_debates(self, **filters) -> int:
        keys = (
            "protocol",
            "master",
            "model",
            "status",
            "date_from",
            "date_to",
            "text",
            "batch_id",
            "lang",
            "judge",
            "side",
            "winner",
            "topic",
        )
        args = {k: filters.get(k) for k in keys}
        text = args.get("text")
        args["text_ids"] = self.search_speeches(text) if text and text.strip() else None
        where, params = _filters(**args)
        with self._session() as con:
            return aggregate(con.execute(f"SELECT count(*) FROM debates {where}", params).fetchone())[0]

    # ----------------------------------------------------------- text search
    def _catch_up_search_index(self, limit: int | None = None) -> None:
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

    def refresh_search_index(self, *, full: bool = False, limit: int | None = None, minimum: int | None = None) -> int:
        """Index the speeches stored since the last refresh (or rebuild the index with ``full``),
        then merge its runs (see :mod:`debate_core.archive.text_index`).  Nothing is written unless
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
            return {
                "runs": len(runs),
                "levels": [r[1] for r in runs],
                "postings": int(sum(r[4] for r in runs)),
                "covered_to": text_index.covered_to(con),
                "waiting": text_index.backlog(con),
                "speeches": aggregate(con.execute("SELECT count(*) FROM speeches").fetchone())[0],
            }

    def search_speeches(self, text: str) -> list[str] | None:
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
