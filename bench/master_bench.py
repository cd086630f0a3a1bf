"""Offline master debate: speed, and whether each debate says only what its plans hold.

Run: ``python bench/master_bench.py [--quick] [--show N] [--topics FILE]``.  A script, not a test: it
prints figures.

1. Speed.  A 4-round offline debate (pair choice, plans, 4 checked rounds, summaries, observation,
   render) timed in-process with ``time.perf_counter`` around ``run_debate``: once in a fresh
   interpreter (imports and pack load included), then the median of 10 runs with the pack
   re-loaded each time and of 20 runs with the pack cached.  Target: median under 0.5 s.
2. Content.  Over the development topics (tests/fixtures/topics/dev.txt; ``--topics`` for another
   list) routed on the default pack and, when ../shared/reference exists, on the upstream
   Master-skill pack (its derived layer), it counts per debate the faults of
   ``debate_core.analysis.plan_audit`` (self-descriptions without a plan entry, citations to a
   source the text did not come from, words of a critique aimed at an absent master, restated
   points left without an answer or an admission, plans off the debate's theme or a missing
   declaration), the speeches failing a deterministic check and by which rule, how many speeches
   had full, thin or no material, and which pairs routing chose.  Target: 0 faults.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
UPSTREAM = REPO.parent / "shared" / "reference" / "master-skill" / "prebuilt"
SPEED_TOPIC = "禅宗顿悟和净土念佛，到底谁更直接？"
DEV_TOPICS = REPO / "tests" / "fixtures" / "topics" / "dev.txt"


def topics_of(path: Path) -> list[str]:
    return [t.strip() for t in path.read_text(encoding="utf-8").splitlines() if t.strip() and not t.startswith("#")]


def one_debate(cold: bool) -> float:
    from debate_core.api import run_debate
    from debate_core.content.packs import _cached_pack
    from debate_core.models import DebateConfig
    from debate_core.protocols.registry import render as render_markdown

    if cold:
        _cached_pack.cache_clear()
    t0 = time.perf_counter()
    d = run_debate(DebateConfig(topic=SPEED_TOPIC, rounds=4))
    render_markdown(d)
    assert d.status == "completed" and len(d.rounds) == 4
    return time.perf_counter() - t0


def speed() -> None:
    first = one_debate(cold=True)
    cold = [one_debate(cold=True) for _ in range(10)]
    warm = [one_debate(cold=False) for _ in range(20)]
    print("speed: offline 4-round master debate, time.perf_counter around run_debate + render, in-process")
    print(f"  first in a fresh interpreter (imports + pack load): {first * 1000:.0f} ms")
    # the target (issue 22: under 0.5 s) is judged on each line: the app and a CLI session keep the pack
    # cached (the usual case); a reload is what a fresh process pays once
    def verdict(xs: list[float]) -> str:
        return "met" if statistics.median(xs) < 0.5 else "MISSED"

    print(f"  pack re-loaded each run: median {statistics.median(cold) * 1000:.1f} ms over 10 runs "
          f"(target < 500 ms: {verdict(cold)})")
    print(f"  pack cached: median {statistics.median(warm) * 1000:.1f} ms over 20 runs "
          f"(target < 500 ms: {verdict(warm)})")
    print(f"  load average while measured: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


def content(pack_path, label: str, topics: list[str], show: int = 0) -> dict:
    from debate_core.analysis.plan_audit import all_faults
    from debate_core.content.packs import load_pack
    from debate_core.engines.offline import OfflineEngine
    from debate_core.models import DebateConfig
    from debate_core.protocols.master import MasterDebate
    from debate_core.protocols.registry import render as render_markdown

    pack = load_pack(pack_path)
    totals: Counter = Counter()
    failed_rules: Counter = Counter()
    material: Counter = Counter()
    pairs: Counter = Counter()
    examples: list[str] = []
    for i, topic in enumerate(topics):
        md = MasterDebate(pack, OfflineEngine(pack))
        d = md.run(md.prepare(DebateConfig(topic=topic)))
        totals["debates"] += 1
        pairs["-".join(p.label for p in d.participants)] += 1
        faults = all_faults(d, pack)
        totals["faults"] += len(faults)
        totals["debates with a fault"] += bool(faults)
        examples += [f"{topic}: {f}" for f in faults[:2]]
        for s in d.rounds:
            totals["speeches"] += 1
            material[s.plan.material if s.plan else "no plan"] += 1
            if s.status != "ok":
                totals["speeches failing a check"] += 1
                failed_rules.update(f.rule for f in s.findings if not f.passed)
        if i < show:
            print(render_markdown(d))
    print(f"content on pack {label} ({pack.name}): {totals['debates']} debates, {totals['speeches']} speeches")
    print(f"  plan faults: {totals['faults']} in {totals['debates with a fault']} debates (target 0)")
    for e in examples[:8]:
        print(f"    {e}")
    print(f"  speeches failing a check: {totals['speeches failing a check']} {dict(failed_rules) or ''}")
    print(f"  material per speech: {dict(material)}")
    print(f"  pairs chosen: {len(pairs)} distinct; most often {pairs.most_common(3)}")
    return dict(totals)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="content only, no timing")
    ap.add_argument("--speed", action="store_true", help="timing only, no content")
    ap.add_argument("--show", type=int, default=0, help="print the first N debates in full")
    ap.add_argument("--topics", type=Path, default=DEV_TOPICS, help="a topic list, one a line (# comments)")
    args = ap.parse_args()
    if not args.quick:
        speed()
    if args.speed:
        return
    topics = topics_of(args.topics)
    content(None, "default", topics, args.show)
    if UPSTREAM.is_dir():
        content(UPSTREAM, "upstream", topics, args.show)
    else:
        print("upstream pack not found; skipped")


if __name__ == "__main__":
    main()
