"""Archive benchmark: a synthetic archive of 100,000 debates and 1,000,000 speeches.

Run:  python bench/archive_bench.py [--out bench/out/archive_bench.duckdb] [--reuse]
          [--debates 100000] [--speeches-per-debate 10] [--runs 15] [--busy N]

What it does and how it measures:

1. Builds the archive with the real schema (``open_archive`` runs the migrations),
   then fills it in bulk with SQL inside DuckDB
   (:func:`debate_core.archive.synthetic.fill_bench_archive`): 100,000 debates (70 % master,
   20 % topic, 10 % trial; 15 masters; dates spread over a year; about a fifth of
   the master debates carry the coverage warning) and 10 speeches each
   (1,000,000 rows) of 300-500 CJK characters composed from a phrase list, plus a
   call ledger for a third of the debates and one pack snapshot (15 masters,
   26 critiques).  Two phrases are planted for the text search: a rare one in the
   speeches of 20 debates, and one spread over 0.1 % of all speeches (one per
   debate, all through the year, so its matches sit in every part of the table).
   The text-search bigram index is then built from scratch (timed; its postings
   and storage are printed).
2. Times, with ``time.perf_counter`` around the library call the app makes (so the
   attach / query / detach of every call is included), ``--runs`` repetitions after
   one warm-up, and prints the median and the 95th percentile:
   * the filtered list (``Archive.list_debates`` with protocol + master + status +
     date range, and with model + date range);
   * coverage and gaps from the stored snapshot (``Archive.coverage_snapshot``) and
     the degraded pairs (``Archive.degraded_pairs``);
   * the text search over topics and speeches (``list_debates(text=...)``): the
     rare phrase, the spread one, words found only in topics, and a common phrase
     (made of the phrase list's words, in about 30 % of debates);
   * appending one speech (``Archive.speech``: one committed transaction, durable
     when it returns) to a debate of the big archive.
3. Once each: a bulk write of 500 debates (``Archive.save_many``), indexing their
   5,000 speeches (``Archive.refresh_search_index``), and a search that finds one.
``--busy N`` runs N busy-loop processes beside the timings, to see them under load.
Targets: list, coverage, gaps < 200 ms; text search < 500 ms; append < 20 ms.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from debate_core.archive import open_archive  # noqa: E402
from debate_core.archive.synthetic import fill_bench_archive, search_index_storage  # noqa: E402
from debate_core.models import Debate, DebateConfig, Participant, Speech  # noqa: E402

MASTERS = ["huineng", "yinguang", "zhiyi", "kumarajiva", "xuanzang", "tsongkhapa", "ajahn-chah", "mahasi-sayadaw",
           "atisha", "ouyi", "buddhaghosa", "fazang", "milarepa", "nagarjuna", "xuyun"]
NAMES = ["慧能", "印光", "智顗", "鸠摩罗什", "玄奘", "宗喀巴", "阿姜查", "马哈希", "阿底峡", "蕅益", "觉音", "法藏",
         "密勒日巴", "龙树", "虚云"]
# 26 critiques: the 8 canonical pairs both ways (16) and 10 one-way entries
CRITIQUES = [("huineng", "yinguang"), ("yinguang", "huineng"), ("kumarajiva", "xuanzang"), ("xuanzang", "kumarajiva"),
             ("huineng", "zhiyi"), ("zhiyi", "huineng"), ("tsongkhapa", "huineng"), ("huineng", "tsongkhapa"),
             ("ajahn-chah", "mahasi-sayadaw"), ("mahasi-sayadaw", "ajahn-chah"), ("atisha", "huineng"),
             ("huineng", "atisha"), ("ouyi", "yinguang"), ("yinguang", "ouyi"), ("ouyi", "tsongkhapa"),
             ("tsongkhapa", "ouyi"), ("buddhaghosa", "huineng"), ("buddhaghosa", "kumarajiva"), ("fazang", "xuanzang"),
             ("fazang", "zhiyi"), ("milarepa", "atisha"), ("milarepa", "tsongkhapa"), ("nagarjuna", "buddhaghosa"),
             ("nagarjuna", "xuanzang"), ("xuyun", "mahasi-sayadaw"), ("xuyun", "yinguang")]
PHRASES = ["修行", "当下", "一念", "清净", "自性", "念佛", "止观", "次第", "顿悟", "渐修", "经典", "根器", "烦恼", "觉悟",
           "慈悲", "智慧", "戒律", "禅定", "因缘", "空性", "唯识", "中道", "方便", "善巧", "信愿", "往生", "见性", "本心",
           "教理", "实修", "日用", "功夫", "习气", "妄想", "放下", "提起", "回向", "发心", "菩提", "众生", "末法", "根本",
           "，", "。", "；", "我们", "应当", "并非", "而是", "所以", "因此", "然而", "其次", "第一", "第二", "第三",
           "对方所说", "本宗看来", "细察其理", "可以接受", "仍须坚持", "读者可以", "体会", "分歧", "共识", "处境"]
TOPICS = ["顿悟与渐修", "念佛与参禅", "空与有", "戒律与禅修", "止观与见性", "末法时代的修行", "判教的意义", "中观与唯识",
          "信愿行", "初学者从何下手", "Remote work vs office", "AI and creativity", "缺爱与爱人", "远程与坐班",
          "城市与乡村", "阅读纸书还是电子书"]
NEEDLE = "菩提达摩西来意"  # rare: in every speech of 20 debates (0.02 %)
SPREAD = "祖师西来"  # spread out: in 0.1 % of all speeches, one per debate, all through the year
COMMON = "修行当下"  # made of the phrase list's own words: in roughly 30 % of debates


def build(path: Path, debates: int, per: int) -> dict:
    t0 = time.perf_counter()
    if path.exists():
        path.unlink()
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        wal.unlink()
    arc = open_archive(path)
    filled = fill_bench_archive(path, debates=debates, per=per, masters=MASTERS, names=NAMES, phrases=PHRASES,
                                topics=TOPICS, critiques=CRITIQUES, needle=NEEDLE, spread=SPREAD)
    t_end = time.perf_counter()
    size_before = path.stat().st_size / 1e6
    t_idx = time.perf_counter()
    indexed = arc.refresh_search_index(full=True)
    t_end2 = time.perf_counter()
    index = search_index_storage(arc)
    return {"seconds": t_end - t0, "debates_s": filled["debates_s"], "speeches_s": filled["speeches_s"],
            "counts": filled["counts"], "avg_chars": filled["avg_chars"], "size_mb": size_before,
            "size_after_mb": path.stat().st_size / 1e6, "order": filled["order"], "index_s": t_end2 - t_idx,
            "indexed": indexed, "runs": index["runs"], "postings": index["postings"], "index_mb": index["bytes"] / 1e6}


def timeit(fn, runs: int) -> tuple[float, float, object]:
    result = fn()  # warm-up
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    return statistics.median(times), p95, result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(REPO / "bench" / "out" / "archive_bench.duckdb"))
    ap.add_argument("--debates", type=int, default=100_000)
    ap.add_argument("--speeches-per-debate", type=int, default=10)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--reuse", action="store_true", help="reuse an archive built by an earlier run")
    ap.add_argument("--busy", type=int, default=0,
                    help="run N CPU-bound processes (busy loops) while timing, to see the figures under load")
    args = ap.parse_args()
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"archive benchmark — duckdb {__import__('duckdb').__version__}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs")
    if not (args.reuse and path.exists()):
        info = build(path, args.debates, args.speeches_per_debate)
        print(f"built {path} in {info['seconds']:.1f} s (debates {info['debates_s']:.1f} s, speeches "
              f"{info['speeches_s']:.1f} s): {info['counts']['debates']:,} debates, {info['counts']['speeches']:,} "
              f"speeches (avg {info['avg_chars']} chars), {info['counts']['llm_calls']:,} llm_calls, "
              f"{info['size_mb']:.0f} MB; speech order vs storage order correlation {info['order']:.3f}")
        print(f"text-search index: {info['indexed']:,} speeches indexed in {info['index_s']:.1f} s "
              f"(Archive.refresh_search_index(full=True); searches extend it incrementally): {info['runs']} run(s), "
              f"{info['postings']:,} (bigram, group) postings in {info['index_mb']:.0f} MB of storage blocks "
              f"(pragma_storage_info); the file went from {info['size_mb']:.0f} to {info['size_after_mb']:.0f} MB "
              "(blocks freed by merges are reused by later writes)")
    else:
        print(f"reusing {path} ({path.stat().st_size / 1e6:.0f} MB)")

    arc = open_archive(path)
    runs = args.runs
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    atexit.register(lambda: [b.kill() for b in busy])
    if busy:
        print(f"timing with {len(busy)} busy-loop process(es) running beside it ({os.cpu_count()} CPUs)")
    figures = []

    def report(label: str, how: str, target: float, fn, check=None):
        med, p95, result = timeit(fn, runs)
        note = check(result) if check else ""
        ok = "ok" if med < target else "OVER TARGET"
        figures.append({"figure": label, "median_ms": round(med, 2), "p95_ms": round(p95, 2), "target_ms": target})
        print(f"- {label}: median {med:.1f} ms, p95 {p95:.1f} ms over {runs} runs (target < {target:g} ms: {ok})"
              f"\n    measured: {how}{(' — ' + note) if note else ''}")

    report("filtered list (protocol+master+status+dates)",
           "Archive.list_debates(protocol='master', master='huineng', status='completed', "
           "date_from='2025-03-01', date_to='2025-09-30', limit=500), wall clock incl. attach/detach", 200,
           lambda: arc.list_debates(protocol="master", master="huineng", status="completed",
                                    date_from="2025-03-01", date_to="2025-09-30", limit=500),
           lambda df: f"{len(df)} rows returned")
    report("filtered list (model+dates)",
           "Archive.list_debates(model='openai/gpt-4o-mini', date_from='2025-06-01', date_to='2025-06-30')", 200,
           lambda: arc.list_debates(model="openai/gpt-4o-mini", date_from="2025-06-01", date_to="2025-06-30"),
           lambda df: f"{len(df)} rows returned")
    report("coverage matrix + gaps from the stored pack snapshot",
           "Archive.coverage_snapshot(pack_hash='benchpack0000001') -> (matrix, gaps)", 200,
           lambda: arc.coverage_snapshot(pack_hash="benchpack0000001"),
           lambda r: f"{r[0].shape[0]}x{r[0].shape[1]} matrix, {len(r[1]['both_ways'])} pairs both ways, "
                     f"{len(r[1]['one_way'])} one-way")
    report("gaps: degraded pairs over all debates",
           "Archive.degraded_pairs() (master debates carrying the ⚠️ coverage warning, grouped by pair)", 200,
           arc.degraded_pairs, lambda df: f"{len(df)} pairs, {int(df['debates'].sum()):,} debates")
    report("text search over topics and speeches (rare phrase)",
           f"Archive.list_debates(text='{NEEDLE}'): topics by regexp, speeches through the bigram index "
           "(postings of the needle's bigrams intersected, candidate groups verified by regexp)", 500,
           lambda: arc.list_debates(text=NEEDLE, limit=500), lambda df: f"{len(df)} debates matched")
    report("text search over topics and speeches (phrase in 1,000 debates all year)",
           f"Archive.list_debates(text='{SPREAD}'): the matches sit in every part of the table; the index "
           "narrows 1M speeches to the 1,000 groups of 16 holding all its bigrams", 500,
           lambda: arc.list_debates(text=SPREAD, limit=500), lambda df: f"{len(df)} debates matched")
    report("text search, topic words (mixed case)",
           "Archive.list_debates(text='remote WORK'): case-insensitive; the speeches hold no such words, "
           "so the index rules out every group", 500,
           lambda: arc.list_debates(text="remote WORK", limit=500), lambda df: f"{len(df)} debates matched")
    report("text search, a common phrase (in about 30 % of debates)",
           f"Archive.list_debates(text='{COMMON}'): its bigrams are everywhere, so the candidates pass "
           "8 % of all speeches and one plain regexp scan answers instead", 500,
           lambda: arc.list_debates(text=COMMON, limit=500), lambda df: f"{len(df)} debates listed (limit 500)")

    # appending speeches to one debate of the big archive, as a running debate does
    debate = Debate(id="benchappend01", protocol="master", topic="追加测试", config=DebateConfig(topic="追加测试"),
                    participants=[Participant(label="huineng"), Participant(label="yinguang")], planned_rounds=10_000)
    arc.start(debate)
    text = ("先复述对方的原意，再逐条回应。" * 30)[:420]
    counter = {"n": 0}

    def append() -> None:
        counter["n"] += 1
        s = Speech(round=counter["n"], speaker="huineng" if counter["n"] % 2 else "yinguang", role="反驳", text=text,
                   citations=["T48n2008"], engine="offline")
        debate.rounds.append(s)
        arc.speech(debate, s)

    report("append one speech (committed)",
           "Archive.speech(debate, speech): attach, delete-if-rerun, insert, update totals, COMMIT, detach "
           "(a checkpoint folds the WAL in when it passes 32 KB, included)", 20, append,
           lambda _: f"{counter['n']} speeches appended")
    runs_backup = runs
    runs = max(runs, 50)
    report("append one speech (50 in a row)", "same, 50 consecutive appends", 20, append)
    runs = runs_backup
    report("one debate in full", "Archive.get_debate(id) for a debate with 10 speeches", 500,
           lambda: arc.get_debate(arc.list_debates(limit=1, mark=False)["id"][0]))
    arc.delete("benchappend01")

    # keeping the index up to date: a bulk write of 5,000 speeches (500 debates, as an import or a
    # batch flush writes them), which indexes them before returning, then a search that uses them
    fresh = [Debate(id=f"benchbulk{i:04d}", protocol="topic", topic=f"批量 {i}", config=DebateConfig(topic="批量"),
                    rounds=[Speech(round=r, speaker="甲", role="立论", text=text + f"批量追加{i}号第{r}轮")
                            for r in range(1, 11)]) for i in range(500)]
    from debate_core.archive import text_index

    before = arc.search_index_status()
    run_min, text_index.RUN_MIN = text_index.RUN_MIN, 10**9  # write first, index separately, to time each
    t = time.perf_counter()
    arc.save_many(fresh)
    bulk_ms = (time.perf_counter() - t) * 1000
    text_index.RUN_MIN = run_min
    t = time.perf_counter()
    indexed = arc.refresh_search_index()
    index_ms = (time.perf_counter() - t) * 1000
    after = arc.search_index_status()
    t = time.perf_counter()
    hits = arc.list_debates(text="批量追加123号", limit=500)
    search_ms = (time.perf_counter() - t) * 1000
    print(f"- bulk write of 500 debates / 5,000 speeches: {bulk_ms:.0f} ms (Archive.save_many, one transaction), "
          f"then indexing them: {index_ms:.0f} ms (Archive.refresh_search_index: {indexed:,} speeches, the index "
          f"went from {before['covered_to']:,} to {after['covered_to']:,} speech numbers, {after['runs']} run(s) "
          f"at levels {after['levels']}, {after['waiting']} waiting); one run each")
    print(f"- then a search for a phrase in one of them: {search_ms:.0f} ms, one run — {len(hits)} debate(s) matched")
    for d in fresh:
        arc.delete(d.id)
    for b in busy:
        b.kill()
    print(json.dumps({"figures": figures, "busy": args.busy}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
