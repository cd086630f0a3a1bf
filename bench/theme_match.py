"""How well everyday questions map onto the argument-layer themes (figures only, no asserts).

Reads tests/fixtures/topics/theme_dev.tsv (question<TAB>theme_id[,theme_id2]), runs
:func:`debate_core.content.themes.match_themes` on each question against the default pack's themes,
and prints: the questions that match no theme, top-1 accuracy (the top theme is one of the expected
ids), the top-3 hit rate, and every miss with the words that matched.

    .venv/bin/python bench/theme_match.py [--file PATH] [--quiet]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from debate_core.content.arguments import load_themes  # noqa: E402
from debate_core.content.themes import match_themes  # noqa: E402

DEV = REPO / "tests" / "fixtures" / "topics" / "theme_dev.tsv"


def read_cases(path: Path) -> list[tuple[str, list[str]]]:
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        q, _, ids = line.partition("\t")
        expected = [x.strip() for x in ids.split(",") if x.strip()]
        if not expected:
            print(f"{path.name}:{n}: no expected theme; skipped", file=sys.stderr)
            continue
        cases.append((q.strip(), expected))
    return cases


def _fmt(m) -> str:
    return f"{m.theme}({m.score}:{'/'.join(m.terms)})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=DEV)
    ap.add_argument("--quiet", action="store_true", help="figures only, no list of misses")
    args = ap.parse_args(argv)

    themes = load_themes()
    ids = {t.id for t in themes}
    cases = read_cases(args.file)
    unknown = sorted({e for _q, exp in cases for e in exp if e not in ids})
    if unknown:
        print(f"unknown theme ids in {args.file.name}: {', '.join(unknown)}", file=sys.stderr)

    none, top1, top3 = [], 0, 0
    misses = []
    wrong_top: Counter[str] = Counter()
    for q, expected in cases:
        ms = match_themes(q, themes)
        if not ms:
            none.append((q, expected))
            continue
        if ms[0].theme in expected:
            top1 += 1
        else:
            wrong_top[ms[0].theme] += 1
            misses.append((q, expected, ms))
        if any(m.theme in expected for m in ms[:3]):
            top3 += 1

    n = len(cases)
    pct = (lambda k: f"{k}/{n} = {100.0 * k / n:.1f}%") if n else (lambda k: "0/0")
    kw = sum(len(t.keywords) for t in themes)
    print(f"themes: {len(themes)}  keywords: {kw}  questions: {n}  ({args.file.relative_to(REPO) if args.file.is_relative_to(REPO) else args.file})")
    print(f"no theme matched: {pct(len(none))}")
    print(f"top-1 accuracy:   {pct(top1)}")
    print(f"top-3 hit rate:   {pct(top3)}")
    if wrong_top:
        print("wrong top theme (false positives): " + ", ".join(f"{t} {c}" for t, c in wrong_top.most_common()))
    if args.quiet:
        return 0
    if none:
        print("\nunmatched:")
        for q, expected in none:
            print(f"  {q}\texpected {','.join(expected)}")
    if misses:
        print("\nmisses (top theme not expected):")
        for q, expected, ms in misses:
            print(f"  {q}\texpected {','.join(expected)}\tgot {' > '.join(_fmt(m) for m in ms[:3])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
