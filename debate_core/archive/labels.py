"""The argument ledger's model labels, cached per debate and model (``ledger ID --model M``).

A labelling run is stored under a ``key`` naming what the model was shown (the prompt version and
the debate's claims, :func:`debate_core.analysis.ledger_model.labels_key`): a later run with the
same model and the same key reads the labels back instead of asking the model again; a changed
prompt or debate makes a new key, and saving it replaces the debate's older labels from that model.
Rewriting or deleting a debate drops its labels (they are debate tables).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from debate_core.archive.parts import ArchiveParts
from debate_core.archive.values import now

_LABEL_COLUMNS = ("source", "target", "kind")


class LedgerLabels(ArchiveParts):
    """Reads and writes of the label cache (a mixin of :class:`~debate_core.archive.Archive`)."""

    def ledger_labels(self, debate_id: str, model: str, key: str) -> list[dict[str, str]] | None:
        """The labels ``model`` gave the debate under ``key`` ([{source, target, kind}], in order),
        or None when it has not labelled this version of the debate."""
        with self._session() as con:
            run = con.execute(
                "SELECT labels FROM ledger_label_runs WHERE debate_id = ? AND model = ? AND key = ?",
                [debate_id, model, key],
            ).fetchone()
            if run is None:
                return None
            rows = con.execute(
                "SELECT source, target, kind FROM ledger_labels "
                "WHERE debate_id = ? AND model = ? AND key = ? ORDER BY ord",
                [debate_id, model, key],
            ).fetchall()
        return [dict(zip(_LABEL_COLUMNS, r, strict=True)) for r in rows]

    def save_ledger_labels(
        self,
        debate_id: str,
        model: str,
        key: str,
        labels: list[dict[str, Any]],
        *,
        calls: int = 0,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        cost: float = 0.0,
    ) -> None:
        """Store one labelling run (replacing the debate's earlier labels from ``model``), in one
        transaction.  ``KeyError`` for a debate the archive does not hold."""
        with self._session(write=True) as con:
            if con.execute("SELECT 1 FROM debates WHERE id = ?", [debate_id]).fetchone() is None:
                raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
            con.execute("DELETE FROM ledger_labels WHERE debate_id = ? AND model = ?", [debate_id, model])
            con.execute("DELETE FROM ledger_label_runs WHERE debate_id = ? AND model = ?", [debate_id, model])
            for i, lab in enumerate(labels):
                con.execute(
                    "INSERT INTO ledger_labels (debate_id, model, key, ord, source, target, kind) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        debate_id,
                        model,
                        key,
                        i,
                        str(lab.get("source", "")),
                        str(lab.get("target", "")),
                        str(lab.get("kind") or "engages"),
                    ],
                )
            con.execute(
                "INSERT INTO ledger_label_runs (debate_id, model, key, labels, calls, prompt_tokens, "
                "completion_tokens, cost, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [debate_id, model, key, len(labels), calls, prompt_tokens, completion_tokens, cost, now()],
            )

    def ledger_label_runs(self, debate_id: str | None = None) -> pd.DataFrame:
        """The labelling runs stored (of one debate, or all): debate, model, labels, calls, tokens, cost."""
        where, params = ("WHERE debate_id = ?", [debate_id]) if debate_id else ("", [])
        return self.query(
            "SELECT debate_id, model, key, labels, calls, prompt_tokens, completion_tokens, cost, "
            f"created_at FROM ledger_label_runs {where} ORDER BY created_at, debate_id, model",
            params,
        )
