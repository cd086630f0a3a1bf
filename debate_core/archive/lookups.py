"""The archive's named lookups for the rest of the workbench: a debate's status, its side-swap
group and its pack snapshot's sources, a batch's debates, the app's filter values and change
marker, the verdicts' winners, the tables' columns, and one debate's raw rows.

Every SQL statement against the archive's tables lives in :mod:`debate_core.archive`
(tests/test_archive_sealed.py holds the rest of the workbench to it): code outside calls one of
these methods, or an analytic read of :mod:`debate_core.archive.queries`, by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from debate_core.archive.migrations import DEBATE_TABLES
from debate_core.archive.parts import ArchiveParts
from debate_core.errors import ArchiveError


class Lookups(ArchiveParts):
    """The named lookups of :class:`~debate_core.archive.Archive` (``query`` comes from its connection)."""

    path: Path

    # ------------------------------------------------------------ one debate
    def debate_status(self, debate_id: str) -> str:
        """The stored status of one debate (``running``, ``completed`` …); ``KeyError`` naming the id
        when the archive does not hold it."""
        df = self.query("SELECT status FROM debates WHERE id = ?", [debate_id])
        if df.empty:
            raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
        return str(df.iloc[0, 0])

    def pack_hash(self, debate_id: str) -> str | None:
        """The hash of the pack snapshot stored with one debate, or None (no snapshot, or no such debate)."""
        df = self.query("SELECT pack_hash FROM debates WHERE id = ?", [debate_id])
        return None if df.empty or df.iloc[0, 0] is None else str(df.iloc[0, 0])

    def snapshot_sources(self, debate_id: str) -> pd.DataFrame:
        """The sources in the pack snapshot stored with one debate: ``slug`` (the master), ``source_id``,
        ``title``; empty when it has none."""
        return self.query(
            """SELECT s.slug, s.source_id, s.title FROM pack_sources s
                             JOIN debates d ON d.pack_hash = s.pack_hash WHERE d.id = ?""",
            [debate_id],
        )

    def group_debates(self, group_id: str, *, exclude: str | None = None) -> pd.DataFrame:
        """The debates of one side-swap group (``id``, ``models``), by id, less ``exclude``."""
        return self.query(
            "SELECT id, models FROM debates WHERE group_id = ? AND id IS DISTINCT FROM ? ORDER BY id",
            [group_id, exclude],
        )

    def debate_ids(self) -> list[str]:
        """Every debate's id, oldest first (for reading the whole archive a chunk at a time)."""
        return [str(i) for i in self.query("SELECT id FROM debates ORDER BY created_at, id")["id"]]

    def debate_rows(self, table: str, debate_id: str) -> pd.DataFrame:
        """Every stored row of one debate in ``table`` (one of the per-debate tables: ``speeches``,
        ``summaries``, ``llm_calls`` …), every column, as stored (fault benchmarks compare them)."""
        if table not in DEBATE_TABLES:
            raise ArchiveError(f"table: {table!r} is not one of {', '.join(DEBATE_TABLES)}")
        return self.query(f"SELECT * FROM {table} WHERE debate_id = ?", [debate_id])

    # --------------------------------------------------------------- batches
    def batch_tags(self, batch_id: str, cell_sep: str) -> pd.DataFrame:
        """The debates archived for a batch: ``id``, ``status``, ``tag`` (the config's ``batch_id``:
        batch and cell, joined by ``cell_sep``) and ``created_at``, newest first; debates run under
        the batch's id or tagged with one of its cells."""
        return self.query(
            "SELECT id, status, json_extract_string(config, '$.batch_id') AS tag, created_at FROM debates "
            "WHERE batch_id = ? OR starts_with(coalesce(json_extract_string(config, '$.batch_id'), ''), ?) "
            "ORDER BY created_at DESC, id",
            [batch_id, batch_id + cell_sep],
        )

    def batch_rows(self, batch_id: str) -> pd.DataFrame:
        """The debates of one batch, oldest first: ``id``, ``protocol``, ``topic``, ``status``,
        ``stop_reason``, ``labels``, ``models``, ``rounds``, ``batch_id``, ``tag`` (the config's
        ``batch_id``, naming the cell), ``created_at``, ``finished_at``."""
        return self.query(
            "SELECT id, protocol, topic, status, stop_reason, labels, models, rounds_done AS rounds, batch_id, "
            "json_extract_string(config, '$.batch_id') AS tag, created_at, finished_at FROM debates "
            "WHERE batch_id = ? ORDER BY created_at, id",
            [batch_id],
        )

    def completed_ids(self, batch_id: str, protocols: Sequence[str]) -> list[str]:
        """The ids of a batch's completed debates of ``protocols``, oldest first."""
        df = self.query(
            "SELECT id FROM debates WHERE batch_id = ? AND list_contains(?, protocol) "
            "AND status = 'completed' ORDER BY created_at, id",
            [batch_id, list(protocols)],
        )
        return [str(i) for i in df["id"]]

    # ------------------------------------------------------------------- app
    def change_marker(self) -> tuple[Any, ...]:
        """A cheap marker that changes with what is computed over the whole archive: the number of
        debates, their last update, and the numbers of verdicts, judgments (panels' and audits')
        and published leaderboard rows."""
        row = self.query(
            "SELECT (SELECT count(*) FROM debates), (SELECT max(updated_at) FROM debates), "
            "(SELECT count(*) FROM verdicts), (SELECT count(*) FROM judgments), "
            "(SELECT count(*) FROM audit_judgments), (SELECT count(*) FROM leaderboards)"
        )
        return tuple(row.iloc[0].tolist())

    def filter_values(self, master_protocols: Sequence[str], topics: int) -> pd.DataFrame:
        """The distinct values a browser filters on, in one query, as (``kind``, ``value``) rows:
        ``master`` (the labels of debates of ``master_protocols``), ``model``, ``protocol``, ``judge``
        (panels' and verdicts'), ``topic`` (the ``topics`` most debated) and ``topics`` (how many
        distinct topics there are, one row)."""
        return self.query(
            """
            SELECT 'master' AS kind, l AS value FROM (SELECT DISTINCT unnest(labels) AS l FROM debates
                 WHERE list_contains(?::VARCHAR[], protocol))
            UNION ALL SELECT 'model', m FROM (SELECT DISTINCT unnest(models) AS m FROM debates)
            UNION ALL SELECT 'protocol', p FROM (SELECT DISTINCT protocol AS p FROM debates)
            UNION ALL SELECT 'judge', j FROM (SELECT DISTINCT judge AS j FROM judgments
                                              UNION SELECT DISTINCT judge FROM verdicts)
            UNION ALL SELECT 'topic', t FROM (SELECT topic AS t FROM debates GROUP BY topic
                                              ORDER BY count(*) DESC, topic LIMIT ?)
            UNION ALL SELECT 'topics', count(DISTINCT topic)::VARCHAR FROM debates""",
            [list(master_protocols), topics],
        )

    def verdict_winners(self, ids: Sequence[str]) -> pd.DataFrame:
        """The verdicts of ``ids``: ``debate_id``, ``winner`` (a label or ``draw``) and ``name`` (the
        winning participant's name, when the debate names it); debates without a verdict are left out."""
        ids = list(ids)
        return self.query(
            """
            WITH p AS (SELECT d.id, x.p.label AS label, x.p.name AS name
                       FROM debates d, unnest(from_json(coalesce(d.participants, '[]'),
                            '[{"label":"VARCHAR","name":"VARCHAR"}]')) AS x(p)
                       WHERE d.id IN (SELECT unnest(?::VARCHAR[])))
            SELECT v.debate_id, v.winner, any_value(p.name) AS name
            FROM verdicts v LEFT JOIN p ON p.id = v.debate_id AND p.label = v.winner
            WHERE v.debate_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY ALL""",
            [ids, ids],
        )

    def table_columns(self) -> pd.DataFrame:
        """Every table and view of the archive with its columns: ``table_name``, ``cols`` ("name
        type, …" in column order), in no particular order."""
        return self.query("""
            SELECT table_name, string_agg(column_name || ' ' || lower(data_type), ', ' ORDER BY ordinal_position)
                   AS cols
            FROM information_schema.columns WHERE table_schema = 'main' GROUP BY table_name""")
