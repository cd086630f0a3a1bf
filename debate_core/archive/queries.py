"""The archive's analytic reads: tokens and cost per model, failed checks, debates over time,
winners, the pairs debated with the coverage warning, coverage from a stored pack snapshot,
judge audits, and the read-only SQL box."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from debate_core.archive.parts import ArchiveParts
from debate_core.archive.sql_guard import run_readonly_sql
from debate_core.errors import ArchiveError


class Queries(ArchiveParts):
    """The analytic reads of :class:`~debate_core.archive.Archive` (``query`` comes from its connection)."""

    path: Path
    lock_timeout: float

    def audits(self) -> pd.DataFrame:
        """Stored judge audits, newest first."""
        return self.query("SELECT audit_id, batch_id, judges, variants, debates, judgments, calls, prompt_tokens, "
                          "completion_tokens, cost, created_at FROM audits ORDER BY created_at DESC, audit_id")

    def audit_judgments(self, audit_id: str) -> pd.DataFrame:
        return self.query("SELECT * EXCLUDE (audit_id) FROM audit_judgments WHERE audit_id = ? "
                          "ORDER BY debate_id, judge, variant", [audit_id])

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
            slugs = [r[0] for r in con.execute("SELECT slug FROM pack_masters WHERE pack_hash = ? ORDER BY slug",
                                               [pack_hash]).fetchall()]
            edges = con.execute("SELECT slug, target_master FROM pack_critiques WHERE pack_hash = ?",
                                [pack_hash]).fetchall()
        return pack_hash, info, slugs, [tuple(e) for e in edges]

    def coverage_snapshot(self, debate_id: str | None = None, pack_hash: str | None = None
                          ) -> tuple[pd.DataFrame, dict]:
        """(matrix, gaps) from the pack snapshot stored with a debate (or a given / the latest snapshot)."""
        from debate_core.content.coverage import gaps_from_edges, matrix_from_edges

        h, info, slugs, edges = self._snapshot_edges(debate_id, pack_hash)
        gaps = gaps_from_edges(slugs, edges)
        gaps["pack"] = {"name": info[0], "version": info[1], "path": info[2], "hash": h}
        return matrix_from_edges(slugs, edges), gaps

    # ---------------------------------------------------------------- SQL box
    def sql(self, query: str, *, max_rows: int = 10_000, timeout: float | None = None) -> pd.DataFrame:
        """Run one user query strictly read-only, in a worker process bounded by the SQL caps
        (``timeout`` default: ``SQL_TIMEOUT_S``); raises :class:`SqlRefused` (one line) otherwise.
        It never holds this process's archive lock: other sessions read on while it runs."""
        return run_readonly_sql(self.path, query, max_rows=max_rows, timeout=timeout, lock_timeout=self.lock_timeout)
