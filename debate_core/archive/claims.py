"""Batch cell claims: a run of a batch spec claims each cell in the archive's write transaction
before it runs it, so two runs of one spec at once share the cells instead of running each twice.

A claim row (table ``batch_claims``, migration v12) names the run (a random id), its process
(pid, host, process start time) and a heartbeat.  A claim holds while its holder is alive:

* a run of this process: while the run is going (:data:`_LIVE_RUNS`);
* another process on this host: while that process (same pid and start time) is running;
* another host: while its heartbeat is younger than :data:`CLAIM_LEASE` (a run beats every
  :data:`CLAIM_BEAT` seconds).

A claim whose holder is gone (killed, crashed) is taken over by the next run that asks for the
cell.  A run releases its claims when it ends.  The cell's archived debates are read in the same
transaction, so a cell another run finished in the meantime is seen finished, never run again.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from debate_core.archive.connection import process_alive, writer_identity
from debate_core.archive.parts import ArchiveParts
from debate_core.archive.values import now

CLAIM_LEASE = timedelta(minutes=2)  # a claim from another host lapses when its heartbeat is older than this
CLAIM_BEAT = 20.0  # seconds between a run's heartbeats on its claims

_LIVE_RUNS: set[str] = set()  # run ids of this process's runs that hold claims
_LIVE_LOCK = threading.Lock()


@dataclass
class CellClaim:
    """What :meth:`BatchClaims.claim_cells` found for one cell."""

    cell: str
    claimed: bool  # this run holds the cell now
    debates: list[tuple[str, str, Any]] = field(default_factory=list)  # (id, status, created_at), newest first
    holder: str | None = None  # another live run holds it: "process 123 on host-a"


def _describe(pid: Any, host: Any) -> str:
    return f"process {pid} on {host}"


class BatchClaims(ArchiveParts):
    """The claim methods of :class:`~debate_core.archive.Archive` (``_session`` comes from its connection)."""

    path: Path

    @staticmethod
    def _claim_alive(run_id: str, pid: Any, host: Any, start: Any, beat: Any) -> bool:
        with _LIVE_LOCK:
            if run_id in _LIVE_RUNS:
                return True
        if host == socket.gethostname():
            if pid == os.getpid():
                return False  # a run of this process that is over (it failed to release)
            return process_alive(pid, start)
        return beat is not None and now() - beat <= CLAIM_LEASE

    def claim_cells(
        self,
        batch_id: str,
        cells: Sequence[str],
        run_id: str,
        want: Callable[[list[tuple[str, str, Any]]], bool],
        *,
        sep: str = "#",
    ) -> list[CellClaim]:
        """Claim ``cells`` of ``batch_id`` for run ``run_id``, in one write transaction.

        For each cell: when another live run holds it, it is not claimed (``holder`` says who);
        else its archived debates (tagged ``<batch_id><sep><cell>``) are read and ``want(debates)``
        decides whether this run takes it.  A claim of a dead holder is replaced or dropped."""
        cells = list(dict.fromkeys(cells))
        if not cells:
            return []
        with _LIVE_LOCK:
            _LIVE_RUNS.add(run_id)
        pid, host, start = writer_identity()  # this process's, even when the archive object was made before a fork
        tags = [f"{batch_id}{sep}{c}" for c in cells]
        out: list[CellClaim] = []
        with self._session(write=True) as con:
            held = {
                r[0]: r[1:]
                for r in con.execute(
                    "SELECT cell, run_id, writer_pid, writer_host, writer_start, heartbeat_at FROM batch_claims "
                    "WHERE batch_id = ? AND list_contains(?, cell)",
                    [batch_id, cells],
                ).fetchall()
            }
            found: dict[str, list[tuple[str, str, Any]]] = {}
            for tag, debate_id, status, created in con.execute(
                # a run stamps its batch id on every debate it creates: the plain column finds them fast
                "SELECT json_extract_string(config, '$.batch_id') AS tag, id, status, created_at FROM debates "
                "WHERE batch_id = ? AND list_contains(?, json_extract_string(config, '$.batch_id')) "
                "ORDER BY created_at DESC, id",
                [batch_id, tags],
            ).fetchall():
                found.setdefault(tag, []).append((debate_id, status, created))
            drop: list[str] = []
            take: list[str] = []
            for cell, tag in zip(cells, tags, strict=True):
                h = held.get(cell)
                if h is not None and h[0] != run_id and self._claim_alive(*h):
                    out.append(CellClaim(cell, False, found.get(tag, []), _describe(h[1], h[2])))
                    continue
                debates = found.get(tag, [])
                if h is not None and h[0] == run_id:
                    out.append(CellClaim(cell, True, debates))
                    continue
                if h is not None:
                    drop.append(cell)  # its holder is gone
                if want(debates):
                    take.append(cell)
                    out.append(CellClaim(cell, True, debates))
                else:
                    out.append(CellClaim(cell, False, debates))
            if drop:
                con.execute("DELETE FROM batch_claims WHERE batch_id = ? AND list_contains(?, cell)", [batch_id, drop])
            at = now()
            for i in range(0, len(take), 200):
                part = take[i : i + 200]
                con.execute(
                    "INSERT INTO batch_claims (batch_id, cell, run_id, writer_pid, writer_host, writer_start, "
                    "claimed_at, heartbeat_at) VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?)"] * len(part)),
                    [v for c in part for v in (batch_id, c, run_id, pid, host, start, at, at)],
                )
        return out

    def beat_claims(self, run_id: str) -> None:
        """Refresh the heartbeat of run ``run_id``'s claims (what keeps them from lapsing on other hosts)."""
        with self._session(write=True) as con:
            con.execute("UPDATE batch_claims SET heartbeat_at = ? WHERE run_id = ?", [now(), run_id])

    def release_claims(self, run_id: str) -> None:
        """Drop run ``run_id``'s claims (the run is over)."""
        with _LIVE_LOCK:
            _LIVE_RUNS.discard(run_id)
        with self._session(write=True) as con:
            con.execute("DELETE FROM batch_claims WHERE run_id = ?", [run_id])

    def live_claims(self, batch_id: str) -> dict[str, str]:
        """The cells of ``batch_id`` that live runs hold now: cell → who (``process 123 on host-a``)."""
        with self._session() as con:
            rows = con.execute(
                "SELECT cell, run_id, writer_pid, writer_host, writer_start, heartbeat_at "
                "FROM batch_claims WHERE batch_id = ?",
                [batch_id],
            ).fetchall()
        return {r[0]: _describe(r[2], r[3]) for r in rows if self._claim_alive(*r[1:])}


__all__ = ["BatchClaims", "CellClaim", "CLAIM_BEAT", "CLAIM_LEASE"]
