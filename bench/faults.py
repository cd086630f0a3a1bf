"""The fault matrix over real HTTP: each fault against a master debate with an archive.

For every case a scripted OpenAI-compatible server on 127.0.0.1 answers a 4-round
master debate (huineng vs yinguang) validly, except round 2's speech call, which
gets the fault: once (transient) or every time (persistent).  The debate streams
(as the app does) into a DuckDB archive in a temporary folder.  A debate that
stops in a failed state is continued with ``runs.retry`` (the failed
round alone) and then ``resume``, against the healed server.

Printed per case: the outcome of the first run, the gateway retries used (failed
calls in the archive), the rounds kept when it stopped, what continued it, the
Retry-After wait measured between the server's requests, and the data lost: rows
(speeches, summaries, model calls) that were saved before the fault and are gone or
changed afterwards.  That column must read ``none``.

Run: ``python bench/faults.py`` (about 20 s).  tests/test_faults.py runs the same
cases.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from debate_core import runs  # noqa: E402
from debate_core.engines.scripted_server import Reply, ScriptedServer  # noqa: E402

TOPIC = "禅宗顿悟和净土念佛，到底谁更直接？"
MASTERS = ["huineng", "yinguang"]
FAULT_ROUND = 2
MAX_RETRIES = 2  # gateway retries per call: 3 attempts in all
TIMEOUT = 1.0  # seconds; the slow fault waits longer than this before its first byte
BACKOFF = 0.02
RETRY_AFTER = 1  # seconds, in the 429's Retry-After header
LONG = "长篇大论，" * 4000  # 20,000 characters: forty times the 500-character limit


@dataclass
class Case:
    key: str
    label: str
    fault: Callable[[Reply], Reply]  # the good reply -> the faulty one
    times: Optional[int]  # None: every time
    stream: bool = True

    @property
    def scenario(self) -> str:
        return "persistent" if self.times is None else ("once" if self.times == 1 else f"{self.times}x")


CASES: list[Case] = [
    Case("429", "429 + Retry-After: 1", lambda good: Reply(status=429, headers={"Retry-After": str(RETRY_AFTER)},
                                                          error="rate limit reached, retry later"), 1),
    Case("429-hard", "429 + Retry-After: 1", lambda good: Reply(status=429, headers={"Retry-After": str(RETRY_AFTER)},
                                                               error="rate limit reached, retry later"), None),
    Case("500", "500 server error", lambda good: Reply(status=500, error="upstream exploded"), 1),
    Case("500-hard", "500 server error", lambda good: Reply(status=500, error="upstream exploded"), None),
    Case("reset", "connection reset", lambda good: Reply(reset=True), 1),
    Case("reset-hard", "connection reset", lambda good: Reply(reset=True), None),
    Case("cut", "stream cut mid-reply", lambda good: Reply(text=good.text, chunk_chars=16, cut_after=5), 1),
    Case("cut-hard", "stream cut mid-reply", lambda good: Reply(text=good.text, chunk_chars=16, cut_after=5), None),
    Case("empty", "empty completion", lambda good: Reply(text=""), 1),
    Case("empty-hard", "empty completion", lambda good: Reply(text=""), None),
    Case("long", "reply 40x over length", lambda good: Reply(text=LONG, chunk_chars=2000), None),
    Case("slow", "first token > timeout", lambda good: Reply(text=good.text, delay=TIMEOUT + 0.6), 1),
    Case("slow-hard", "first token > timeout", lambda good: Reply(text=good.text, delay=TIMEOUT + 0.6), None),
]
CASES_BY_KEY = {c.key: c for c in CASES}


class FaultPlan:
    """A server script: the valid master script, with the fault on round 2's speech call."""

    def __init__(self, pack, case: Case):
        from tests.master_script import master_script

        self.good = master_script(pack)
        self.case = case
        self.hits = 0
        self.healed = False
        self.arrivals: list[tuple[float, bool]] = []  # round-2 speech requests: (time, got the fault)
        self._lock = threading.Lock()

    @staticmethod
    def is_target(body: dict) -> bool:
        msgs = body.get("messages") or []
        return (len(msgs) >= 2 and "你扮演" in str(msgs[0].get("content"))
                and f"这是第 {FAULT_ROUND} 轮" in str(msgs[1].get("content")))

    def heal(self) -> None:
        self.healed = True

    def __call__(self, body: dict):
        reply = self.good(body)
        if isinstance(reply, str):
            reply = Reply(text=reply)
        if not self.is_target(body):
            return reply
        with self._lock:
            faulted = not self.healed and (self.case.times is None or self.hits < self.case.times)
            self.arrivals.append((time.monotonic(), faulted))
            if not faulted:
                return reply
            self.hits += 1
        return self.case.fault(reply)

    def waits_after_faults(self) -> list[float]:
        """Seconds between a faulted request and the client's next attempt (before healing)."""
        return [b[0] - a[0] for a, b in zip(self.arrivals, self.arrivals[1:]) if a[1]]


@dataclass
class Row:
    case: Case
    first_status: str = ""
    first_reason: str = ""
    failed_calls: int = 0  # model calls of the first run that failed (from the archive)
    rounds_kept: int = 0
    planned: int = 0
    continued: str = "—"
    final_status: str = ""
    wait_s: Optional[float] = None
    waits: list[float] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    seconds: float = 0.0
    debate_id: str = ""
    archive: str = ""

    @property
    def outcome(self) -> str:
        if self.first_status == "completed":
            if self.flagged:
                return f"completed; R{FAULT_ROUND} kept after the check retries, flagged: {', '.join(self.flagged)}"
            return "recovered"
        return f"{self.first_status}: {self.first_reason}"

    @property
    def retries(self) -> str:
        """Retries the gateway made: every failed call was retried, except the last of a debate that stopped."""
        if self.first_status == "failed":
            return f"{self.failed_calls - 1} (then gave up: {self.failed_calls} attempts failed)"
        return str(self.failed_calls)

    @property
    def data_lost(self) -> str:
        return "none" if not self.lost else "; ".join(self.lost)


