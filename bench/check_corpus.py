"""Rule corpus figures: per rule, the violations it catches and the traps it flags.

    python bench/check_corpus.py [--corpus DIR] [--pack DIR] [--json]

Runs every rule (debate_core.checks.run_checks) on a corpus — by default tests/fixtures/check_corpus
(our own speeches on the default pack: violations that each break one rule, traps that break
none); ``--corpus DIR`` reads another directory in the same layout — and prints, per rule,
``caught / total`` violations meant for it, the traps it flags, other rules' violations it also
fails (collateral), and its precision (caught / everything it flagged, traps and collateral
included) and recall (caught / total).  Also the time run_checks takes per
speech on this machine (informational; no target is asserted here).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from debate_core.checks import RULES, run_checks  # noqa: E402
from debate_core.content.packs import load_pack  # noqa: E402
from tests.check_corpus_support import CORPUS, context, load_corpus  # noqa: E402


def _ratio(a: int, b: int):
    return round(a / b, 3) if b else None


def _fmt(x) -> str:
    return "—" if x is None else f"{x:.2f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", default=str(ROOT / "data" / "packs" / "default"))
    ap.add_argument("--corpus", default=str(CORPUS), help="a corpus directory (default: %(default)s)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    pack = load_pack(args.pack)
    cases = load_corpus(Path(args.corpus))
    total, caught, traps_flagged, collateral = Counter(), Counter(), Counter(), Counter()
    missed, false_alarms = [], []
    runs = []
    for c in cases:
        ctx = context(c, pack)
        t0 = time.perf_counter()
        findings = run_checks(c.text, ctx)
        runs.append(time.perf_counter() - t0)
        failed = {f.rule for f in findings if not f.passed}
        if c.kind == "violation":
            total[c.rule] += 1
            if c.rule in failed:
                caught[c.rule] += 1
            else:
                missed.append(c.id)
            for r in failed - {c.rule} - set(c.also):
                collateral[r] += 1
        else:
            for r in failed:
                traps_flagged[r] += 1
                false_alarms.append(f"{c.id}:{r}")
    n_traps = sum(1 for c in cases if c.kind == "trap")
    ms = sorted(runs)[len(runs) // 2] * 1000
    rows = [{"rule": r, "caught": caught[r], "total": total[r], "traps_flagged": traps_flagged[r],
             "collateral": collateral[r], "precision": _ratio(caught[r], caught[r] + traps_flagged[r] + collateral[r]),
             "recall": _ratio(caught[r], total[r])} for r in RULES]
    if args.json:
        print(json.dumps({"rules": rows, "traps": n_traps, "missed": missed, "false_alarms": false_alarms,
                          "median_ms_per_speech": round(ms, 2)}, ensure_ascii=False, indent=2))
    else:
        print(f"corpus: {args.corpus}")
        print(f"{'rule':<12} {'caught':>9} {'traps flagged':>14} {'collateral':>11} {'precision':>10} {'recall':>7}")
        for r in rows:
            print(f"{r['rule']:<12} {r['caught']:>4} / {r['total']:<3} {r['traps_flagged']:>8} / {n_traps:<4}"
                  f" {r['collateral']:>8} {_fmt(r['precision']):>10} {_fmt(r['recall']):>7}")
        print(f"violations: {sum(caught.values())} / {sum(total.values())} caught; traps flagged: "
              f"{len(false_alarms)} of {n_traps}; run_checks median {ms:.1f} ms per speech")
        if missed:
            print("missed:", ", ".join(missed))
        if false_alarms:
            print("false alarms:", ", ".join(false_alarms))
    return 0 if not missed and not false_alarms else 1


if __name__ == "__main__":
    raise SystemExit(main())
