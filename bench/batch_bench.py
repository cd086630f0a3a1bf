"""Batch runner speed: orchestration overhead offline, and concurrency against a slow model.

Targets (issue 6):
* orchestration overhead: offline debates per second in a 100-debate batch at concurrency 8;
* with a scripted model that answers after 0.5 s, a batch at concurrency 8 is at least 6×
  faster than the same batch at concurrency 1.

Every figure is printed with how it was measured.  Archives are temporary DuckDB files.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TOPICS = [
    "禅宗顿悟和净土念佛，到底谁更直接？", "三论宗讲一切皆空，唯识宗讲万法唯识，二者怎么辩？",
    "宗喀巴应成中观和六祖顿悟，谁的见地更究竟？", "阿姜查讲戒律行持，马哈希讲直观内观，南传内部怎么辩？",
    "修行的下手处在哪里？", "烦恼即菩提，还是断烦恼证菩提？", "在家人修行，先持戒还是先开智慧？",
    "经典与体证，哪个更可靠？", "念佛与参禅能不能兼修？", "末法时代还能不能开悟？",
]
PAIRS = ["huineng vs yinguang", "kumarajiva vs xuanzang", "huineng vs zhiyi", "ajahn-chah vs mahasi-sayadaw",
         "ouyi vs yinguang"]


def offline_overhead() -> None:
    from debate_core.api import run_debate
    from debate_core.archive import open_archive
    from debate_core.batch import expand, load_spec, run_batch
    from debate_core.models import DebateConfig

    spec = {"batch_id": "bench-offline", "topics": TOPICS, "pairs": PAIRS, "swap": True, "concurrency": 8}
    cells = expand(load_spec(spec))
    assert len(cells) == 100, len(cells)
    run_batch({**spec, "batch_id": "warm-up", "topics": TOPICS[:1], "pairs": PAIRS[:1]}, None)  # imports, pack

    print("1. orchestration overhead: a 100-debate offline master-debate batch "
          "(10 topics × 5 pairs × both opening orders, 4 rounds each), concurrency 8")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        archive = open_archive(Path(tmp) / "bench.duckdb")
        t0 = time.perf_counter()
        result = run_batch(spec, archive)
        wall = time.perf_counter() - t0
        assert result.summary()["completed"] == 100, result.summary()
        assert archive.count_debates(batch_id="bench-offline") == 100
        rows.append(("batch → archive (default: whole debates, group commits)", wall))

        archive2 = open_archive(Path(tmp) / "bench-speech.duckdb")
        t0 = time.perf_counter()
        result = run_batch({**spec, "commit": "speech"}, archive2)
        rows.append(("batch → archive, commit: speech (every speech committed as it happens)",
                     time.perf_counter() - t0))
        assert result.summary()["completed"] == 100

        t0 = time.perf_counter()
        again = run_batch(spec, archive)
        resume_wall = time.perf_counter() - t0
        assert again.summary()["skipped"] == 100

    t0 = time.perf_counter()
    result = run_batch(spec, None)
    rows.append(("batch, no archive (grid + threads + engine only)", time.perf_counter() - t0))
    assert result.summary()["completed"] == 100
    t0 = time.perf_counter()
    for c in cells:
        run_debate(DebateConfig(topic=c.topic, masters=list(c.masters)))
    rows.append(("plain loop of api.run_debate, no batch, no archive (baseline)", time.perf_counter() - t0))
    for name, wall in rows:
        print(f"   {name:<78} {wall:6.2f} s  = {100 / wall:6.1f} debates/s")
    base = rows[-1][1]
    print(f"   batch machinery overhead vs the plain loop: {(rows[2][1] - base) / 100 * 1000:+.1f} ms per debate; "
          f"archive writes add {(rows[0][1] - rows[2][1]) / 100 * 1000:.1f} ms per debate")
    print(f"   rerunning the finished spec (100 cells looked up and skipped): {resume_wall:.2f} s")
    print("   measured: wall clock (time.perf_counter) around run_batch(spec, archive) in this process, after a "
          "warm-up batch (imports, pack load); offline engine, so the GIL-bound composition is the work")


def concurrency_speedup() -> None:
    from debate_core.archive import open_archive
    from debate_core.batch import run_batch
    from debate_core.content.packs import load_pack
    from debate_core.engines.scripted_server import Reply, ScriptedServer
    from tests.master_script import master_script

    pack = load_pack(REPO / "data" / "packs" / "default")
    inner = master_script(pack)
    delay = 0.5

    def slow(body):
        reply = inner(body)
        reply = Reply(text=reply) if isinstance(reply, str) else reply
        reply.delay = delay
        return reply

    spec = {"topics": TOPICS[:4], "pairs": PAIRS[:2], "swap": True, "rounds": 2, "models": ["openai/scripted-master"]}
    print(f"2. concurrency: 16 master debates (4 topics × 2 pairs × both orders, 2 rounds: 2 speeches + 2 summaries "
          f"+ 1 observation = 5 calls each) against a scripted model on 127.0.0.1 that answers after {delay} s")
    walls = {}
    with ScriptedServer(slow) as server, tempfile.TemporaryDirectory() as tmp:
        for conc in (1, 8):
            archive = open_archive(Path(tmp) / f"c{conc}.duckdb")
            s = {**spec, "batch_id": f"bench-c{conc}", "api_base": server.url, "concurrency": conc}
            n0 = len(server.requests)
            t0 = time.perf_counter()
            result = run_batch(s, archive)
            walls[conc] = time.perf_counter() - t0
            assert result.summary()["completed"] == 16, result.summary()
            calls = len(server.requests) - n0
            print(f"   concurrency {conc}: {walls[conc]:6.2f} s for 16 debates ({calls} model calls; "
                  f"serial floor {calls * delay:.0f} s, ideal at {conc}: {calls * delay / conc:.1f} s)")
    ratio = walls[1] / walls[8]
    print(f"   speed-up concurrency 8 vs 1: {ratio:.2f}×  (target ≥ 6×: {'met' if ratio >= 6 else 'NOT met'})")
    print("   measured: wall clock around run_batch(spec, archive) with the model served over real HTTP by "
          "debate_core.engines.scripted_server (Reply(delay=0.5)); litellm was imported before timing")


def main() -> None:
    offline_overhead()
    print()
    from debate_core.engines.gateway import litellm

    litellm()  # its import is not part of either timing
    concurrency_speedup()


if __name__ == "__main__":
    main()
