"""Benchmark-archive research: import, ratings and judge analysis, the argument ledger.

Run:  python bench/benchmark_bench.py [--groups 750] [--judges 3] [--runs 5] [REAL_CHECKOUT]

What it does and how it measures (wall time with ``time.perf_counter`` around the library
calls the CLI and the app make; ``os.sched_getaffinity`` cores are printed):

1. Writes a synthetic checkout in the lechmazur/debate layout (``tests/benchmark_synth.py``:
   30 models, ``--groups`` side-swap groups of two debates, ``--judges`` judges per debate,
   transcripts of about 20 KB like the real ones) and imports it into a fresh archive with
   ``import_paths`` (parse every file, write every debate in one transaction, then the text
   index catches up).  Goal: 1,500 transcripts in under 60 s on 2 cores.
2. Adds groups until the archive holds at least 5,000 judge rows, then times, ``--runs``
   times after one warm-up, the whole judge analysis as the ``judges`` command runs it:
   the judgments frame from the archive, Bradley-Terry over side-swapped matchups with 200
   bootstrap resamples, the agreement matrix, side bias, margin distribution and the
   model-vs-model margin matrix.  Goal: under 1 s.
3. The ledger of one debate (``build_ledger``), for 50 debates: from the debate object, and
   with ``Archive.get_debate`` included.  Goal: under 50 ms.
4. With REAL_CHECKOUT (a clone of https://github.com/lechmazur/debate): imports it and prints
   the rank correlation of the fitted order with its published leaderboard.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from debate_core.analysis import judgments as J  # noqa: E402
from debate_core.analysis.ledger import build_ledger  # noqa: E402
from debate_core.archive import open_archive  # noqa: E402
from debate_core.io.importers import import_paths  # noqa: E402
from tests.benchmark_synth import write_benchmark  # noqa: E402


def timed(fn, runs: int) -> tuple[float, float]:
    fn()  # warm-up
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples), max(samples)


def analysis(arc) -> None:
    frame = J.judgments_frame(arc)
    names = J.model_names(arc)
    J.matchup_ratings(frame, names=names, bootstrap=200)
    J.agreement_matrix(frame)
    J.side_bias(frame)
    J.margin_distribution(frame)
    J.margin_matrix(frame, names=names)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("real", nargs="?", help="a lechmazur/debate checkout to import and compare with")
    ap.add_argument("--groups", type=int, default=750)
    ap.add_argument("--judges", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"# benchmark-archive bench — {cores} cores available, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="bm-bench-") as tmp:
        tmp = Path(tmp)
        t = time.perf_counter()
        info = write_benchmark(tmp / "checkout", models=30, groups=args.groups, judges=args.judges, seed=1)
        size = sum(p.stat().st_size for p in (tmp / "checkout" / "transcripts").glob("*.md"))
        print(f"synthetic checkout: {info['transcripts']} transcripts ({size / 1e6:.1f} MB), "
              f"{info['judgments']} judge rows, written in {time.perf_counter() - t:.1f} s")

        arc = open_archive(tmp / "bench.duckdb")
        t = time.perf_counter()
        results = import_paths(arc, [tmp / "checkout"])
        took = time.perf_counter() - t
        print(f"1. import: {len(results)} transcripts in {took:.1f} s "
              f"({took / len(results) * 1000:.1f} ms per transcript; goal < 60 s for 1,500) "
              f"{'✓' if took < 60 * len(results) / 1500 else '✗'}")
        t = time.perf_counter()
        again = import_paths(arc, [tmp / "checkout"])
        print(f"   again (idempotent): {sum(r.status == 'exists' for r in again)} exist, "
              f"{sum(r.status == 'imported' for r in again)} imported, in {time.perf_counter() - t:.1f} s")

        rows = info["judgments"]
        extra = 0
        while rows < 5000:
            more = write_benchmark(tmp / f"more{extra}", models=30, groups=100, judges=args.judges, seed=100 + extra,
                                   template=f"judge_more{extra}__debate_synth", paragraphs=1, words=20)
            import_paths(arc, [tmp / f"more{extra}"])
            rows += more["judgments"]
            extra += 1
        frame = J.judgments_frame(arc)
        med, worst = timed(lambda: analysis(arc), args.runs)
        print(f"2. ratings + agreement + side bias + margins over {len(frame)} judgments "
              f"({frame['debate_id'].nunique()} debates): median {med * 1000:.0f} ms, max {worst * 1000:.0f} ms "
              f"(goal < 1 s) {'✓' if med < 1 else '✗'}")
        ratings = J.matchup_ratings(frame, names=J.model_names(arc), bootstrap=0)
        order = sorted(info["strengths"], key=info["strengths"].get, reverse=True)
        import pandas as pd

        truth = pd.DataFrame({"model": order, "rank": range(1, len(order) + 1)})
        print(f"   fitted order vs the synthetic truth: {J.rank_agreement(ratings, truth)}")

        ids = [r.id for r in results[:50]]
        debates = [arc.get_debate(i) for i in ids]
        build = [timed(lambda d=d: build_ledger(d), 3)[0] for d in debates]
        full = [timed(lambda i=i: build_ledger(arc.get_debate(i)), 3)[0] for i in ids]
        claims = statistics.mean(len(build_ledger(d).claims) for d in debates)
        print(f"3. ledger of one debate ({claims:.0f} claims on average, 50 debates): build median "
              f"{statistics.median(build) * 1000:.2f} ms, max {max(build) * 1000:.2f} ms; with get_debate median "
              f"{statistics.median(full) * 1000:.1f} ms, max {max(full) * 1000:.1f} ms (goal < 50 ms) "
              f"{'✓' if max(full) < 0.05 else '✗'}")

        if args.real:
            real = open_archive(tmp / "real.duckdb")
            t = time.perf_counter()
            res = import_paths(real, [args.real])
            took = time.perf_counter() - t
            skipped = [r for r in res if r.status == "skipped"]
            frame = J.judgments_frame(real)
            table = J.matchup_ratings(frame, names=J.model_names(real), bootstrap=200)
            agree = J.rank_agreement(table, J.leaderboard(real))
            print(f"4. real checkout {args.real}: {len(res) - len(skipped)} transcripts imported in {took:.1f} s, "
                  f"{len(skipped)} files skipped, {len(frame)} judge rows; fitted order vs the published "
                  f"leaderboard over {agree['models']} models: Spearman {agree['spearman']}, "
                  f"Kendall {agree['kendall']}")
            med, _ = timed(lambda: analysis(real), args.runs)
            print(f"   judge analysis over the real judgments: median {med * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
