"""The archive's analytic reads: tokens and cost per model, failed checks, debates over time,
winners, the pairs debated with the coverage warning, coverage from a stored pack snapshot,
judge audits, the frames the analyses start from (a protocol's speeches, pack-snapshot rows,
pairs debated, judged outcomes, per-judge judgments, model names, published leaderboards, the
call ledger per debate), and the read-only SQL box."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from debate_core.archive.migrations import PACK_TABLES
from debate_core.archive.parts import ArchiveParts
from debate_core.archive.sql_guard import run_readonly_sql
from debate_core.errors import ArchiveError


class Queries(ArchiveParts):
    """The analytic reads of :class:`~debate_core.archive.Archive` (``query`` comes from its connection)."""

    path: Path
    lock_timeout: float

    def audits(self) -> pd.DataFrame:
        """Stored judge audits, newest first."""
        return self.query(
            "SELECT audit_id, batch_id, judges, variants, debates, judgments, calls, prompt_tokens, "
            "completion_tokens, cost, created_at FROM audits ORDER BY created_at DESC, audit_id"
        )

    def audit_judgments(self, audit_id: str) -> pd.DataFrame:
        return self.query(
            "SELECT * EXCLUDE (audit_id) FROM audit_judgments WHERE audit_id = ? ORDER BY debate_id, judge, variant",
            [audit_id],
        )

    # ------------------------------------------------------------ analytics
    def tokens_by_model(self) -> pd.DataFrame:
        """Calls, tokens (``cached_tokens``: the input tokens providers served from their prompt
        cache) and cost per model: from llm_calls, plus the speeches of debates that have no call
        ledger (imported ones)."""
        sql = """
            WITH ledger AS (SELECT DISTINCT debate_id FROM llm_calls),
            c AS (SELECT model, count(*) AS calls, count(DISTINCT debate_id) AS debates,
                         sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                         sum(coalesce(cached_tokens, 0)) AS cached_tokens,
                         sum(cost) AS cost, count(*) FILTER (WHERE coalesce(error, '') <> '') AS errors,
                         avg(latency_ms) AS avg_latency_ms
                  FROM llm_calls GROUP BY model),
            s AS (SELECT engine AS model, 0 AS calls, count(DISTINCT debate_id) AS debates,
                         sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                         0 AS cached_tokens, sum(cost) AS cost, 0 AS errors, avg(latency_ms) AS avg_latency_ms
                  FROM speeches WHERE debate_id NOT IN (SELECT debate_id FROM ledger) AND coalesce(engine, '') <> ''
                  GROUP BY engine)
            SELECT model, sum(calls)::BIGINT AS calls, sum(debates)::BIGINT AS debates,
                   sum(prompt_tokens)::BIGINT AS prompt_tokens, sum(completion_tokens)::BIGINT AS completion_tokens,
                   sum(cached_tokens)::BIGINT AS cached_tokens,
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
        return self.query(
            """
            SELECT round, speaker, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                   sum(cost) AS cost FROM speeches WHERE debate_id = ? GROUP BY round, speaker ORDER BY round""",
            [debate_id],
        )

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

    def _snapshot_edges(self, debate_id: str | None = None, pack_hash: str | None = None):
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
            slugs = [
                r[0]
                for r in con.execute(
                    "SELECT slug FROM pack_masters WHERE pack_hash = ? ORDER BY slug", [pack_hash]
                ).fetchall()
            ]
            edges = con.execute(
                "SELECT slug, target_master FROM pack_critiques WHERE pack_hash = ?", [pack_hash]
            ).fetchall()
        return pack_hash, info, slugs, [tuple(e) for e in edges]

    def coverage_snapshot(
        self, debate_id: str | None = None, pack_hash: str | None = None
    ) -> tuple[pd.DataFrame, dict]:
        """(matrix, gaps) from the pack snapshot stored with a debate (or a given / the latest snapshot)."""
        from debate_core.content.coverage import gaps_from_edges, matrix_from_edges

        h, info, slugs, edges = self._snapshot_edges(debate_id, pack_hash)
        gaps = gaps_from_edges(slugs, edges)
        gaps["pack"] = {"name": info[0], "version": info[1], "path": info[2], "hash": h}
        return matrix_from_edges(slugs, edges), gaps

    # ------------------------------------------------------- analyses' frames
    def protocol_speeches(self, protocol: str, *, batch_id: str | None = None) -> pd.DataFrame:
        """Every speech of ``protocol``'s debates (one batch's, with ``batch_id``) with what the
        analyses need of its debate: ``debate_id``, ``batch_id``, ``pack_hash``, ``debate_status``,
        ``labels``, ``degraded``, then the speech's ``round``, ``speaker``, ``speaker_name``, ``role``,
        ``text``, ``citations``, ``ammo_used``, ``findings`` (JSON), ``status``, ``retries``; oldest
        debate first, by round."""
        params: list[Any] = [protocol]
        where = "d.protocol = ?"
        if batch_id:
            where += " AND d.batch_id = ?"
            params.append(batch_id)
        return self.query(
            f"""
            SELECT s.debate_id, d.batch_id, d.pack_hash, d.status AS debate_status, d.labels, d.degraded,
                   s.round, s.speaker, s.speaker_name, s.role, s.text, s.citations, s.ammo_used, s.findings,
                   s.status, s.retries
            FROM speeches s JOIN debates d ON d.id = s.debate_id
            WHERE {where} ORDER BY d.created_at, s.debate_id, s.round""",
            params,
        )

    def snapshot_rows(self, table: str, hashes: Sequence[str]) -> pd.DataFrame:
        """The distinct rows of one pack-snapshot table (``pack_masters``, ``pack_sources`` or
        ``pack_critiques``) over the snapshots ``hashes``, without their hash; an empty frame when
        no hash is given."""
        if table not in PACK_TABLES[1:]:
            raise ArchiveError(f"table: {table!r} is not one of {', '.join(PACK_TABLES[1:])}")
        hashes = [h for h in hashes if h]
        if not hashes:
            return pd.DataFrame()
        return self.query(
            f"SELECT DISTINCT * EXCLUDE (pack_hash) FROM {table} WHERE list_contains(?, pack_hash)", [hashes]
        )

    def pairs_debated(self, protocol: str, *, batch_id: str | None = None) -> pd.DataFrame:
        """``protocol``'s debates with two labels or more, per pair of their first two (``pair_list``,
        sorted): ``debates``, ``completed``, ``degraded`` (with the coverage warning) and ``last_at``."""
        params: list[Any] = [protocol]
        where = "protocol = ? AND len(labels) >= 2"
        if batch_id:
            where += " AND batch_id = ?"
            params.append(batch_id)
        return self.query(
            f"""
            SELECT list_sort(labels[1:2]) AS pair_list, count(*) AS debates,
                   count(*) FILTER (WHERE status = 'completed') AS completed,
                   count(*) FILTER (WHERE degraded) AS degraded, max(created_at) AS last_at
            FROM debates WHERE {where} GROUP BY ALL""",
            params,
        )

    def judged_outcomes(
        self, protocols: Sequence[str], *, batch_id: str | None = None, protocol: str | None = None
    ) -> pd.DataFrame:
        """The completed debates of ``protocols`` (one batch's, one protocol's) whose verdict names a
        winner (an unparsed verdict left out): ``debate_id``, ``batch_id``, ``protocol``, ``topic``,
        ``participants`` (JSON), ``winner``; oldest first."""
        where = [
            "list_contains(?, d.protocol)",
            "d.status = 'completed'",
            "v.winner IS NOT NULL",
            "coalesce(v.parsed, true)",
        ]
        params: list[Any] = [list(protocols)]
        if batch_id:
            where.append("d.batch_id = ?")
            params.append(batch_id)
        if protocol:
            where.append("d.protocol = ?")
            params.append(protocol)
        return self.query(
            "SELECT d.id AS debate_id, d.batch_id, d.protocol, d.topic, d.participants, v.winner "
            "FROM debates d JOIN verdicts v ON v.debate_id = d.id WHERE "
            + " AND ".join(where)
            + " ORDER BY d.created_at, d.id",
            params,
        )

    def judgment_rows(self, *, own_protocols: Sequence[str] = ()) -> list[tuple]:
        """Per-judge judgments as tuples (debate id, group, topic, protocol, judge, winner, margin,
        normalized, entertainment, participants JSON, template): the stored panels' (imported
        benchmarks) first, by debate and order; then, for debates of ``own_protocols`` without a
        panel, their verdict (judge: the verdict's, else the configured judge model) and their
        judge audits' unaltered variant.  One consistent read."""
        with self._session() as con:
            rows = con.execute(
                "SELECT j.debate_id, coalesce(j.group_id, d.group_id) AS grp, d.topic, d.protocol, j.judge, "
                "j.winner, j.margin, j.normalized, j.entertainment, d.participants, j.template FROM judgments j "
                "JOIN debates d ON d.id = j.debate_id ORDER BY j.debate_id, j.ord"
            ).fetchall()
            if own_protocols:
                rows += con.execute(
                    "SELECT d.id, d.group_id, d.topic, d.protocol, coalesce(nullif(v.judge, ''), "
                    "json_extract_string(d.config, '$.judge_model'), 'judge') AS judge, v.winner, NULL, NULL, NULL, "
                    "d.participants, NULL FROM verdicts v JOIN debates d ON d.id = v.debate_id "
                    "WHERE v.parsed AND list_contains(?, d.protocol) AND v.winner IS NOT NULL "
                    "AND d.id NOT IN (SELECT debate_id FROM judgments) "
                    "UNION ALL "
                    "SELECT d.id, d.group_id, d.topic, d.protocol, a.judge, a.winner, NULL, NULL, NULL, "
                    "d.participants, NULL FROM audit_judgments a JOIN debates d ON d.id = a.debate_id "
                    "WHERE a.variant = 'original' AND a.winner IS NOT NULL AND list_contains(?, d.protocol)",
                    [list(own_protocols)] * 2,
                ).fetchall()
        return [tuple(r) for r in rows]

    def model_names(self) -> dict[str, str]:
        """The display names sources gave their models (model -> name), as imported."""
        with self._session() as con:
            return dict(con.execute("SELECT model, name FROM model_names").fetchall())

    def leaderboards(self) -> pd.DataFrame:
        """Every published leaderboard row an import stored: ``source``, ``template``, ``rank``,
        ``model``, ``rating``, ``imported_at``; newest import first, then by template and rank."""
        return self.query(
            "SELECT source, template, rank, model, rating, imported_at FROM leaderboards "
            "ORDER BY imported_at DESC, template, rank"
        )

    def calls_per_debate(self) -> pd.DataFrame:
        """Per debate with a call ledger: ``debate_id``, ``ms`` (its model calls' latencies added up)
        and ``n`` (its calls)."""
        return self.query("SELECT debate_id, sum(latency_ms) AS ms, count(*) AS n FROM llm_calls GROUP BY 1")

    def mean_call_latency(self) -> float:
        """The mean latency of every model call in the ledger, in ms (NaN when there is none)."""
        value = self.query("SELECT avg(latency_ms) AS l FROM llm_calls")["l"][0]
        return float("nan") if value is None else float(value)

    # ---------------------------------------------------------------- SQL box
    def sql(self, query: str, *, max_rows: int = 10_000, timeout: float | None = None) -> pd.DataFrame:
        """Run one user query strictly read-only, in a worker process bounded by the SQL caps
        (``timeout`` default: ``SQL_TIMEOUT_S``); raises :class:`SqlRefused` (one line) otherwise.
        It never holds this process's archive lock: other sessions read on while it runs."""
        return run_readonly_sql(self.path, query, max_rows=max_rows, timeout=timeout, lock_timeout=self.lock_timeout)
