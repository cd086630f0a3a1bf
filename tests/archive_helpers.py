"""Shared by the archive tests: a small persona pack written for the tests, and paths.

The pack has three masters: huineng and yinguang critique each other (covered both
ways), zhiyi critiques huineng but nobody critiques zhiyi (a one-way entry, so a
huineng/zhiyi debate carries the coverage warning).  Slugs, names and source ids
are historical facts; every sentence is written for these tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = (REPO / ".." / "shared" / "reference" / "topic-debate-sample").resolve()
SAMPLE_REASON = f"reference sample {SAMPLE} is absent (it lives next to the repo as ../shared/reference)"

MASTERS = {
    "huineng": {
        "name": "慧能大师", "school": "禅宗", "tradition": "汉传", "era": "638-713",
        "sources": [{"type": "cbeta", "id": "T48n2008", "title": "六祖大师法宝坛经"},
                    {"type": "cbeta", "id": "T08n0235", "title": "金刚般若波罗蜜经"}],
        "keywords": ["顿悟", "见性", "自性", "禅宗", "参禅", "本心"],
        "critiques": [{"target_master": "yinguang", "position": "若只向外求生净土，容易忽略当下这一念本来清净",
                       "citation": "T48n2008"}],
        "points": {
            "自性与当下": ["每个人心中本有觉悟的可能，不必向远处寻找", "觉悟发生在当下这一念的转变之中",
                       "烦恼与觉悟并非两物，关键在于是否看清", "修行重在日常行住坐卧中保持清明",
                       "文字只是指月之指，不能代替亲自体会", "执着于形式反而会遮蔽本来的清净"],
            "顿与渐": ["道理上可以一时顿明，习气上仍需时时打磨", "顿悟不是偷懒，而是把功夫用在根本处",
                     "不同根器的人入手不同，但所归的心地相同", "坐禅不是枯坐，而是在一切处不被境界牵走"],
        },
    },
    "yinguang": {
        "name": "印光大师", "school": "净土宗", "tradition": "汉传", "era": "1861-1940",
        "sources": [{"type": "cbeta", "id": "X62n1182", "title": "印光法师文钞正编"},
                    {"type": "cbeta", "id": "X62n1183", "title": "印光法师文钞续编"}],
        "keywords": ["净土", "念佛", "持名", "往生", "信愿行", "老实念佛"],
        "critiques": [{"target_master": "huineng", "position": "今人根器较弱，单凭自力求悟，往往难以落实",
                       "citation": "X62n1182"}],
        "points": {
            "信愿持名": ["念佛法门简单易行，老少都能下手", "信心、愿心与持名三者相互支撑，缺一不可",
                     "每日定时念佛，可以把散乱的心慢慢收回", "念佛要字字分明，耳朵听清自己的声音",
                     "依靠佛力并不否定自己的努力，二者相辅相成", "日常尽伦尽分，本身就是念佛的助行"],
            "末世根机": ["时代不同，修行的入手处也应该随之调整", "对多数人来说，稳当的法门比高远的法门更可贵",
                     "把修行落实在每天的功课里，才不会流于空谈", "谦卑恭敬是入道的基础"],
        },
    },
    "zhiyi": {
        "name": "智顗大师", "school": "天台宗", "tradition": "汉传", "era": "538-597",
        "sources": [{"type": "cbeta", "id": "T46n1911", "title": "摩诃止观"},
                    {"type": "cbeta", "id": "T33n1716", "title": "妙法莲华经玄义"}],
        "keywords": ["天台", "止观", "次第", "渐修", "一心三观", "圆教"],
        "critiques": [{"target_master": "huineng", "position": "只讲顿悟而不讲止观次第，初学者容易无处用力",
                       "citation": "T46n1911"}],
        "points": {
            "止观双修": ["止能让心安定下来，观能让心看得清楚", "止与观如同车的两轮，偏废一边都走不远",
                     "修行要有次第，先调身调息再调心", "教理与实修相互印证，才不会盲修瞎练"],
            "圆融": ["一念之中具足种种可能，凡圣只在迷悟之间", "空、假、中三个角度可以同时照见一件事",
                   "判教是为了让不同的教法各得其所", "圆顿的道理也要通过渐次的功夫来落实"],
        },
    },
}


def make_pack(root: Path) -> Path:
    """Write the test pack under ``root/pack`` and return its folder."""
    pack = root / "pack"
    for slug, m in MASTERS.items():
        folder = pack / f"master-{slug}"
        (folder / "sources").mkdir(parents=True, exist_ok=True)
        meta = {"name": m["name"], "slug": slug, "tradition": m["tradition"], "school": m["school"],
                "era": m["era"], "languages": ["zh"], "sources": m["sources"],
                "search_scope": {"keywords": m["keywords"]}, "signature_phrases": [m["keywords"][0]],
                "cross_critique": m["critiques"], "version": "0.1.0"}
        (folder / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2), encoding="utf-8")
        sid = m["sources"][0]["id"]
        sections = []
        for heading, points in m["points"].items():
            sections.append(f"## {heading}\n\n来源：{sid}\n\n" + "\n".join(f"- {p}" for p in points) + "\n")
        (folder / "sources" / "notes.md").write_text("\n".join(sections), encoding="utf-8")
    proto = pack / "master-debate"
    proto.mkdir(parents=True, exist_ok=True)
    (proto / "meta.json").write_text(json.dumps({"slug": "debate", "version": "0.1.0", "debate_protocol": {
        "default_rounds": 4, "max_rounds": 6, "min_rounds": 2, "stop_on_consensus": False}}), encoding="utf-8")
    (pack / "pack.json").write_text(json.dumps({"name": "test-pack", "version": "0.1.0"}), encoding="utf-8")
    return pack


def run_debate(archive, pack: Path, topic: str = "顿悟与念佛，哪一个更适合初学者？",
               masters: tuple[str, str] = ("huineng", "yinguang"), rounds=None):
    """One offline master debate recorded in ``archive``; returns the finished Debate."""
    from debate_core.api import start_debate
    from debate_core.models import DebateConfig

    runner, debate = start_debate(DebateConfig(topic=topic, masters=list(masters), pack=str(pack), rounds=rounds),
                                  archive)
    return runner.run(debate)


def cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m debate_core ARGS`` in a real subprocess from the repo root."""
    full_env = dict(os.environ)
    full_env.pop("DEBATE_ARCHIVE", None)
    full_env.pop("DEBATE_MODEL", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "debate_core", *args], cwd=REPO, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def wait_for(predicate, timeout: float = 60.0, what: str = "condition") -> None:
    """Poll ``predicate`` every 50 ms until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def reap(proc: subprocess.Popen) -> None:
    """A child process is gone and its pipes closed, whatever the test did to it."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    proc.stdout.close()
    proc.stderr.close()
