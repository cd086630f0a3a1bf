"""Offline master debate: speed and what a teacher would see (issue 12).

Run: ``python bench/master_bench.py [--quick]``.  A script, not a test: it prints figures.

1. Speed.  A 4-round offline debate (pair choice, 4 checked rounds, summaries, observation,
   render) timed in-process with ``time.perf_counter`` around ``run_debate``: once in a fresh
   interpreter (imports and pack load included), then the median of 10 runs with the pack
   re-loaded each time and of 20 runs with the pack cached.  Target: median under 0.5 s.
2. Content.  Over 24 topics of our own (12 pairs of two topics given to the same two masters),
   on the default pack and, when ../shared/reference exists, on the upstream Master-skill
   pack, it counts:
   - repeated sentences inside a debate (speeches and observation; citations removed; >= 6 characters);
   - template sentences a speaker uses more than once;
   - pieces of non-teaching material in speeches: URLs, markdown links, editorial notes, English
     runs outside citations, English in a citation's title (【《Food for the Heart…》…】),
     fragments (open brackets, ellipses), and any text the pack reader set aside (>= 10
     characters) found in a speech;
   - speeches failing a check (every rule of debate_core.checks);
   - the share of material that differs between the two topics of a pair: 1 - Jaccard of the
     sets of sentences the two debates' speeches hold.
   Targets: 0, 0, 0, 0 failed, difference clearly above 0.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
UPSTREAM = Path(__file__).resolve().parents[2] / "shared" / "reference" / "master-skill" / "prebuilt"
SPEED_TOPIC = "禅宗顿悟和净土念佛，到底谁更直接？"

# (masters, topic one, topic two): two topics per pair, our own wording.
TOPIC_PAIRS = [
    (("huineng", "yinguang"), "禅净之争", "临终时靠什么得力"),
    (("kumarajiva", "xuanzang"), "空与有能否并存", "心识是实有还是假名"),
    (("huineng", "zhiyi"), "顿悟与渐修", "止观要不要次第"),
    (("ajahn-chah", "mahasi-sayadaw"), "戒律与内观", "妄念起来时怎么办"),
    (("tsongkhapa", "huineng"), "修行需不需要次第", "见性之前要不要先学经论"),
    (("nagarjuna", "xuanzang"), "缘起与自性", "修行的依据是空还是识"),
    (("yinguang", "xuyun"), "念佛与参话头", "在家人如何用功"),
    (("milarepa", "atisha"), "苦行与道次第", "上师的作用有多大"),
    (("buddhaghosa", "huineng"), "戒定慧的先后", "清净是修出来的还是本有的"),
    (("ouyi", "fazang"), "判教的意义", "一念心能否含摄法界"),
    (("zhiyi", "xuanzang"), "一念三千与八识", "凡夫如何转烦恼"),
    (("atisha", "milarepa"), "出离心从哪里生起", "闭关与依止善知识"),
]
_LATIN_RUN = re.compile(r"[A-Za-zÀ-ɏḀ-ỿ]{2,}(?:[ \t]+[A-Za-zÀ-ɏḀ-ỿ]{2,})+")
_EDITORIAL = re.compile(r"引用时|应注明|须注明|不得作为|深入研究|请查阅|请参阅|请访问|本文件|本目录|节选自|欢迎|授权|出版社|"
                        r"公开资料|引用格式|教义要点|仅供参考|不可将|不可代笔")


def _norm(s: str) -> str:
    return "".join(re.findall(r"[\u3400-\u9fff]", s))


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
    print(f"  pack re-loaded each run: median {statistics.median(cold) * 1000:.1f} ms over 10 runs")
    print(f"  pack cached: median {statistics.median(warm) * 1000:.1f} ms over 20 runs "
          f"(target < 500 ms: {'met' if statistics.median(cold) < 0.5 else 'MISSED'})")


def non_teaching(text: str, aside_norms: list[str], master=None) -> list[str]:
    """Pieces of non-teaching material in one speech."""
    from debate_core.checks.hygiene import hygiene_problems

    body = re.sub(r"【[^】]*】", "", text)
    found = []
    if re.search(r"https?://|www\.|\.(?:org|com|net|app)\b", body):
        found.append("url")
    if re.search(r"\[[^\]]*\]\([^)]*\)", body):
        found.append("link")
    if _EDITORIAL.search(body):
        found.append("editorial")
    if _LATIN_RUN.search(body):
        found.append("english")
    if any(re.search(r"[A-Za-zÀ-ɏḀ-ỿ]{2,}", t) for t in re.findall(r"【《([^》]*)》", text)):
        found.append("english title in a citation")  # a Chinese debate cites the Chinese title or the id alone
    if "…" in body or "..." in body or re.search(r"[【《「（(][^】》」）)]*$", body):
        found.append("fragment")
    from debate_core.engines.offline import sentences_of

    flats = [_norm(x) for x in sentences_of(text)]
    for a in aside_norms:  # within one sentence: two adjacent teachings may spell a table row by chance
        if any(a in f for f in flats):
            found.append("set-aside text")
            break
    ids = master.source_ids if master is not None else []
    titles = [s.title for s in master.sources] if master is not None else []
    found += ["hygiene: " + p for p in hygiene_problems(text, ids=ids, titles=titles)]
    return found


def run_topic(pack, masters, topic):
    from debate_core.models import DebateConfig
    from debate_core.engines.offline import OfflineEngine
    from debate_core.protocols.master import MasterDebate

    md = MasterDebate(pack, OfflineEngine(pack))
    return md.run(md.prepare(DebateConfig(topic=topic, masters=list(masters))))


def content(pack_path, label: str, show: int = 0) -> dict:
    from debate_core.engines.offline import (T_AMMO, T_BRIDGE, T_BRIDGE_LOOSE, T_CLOSE, T_DIFF, T_KEEP, T_OPEN, T_OPP_UNIT, T_THIN,
                                            sentences_of)
    from debate_core.content.packs import load_pack

    pack = load_pack(pack_path)
    templates = {_norm(re.sub(r"\{[^}]*\}", "", t))[:8] for bank in (T_OPEN, T_BRIDGE, T_AMMO, T_CLOSE)
                 for ts in bank.values() for t in ts} | {_norm(re.sub(r"\{[^}]*\}", "", t))[:8]
                                                         for t in T_KEEP + T_OPP_UNIT + T_DIFF + T_THIN[0] + T_THIN[1]
                                                         + T_BRIDGE_LOOSE}
    # set-aside text that is not also one of the master's teachings (a table row may hold a teaching's words)
    aside = {}
    for slug, m in pack.masters.items():
        taught = "|".join(_norm(t.text) for t in m.teachings)
        aside[slug] = [n for a in m.set_aside if a.reason not in ("heading", "duplicate")
                       for n in [_norm(a.text)] if len(n) >= 10 and n not in taught
                       and not any(_norm(t.text) in n for t in m.teachings)]
    totals = Counter()
    failed_rules = Counter()
    diffs = []
    shown = 0
    for masters, t1, t2 in TOPIC_PAIRS:
        used = []
        for topic in (t1, t2):
            d = run_topic(pack, masters, topic)
            totals["debates"] += 1
            sents = []
            per_speaker = Counter()
            mats = set()
            for s in d.rounds:
                totals["speeches"] += 1
                ss = [x for x in sentences_of(s.text) if len(_norm(x)) >= 6]
                sents += [_norm(x) for x in ss]
                for x in ss:
                    n = _norm(x)
                    mats.add(n)
                    head = n[:8]
                    if any(head.startswith(tp[:6]) for tp in templates if len(tp) >= 6):
                        per_speaker[(s.speaker, head)] += 1
                if s.status != "ok":
                    totals["speeches failing a check"] += 1
                    failed_rules.update(f.rule for f in s.findings if not f.passed)
                pieces = non_teaching(s.text, aside[s.speaker], pack.masters[s.speaker])
                totals["pieces of non-teaching material"] += len(pieces)
                if pieces and shown < 5:
                    print(f"    [{label}] {topic} R{s.round}: {pieces}")
                    shown += 1
            if d.observation:
                o = d.observation
                sents += [_norm(x) for x in sentences_of(o.divergence + o.consensus + o.to_reader) if len(_norm(x)) >= 6]
                if _LATIN_RUN.search(o.divergence + o.consensus + o.to_reader):
                    totals["pieces of non-teaching material"] += 1
            c = Counter(sents)
            totals["repeated sentences"] += sum(v - 1 for v in c.values() if v > 1)
            totals["template sentences reused by a speaker"] += sum(v - 1 for v in per_speaker.values() if v > 1)
            used.append(mats)
            if show and totals["debates"] <= show:
                from debate_core.protocols.registry import render as render_markdown
                print(render_markdown(d))
        a, b = used
        diffs.append(1 - len(a & b) / max(1, len(a | b)))
    print(f"content on pack {label} ({pack.name}): {totals['debates']} debates, {totals['speeches']} speeches")
    for k in ("repeated sentences", "template sentences reused by a speaker", "pieces of non-teaching material",
              "speeches failing a check"):
        print(f"  {k}: {totals[k]}")
    if failed_rules:
        print(f"  failed rules: {dict(failed_rules)}")
    print(f"  material differing between two topics of one pair: mean {statistics.mean(diffs):.0%}, "
          f"min {min(diffs):.0%} over {len(diffs)} pairs")
    return dict(totals)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="content only, no timing")
    ap.add_argument("--show", type=int, default=0, help="print the first N debates in full")
    args = ap.parse_args()
    if not args.quick:
        speed()
    content(None, "default", args.show)
    if UPSTREAM.is_dir():
        content(UPSTREAM, "upstream", args.show)
    else:
        print("upstream pack not found; skipped")


if __name__ == "__main__":
    main()