def _rows(archive, debate_id: str) -> dict[str, dict]:
    """Everything saved for a debate, keyed so that a later snapshot can be compared row by row."""
    out: dict[str, dict] = {}
    for table, key in (("speeches", ("round", "speaker", "status")), ("summaries", ("round", "speaker")),
                       ("llm_calls", ("seq",))):
        df = archive.debate_rows(table, debate_id)
        for rec in df.to_dict("records"):
            out[table + ":" + "/".join(str(rec[k]) for k in key)] = {k: str(v) for k, v in rec.items()}
    return out


def run_case(case: Case, pack, workdir: Path, *, quiet_server: bool = True) -> Row:
    """One fault against one debate; returns its row (see the module docstring)."""
    from debate_core.archive import open_archive
    from debate_core.engines.gateway import Gateway
    from debate_core.engines.llm import LLMEngine
    from debate_core.models import DebateConfig
    from debate_core.protocols.master import MasterDebate

    row = Row(case=case)
    t0 = time.monotonic()
    plan = FaultPlan(pack, case)
    with ScriptedServer(plan) as srv:
        if quiet_server:  # a client that timed out makes the server's write fail: expected, not news
            srv._httpd.handle_error = lambda *a, **k: None  # noqa: SLF001
        path = workdir / f"faults-{case.key}.duckdb"
        archive = open_archive(path)
        config = DebateConfig(topic=TOPIC, masters=MASTERS, model="openai/scripted-faults", api_base=srv.url,
                              max_retries=MAX_RETRIES, timeout=TIMEOUT, pack=str(Path(pack.path)))
        gw = Gateway(model=config.model, api_base=srv.url, timeout=TIMEOUT, max_retries=MAX_RETRIES,
                     backoff=BACKOFF)
        md = MasterDebate(pack, LLMEngine(gw), recorder=archive)
        debate = md.prepare(config)
        tokens: list[str] = []
        debate = md.run(debate, on_token=tokens.append if case.stream else None)
        row.debate_id, row.archive, row.planned = debate.id, str(path), debate.planned_rounds
        row.first_status, row.first_reason = debate.status, debate.stop_reason
        row.rounds_kept = len([s for s in debate.rounds if s.status != "failed"])
        before = _rows(archive, debate.id)
        saved = archive.get_debate(debate.id)
        row.failed_calls = sum(1 for c in saved.llm_calls if c.error)
        target = [s for s in saved.rounds if s.round == FAULT_ROUND and s.status != "failed"]
        row.flagged = target[0].failed_rules if target else []
        first_waits = plan.waits_after_faults()
        if debate.status == "failed":
            plan.heal()
            steps = []
            d = runs.retry(archive, debate.id)
            steps.append(f"retry: {d.status}")
            if d.status == "interrupted":
                d = runs.resume(archive, debate.id)
                steps.append(f"resume: {d.status}")
            row.continued = ", ".join(steps)
        row.waits = first_waits
        final = archive.get_debate(debate.id)
        row.final_status = final.status
        after = _rows(archive, debate.id)
        for key, old in before.items():
            if key.startswith("speeches:") and key.endswith("/failed"):
                continue  # the failed placeholder is what retry replaces
            if after.get(key) != old:
                row.lost.append(key + (" changed" if key in after else " missing"))
        if final.status == "completed" and len([s for s in final.rounds if s.status != "failed"]) != final.planned_rounds:
            row.lost.append("completed without every round")
        if case.key.startswith("429") and first_waits:
            row.wait_s = min(first_waits)
    row.seconds = time.monotonic() - t0
    return row


def run_matrix(cases: Optional[list[Case]] = None, workdir: Optional[Path] = None) -> list[Row]:
    from debate_core.content.packs import DEFAULT_PACK, load_pack

    pack = load_pack(DEFAULT_PACK)
    cases = cases or CASES
    if workdir is not None:
        return [run_case(c, pack, workdir) for c in cases]
    with tempfile.TemporaryDirectory(prefix="faults-") as tmp:
        return [run_case(c, pack, Path(tmp)) for c in cases]


def table(rows: list[Row]) -> str:
    head = ["fault", "hits", "first run", "retries used", "rounds kept", "continued by", "final", "Retry-After wait",
            "data lost"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        outcome = r.outcome
        kept = f"{r.rounds_kept}/{r.planned}"
        wait = f"{r.wait_s:.2f} s (asked {RETRY_AFTER} s)" if r.wait_s is not None else "—"
        cells = [r.case.label, r.case.scenario, outcome, r.retries, kept, r.continued, r.final_status, wait,
                 r.data_lost]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)


def main() -> int:
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ["DEBATE_BACKOFF"] = str(BACKOFF)  # runs.retry builds its own gateway
    t0 = time.monotonic()
    rows = run_matrix()
    print(f"fault matrix: 4-round master debate, fault on round {FAULT_ROUND}'s speech call, streaming, "
          f"max_retries={MAX_RETRIES}, timeout={TIMEOUT:g} s, backoff={BACKOFF:g} s")
    print(table(rows))
    lost = [r for r in rows if r.lost]
    print(f"{len(rows)} cases in {time.monotonic() - t0:.1f} s; data lost in {len(lost)} case(s)")
    return 1 if lost or any(r.final_status != "completed" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
