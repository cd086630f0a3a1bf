"""Reporting a batch: each cell's result, the live progress bar on stderr, and the summary report."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

from debate_core.batch.grid import Cell


@dataclass
class CellResult:
    cell: Cell
    status: str  # completed, failed, stopped, interrupted, error, skipped, busy, cancelled
    debate_id: str | None = None
    reason: str = ""
    resumed: bool = False
    seconds: float = 0.0

    def as_row(self) -> dict[str, Any]:
        row = self.cell.as_row()
        row.update(
            status=self.status,
            debate_id=self.debate_id,
            reason=self.reason,
            resumed=self.resumed,
            seconds=round(self.seconds, 3),
        )
        return row


@dataclass
class BatchResult:
    batch_id: str
    protocol: str
    results: list[CellResult] = field(default_factory=list)
    elapsed: float = 0.0
    archive: str | None = None
    audit: Any = None  # an audit.AuditReport when the spec asked for one

    def count(self, *statuses: str) -> int:
        return sum(1 for r in self.results if r.status in statuses)

    @property
    def ok(self) -> bool:
        """Every cell done: completed here, skipped (done before), or left to another live run of the spec."""
        return all(r.status in ("completed", "skipped", "busy") for r in self.results)

    @property
    def debate_ids(self) -> list[str]:
        return [r.debate_id for r in self.results if r.debate_id]

    def frame(self):
        import pandas as pd

        return pd.DataFrame([r.as_row() for r in self.results])

    def summary(self) -> dict[str, Any]:
        ran = [r for r in self.results if r.status not in ("skipped", "busy", "cancelled")]
        return {
            "batch_id": self.batch_id,
            "protocol": self.protocol,
            "archive": self.archive,
            "cells": len(self.results),
            "completed": self.count("completed"),
            "skipped": self.count("skipped"),
            "resumed": sum(1 for r in self.results if r.resumed),
            "failed": self.count("failed"),
            "errors": self.count("error"),
            "stopped": self.count("stopped", "interrupted", "cancelled"),
            "busy": self.count("busy"),
            "ran": len(ran),
            "elapsed_s": round(self.elapsed, 2),
            "debates_per_s": round(len(ran) / self.elapsed, 2) if self.elapsed > 0 and ran else 0.0,
        }

    def to_markdown(self) -> str:
        s = self.summary()
        lines = [
            f"# batch {self.batch_id} ({self.protocol})",
            "",
            f"- cells: {s['cells']} — completed {s['completed']} (resumed {s['resumed']}), skipped "
            f"{s['skipped']}, failed {s['failed']}, errors {s['errors']}, stopped {s['stopped']}"
            + (f", running elsewhere {s['busy']}" if s["busy"] else ""),
            f"- wall time: {s['elapsed_s']} s ({s['debates_per_s']} debates/s)",
        ]
        if self.archive:
            lines.append(f"- archive: {self.archive}")
        elsewhere: dict[str, int] = {}
        for r in self.results:
            if r.status == "busy":
                elsewhere[r.reason] = elsewhere.get(r.reason, 0) + 1
        for why, n in elsewhere.items():
            lines.append(f"- {n} cell{'s were' if n != 1 else ' was'} run by another process, not here: {why}")
        bad = [r for r in self.results if r.status in ("failed", "error", "stopped", "interrupted")]
        if bad:
            lines += ["", "| cell | debate | status | reason |", "| --- | --- | --- | --- |"]
            for r in bad:
                reason = r.reason.replace("|", "\\|").replace("\n", " ")[:160]
                lines.append(f"| {r.cell.describe()} | {r.debate_id or '—'} | {r.status} | {reason} |")
        if self.audit is not None:
            lines += ["", self.audit.to_markdown()]
        return "\n".join(lines) + "\n"


class Bar:
    """A rich progress bar with ETA on stderr (or nothing)."""

    def __init__(self, total: int, batch_id: str, enabled: bool | str):
        self.total = total
        self.enabled = bool(enabled)
        self.stats = {"ok": 0, "failed": 0, "skipped": 0, "elsewhere": 0}
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self.batch_id = batch_id

    def __enter__(self) -> Bar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            console = Console(stderr=True)
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[stats]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=console,
                refresh_per_second=4,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(f"batch {self.batch_id}", total=self.total, stats=self._stats())
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def _stats(self) -> str:
        text = f"ok {self.stats['ok']} · failed {self.stats['failed']} · skipped {self.stats['skipped']}"
        return text + (f" · elsewhere {self.stats['elsewhere']}" if self.stats["elsewhere"] else "")

    def done(self, r: CellResult) -> None:
        if r.status == "completed":
            self.stats["ok"] += 1
        elif r.status == "skipped":
            self.stats["skipped"] += 1
        elif r.status == "busy":
            self.stats["elsewhere"] += 1
        elif r.status not in ("cancelled",):
            self.stats["failed"] += 1
        if self._progress is not None:
            if r.status in ("failed", "error"):
                self._progress.console.print(
                    f"[red]✗[/red] {r.cell.describe()} ({r.debate_id or 'no debate'}): {r.reason[:200]}",
                    markup=True,
                    highlight=False,
                )
            if self._task is not None:  # (set with the bar)
                self._progress.update(self._task, advance=1, stats=self._stats())

    def note(self, text: str) -> None:
        if self._progress is not None:
            self._progress.console.print(text, markup=False, highlight=False)
        elif self.enabled:
            sys.stderr.write(text + "\n")
