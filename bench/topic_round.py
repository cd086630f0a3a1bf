"""Benchmark: wall time of one 4-debater topic round when every model call takes 1 s.

How it is measured
------------------
* A :class:`~debate_core.engines.scripted_server.ScriptedServer` on 127.0.0.1 answers every
  chat completion with a valid envelope after ``Reply(delay=1.0)``: one second
  before the first byte, like a slow model.
* A topic debate is prepared with four given stances (no split call) and four
  distinct model strings, all pointing at that server through litellm.
* litellm is imported and one call is made before timing (import and client set-up
  excluded), then ``TopicDebate.play_round(debate, 1)`` — the four openings through
  ``Gateway.acomplete`` under ``asyncio.gather`` — is timed with
  ``time.perf_counter``.  Best and median of 5 runs are printed.

Sequential calls would take >= 4 s; the target is < 1.3 s.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate_core.engines.gateway import Gateway, litellm  # noqa: E402
from debate_core.models import DebateConfig  # noqa: E402
from debate_core import runs  # noqa: E402
from debate_core.engines.scripted_server import Reply, ScriptedServer  # noqa: E402

DELAY = 1.0
RUNS = 5
TARGET = 1.3


def script(body: dict) -> Reply:
    env = {"stance": "s", "arguments": [{"id": "A1", "point": "论点", "reasoning": "理由", "evidence": ""}],
           "rebuttals": [], "no_new_points": False}
    return Reply(text="```json\n" + json.dumps(env, ensure_ascii=False) + "\n```", delay=DELAY)


def main() -> int:
    t0 = time.perf_counter()
    litellm()
    import_s = time.perf_counter() - t0
    with ScriptedServer(script) as srv:
        Gateway(model="openai/warmup", api_base=srv.url, max_retries=0).complete([{"role": "user", "content": "hi"}])
        cfg = DebateConfig(protocol="topic", topic="四种立场的基准辩题", stances=["甲方", "乙方", "丙方", "丁方"],
                           models=[f"openai/bench-{i}" for i in range(4)], api_base=srv.url, timeout=10, max_retries=0)
        runner, debate = runs.start(cfg, probe=False)
        times = []
        for _ in range(RUNS):
            t = time.perf_counter()
            speeches = runner.play_round(debate, 1)
            times.append(time.perf_counter() - t)
            assert [s.status for s in speeches] == ["ok"] * 4, [s.warnings for s in speeches]
    best, median = min(times), statistics.median(times)
    print("bench/topic_round.py — one 4-debater topic round, each model call answered after "
          f"{DELAY:.1f} s by a scripted server on 127.0.0.1 (litellm import {import_s:.2f} s excluded, client warmed)")
    print(f"runs: {', '.join(f'{t:.3f}' for t in times)} s")
    print(f"best {best:.3f} s, median {median:.3f} s wall for 4 parallel debaters "
          f"(sequential would be >= {4 * DELAY:.1f} s); target < {TARGET} s: {'PASS' if median < TARGET else 'FAIL'}")
    return 0 if median < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
