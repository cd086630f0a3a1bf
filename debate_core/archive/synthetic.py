"""Synthetic archives for the benchmarks (bench/archive_bench.py, bench/caps_bench.py,
bench/app_bench.py): rows written straight into the tables of an archive that
:func:`~debate_core.archive.open_archive` has just created, in bulk and without the recorder's
checks or scrubbing, so that an archive of 100,000 debates takes seconds to make.

Nothing in the workbench itself writes this way; a real debate is only ever written through the
recorder (:mod:`debate_core.archive.recorder`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from debate_core.archive.migrations import archive_tables
from debate_core.errors import ArchiveError

BENCH_PACK = "benchpack0000001"  # the one pack snapshot a synthetic archive holds


def _list(values: Sequence[str]) -> str:
    """A DuckDB list literal of strings."""
    return "[" + ",".join("'" + v.replace("'", "''") + "'" for v in values) + "]"


def fill_bench_archive(
    path: str | Path,
    *,
    debates: int,
    per: int,
    masters: Sequence[str],
    names: Sequence[str],
    phrases: Sequence[str],
    topics: Sequence[str],
    critiques: Sequence[tuple[str, str]],
    needle: str,
    spread: str,
) -> dict[str, Any]:
    """Fill the new, empty archive at ``path`` with ``debates`` debates (70 % of protocol master,
    20 % topic, 10 % trial, between two of ``masters`` (display ``names``), on ``topics``, dates
    spread over 2025, a fifth of the master debates with the coverage warning) and ``per``
    speeches each, of 300-500 characters composed from ``phrases``; ``needle`` is planted in the
    speeches of one debate in 5,000 and ``spread`` in one speech in 1,000.  Also a call ledger
    for a third of the debates and one pack snapshot (:data:`BENCH_PACK`: the masters, one source
    each, ``critiques`` as (critic, target)).  Speeches are stored in speech-number order, as
    appends one by one would store them.

    Returns ``debates_s`` and ``speeches_s`` (seconds each bulk insert took), ``counts`` (rows of
    debates, speeches, llm_calls), ``avg_chars`` (per speech) and ``order`` (the correlation of
    speech number and storage order: 1.0)."""
    import duckdb

    t0 = time.perf_counter()
    con = duckdb.connect(str(path))
    m_list, n_list, p_list, t_list = _list(masters), _list(names), _list(phrases), _list(topics)
    n_m, n_p, n_t = len(masters), len(phrases), len(topics)
    try:
        con.execute(f"""
            CREATE TEMP TABLE d AS
            SELECT i,
                   substr(md5('d' || i::VARCHAR), 1, 12) AS id,
                   CASE WHEN i % 10 < 7 THEN 'master' WHEN i % 10 < 9 THEN 'topic' ELSE 'trial' END AS protocol,
                   (hash(i, 'a') % {n_m})::INTEGER + 1 AS a,
                   ((hash(i, 'a') % {n_m})::INTEGER + 1 + (hash(i, 'b') % {n_m - 1})::INTEGER) % {n_m} + 1 AS b,
                   {t_list}[(hash(i, 't') % {n_t})::INTEGER + 1] || ' #' || i::VARCHAR AS topic,
                   TIMESTAMP '2025-01-01' + to_seconds((i * 315)::BIGINT) AS created_at,
                   CASE WHEN i % 50 = 0 THEN 'failed' WHEN i % 97 = 0 THEN 'stopped'
                        WHEN i % 89 = 0 THEN 'interrupted' ELSE 'completed' END AS status,
                   ['offline', 'openai/gpt-4o-mini', 'anthropic/claude-sonnet', 'ollama/qwen2.5'][(i % 4) + 1] AS model
            FROM range({debates}) t(i)""")
        con.execute(f"""
            INSERT INTO debates (id, protocol, topic, status, stop_reason, participants, labels, models, pack_name,
                pack_version, planned_rounds, config, warnings, degraded, batch_id, source, rounds_done, failed_round,
                prompt_tokens, completion_tokens, cost, created_at, updated_at, finished_at, pack_hash)
            SELECT id, protocol, topic, status, 'reached 5 rounds',
                   CASE WHEN protocol = 'master' THEN
                       '[{{"label":"' || {m_list}[a] || '","name":"' || {n_list}[a] || '","model":"' || model || '"}},'
                       || '{{"label":"' || {m_list}[b] || '","name":"' || {n_list}[b] || '","model":"' || model
                       || '"}}]'
                   ELSE '[{{"label":"辩手甲","stance":"甲方","model":"' || model || '"}},'
                        || '{{"label":"辩手乙","stance":"乙方","model":"' || model || '"}}]' END,
                   CASE WHEN protocol = 'master' THEN [{m_list}[a], {m_list}[b]] ELSE ['辩手甲', '辩手乙'] END,
                   [model], 'bench-pack', '1.0', 5,
                   '{{"protocol":"' || protocol || '","topic":"t"}}',
                   CASE WHEN protocol = 'master' AND i % 5 = 0
                        THEN ['⚠️ 本配对 cross_critique 未双向覆盖，对辩力度可能降级。'] ELSE []::VARCHAR[] END,
                   protocol = 'master' AND i % 5 = 0,
                   NULL, 'bench', 5, NULL,
                   (i % 5000) * 10, (i % 3000) * 10, (i % 1000) / 1000.0,
                   created_at, created_at + INTERVAL 5 MINUTE, created_at + INTERVAL 5 MINUTE, '{BENCH_PACK}'
            FROM d""")
        t_deb = time.perf_counter()
        con.execute(
            f"""
            INSERT INTO speeches (debate_id, round, ord, speaker, speaker_name, role, text, citations, findings,
                ammo_used, retries, truncated, engine, prompt_tokens, completion_tokens, cost, latency_ms, status,
                warnings, recorded_at, sno)
            SELECT d.id, (j // 2) + 1, j,
                   CASE WHEN d.protocol = 'master'
                        THEN (CASE WHEN j % 2 = 0 THEN {m_list}[d.a] ELSE {m_list}[d.b] END)
                        ELSE (CASE WHEN j % 2 = 0 THEN '辩手甲' ELSE '辩手乙' END) END,
                   '', CASE WHEN j < 2 THEN '立论' ELSE '反驳' END,
                   array_to_string(list_transform(range(150 + (hash(d.i, j) % 80)::INTEGER),
                       lambda x: {p_list}[((hash(d.i, j, x) % {n_p})::INTEGER) + 1]), '')
                   || CASE WHEN d.i % 5000 = 123 THEN ? ELSE '' END
                   || CASE WHEN (d.i * {per} + j) % 1000 = 7 THEN ? ELSE '' END,
                   ['T48n2008'], CASE WHEN (d.i + j) % 13 = 0 THEN
                       '[{{"rule":"length","passed":false,"message":"too short"}}]' ELSE '[]' END,
                   []::VARCHAR[], 0, false, d.model, 800, 450, 0.001, 1500.0,
                   CASE WHEN (d.i + j) % 13 = 0 THEN 'flagged' ELSE 'ok' END, []::VARCHAR[], d.created_at,
                   d.i * {per} + j AS sno
            FROM d, range({per}) r(j)
            ORDER BY sno""",
            [needle, spread],
        )
        # the sequence continues after the bulk-loaded speech numbers, as if they had been appended one by one
        con.execute(f"SELECT max(nextval('speech_sno')) FROM range({debates * per + 1})")
        t_sp = time.perf_counter()
        con.execute("""
            INSERT INTO llm_calls (debate_id, seq, purpose, model, round, speaker, prompt_tokens, completion_tokens,
                cost, latency_ms, error, messages, response, created_at)
            SELECT d.id, j, 'speech', d.model, j + 1, '', 800, 450, 0.001, 1500.0,
                   CASE WHEN (d.i + j) % 101 = 0 THEN 'timeout' ELSE '' END, '[]', '', d.created_at
            FROM d, range(5) r(j) WHERE d.i % 3 = 0 AND d.model <> 'offline'""")
        con.execute(
            "INSERT INTO packs VALUES (?, 'bench-pack', '1.0', '', ?, ?, now())",
            [BENCH_PACK, len(masters), len(critiques)],
        )
        for slug, name in zip(masters, names, strict=True):
            con.execute("INSERT INTO pack_masters VALUES (?, ?, ?, '', '', '', 1, 0)", [BENCH_PACK, slug, name])
            con.execute("INSERT INTO pack_sources VALUES (?, ?, ?, 'cbeta', '')", [BENCH_PACK, slug, f"SRC-{slug}"])
        for a, b in critiques:
            con.execute("INSERT INTO pack_critiques VALUES (?, ?, ?, 'position', ?)", [BENCH_PACK, a, b, f"SRC-{a}"])
        con.execute("CHECKPOINT")
        order = con.execute("SELECT corr(sno, rowid) FROM speeches").fetchone()
        counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone() for t in ("debates", "speeches", "llm_calls")}
        chars = con.execute("SELECT avg(length(text))::INTEGER FROM speeches").fetchone()
    finally:
        con.close()
    return {
        "debates_s": t_deb - t0,
        "speeches_s": t_sp - t_deb,
        "order": order[0] if order else None,
        "counts": {t: c[0] if c else 0 for t, c in counts.items()},
        "avg_chars": chars[0] if chars else None,
    }


def search_index_storage(archive: Any) -> dict[str, Any]:
    """The text-search index of ``archive`` as stored: ``runs``, ``postings`` (rows in all runs)
    and ``bytes`` (the storage blocks its run tables take, from ``pragma_storage_info``)."""
    with archive._session() as con:
        runs = con.execute("SELECT count(*), sum(rows) FROM search_runs").fetchone()
        tables = [r[0] for r in con.execute("SELECT run FROM search_runs").fetchall()]
        blocks = sum(
            con.execute(
                f"SELECT count(DISTINCT block_id) FROM pragma_storage_info('search_run_{t}') "
                "WHERE NOT persistent IS FALSE"
            ).fetchone()[0]
            for t in tables
        )
        block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    return {"runs": runs[0], "postings": runs[1], "bytes": blocks * block_size}


def load_rows(path: str | Path, tables: dict[str, list[dict[str, Any]]]) -> None:
    """Append rows (dicts of column values, by column name) to tables of the archive at ``path``,
    one bulk insert per table in one transaction; a table the schema does not have is refused."""
    import duckdb
    import pandas as pd

    known = set(archive_tables())
    for table in tables:
        if table not in known:
            raise ArchiveError(f"table: {table!r} is not a table of the archive")
    con = duckdb.connect(str(path))
    try:
        con.execute("BEGIN TRANSACTION")
        for table, rows in tables.items():
            if rows:
                frame = pd.DataFrame(rows)
                con.register("synthetic_rows", frame)
                con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM synthetic_rows")
                con.unregister("synthetic_rows")
        con.execute("COMMIT")
    finally:
        con.close()
