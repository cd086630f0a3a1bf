"""Import (topic-debate folders, master-debate Markdown, JSON) and export (md, json, ipynb, parquet, debate-dir)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from debate_core.archive import open_archive
from debate_core.io.exporters import export_debate, slugify, to_json_dict
from debate_core.io.importers import ImportFormatError
from debate_core.models import Debate, DebateConfig, LLMCall, Participant, RoundComment, Speech, Verdict, VerdictRow
from debate_core.io.importers import import_paths
from tests.archive_helpers import SAMPLE, SAMPLE_REASON, cli, make_pack, run_debate

needs_sample = pytest.mark.skipif(not SAMPLE.is_dir(), reason=SAMPLE_REASON)


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    return make_pack(tmp_path_factory.mktemp("pack"))


def _count(arc) -> dict[str, int]:
    return {t: int(arc.query(f"SELECT count(*) AS n FROM {t}")["n"][0])
            for t in ("debates", "speeches", "summaries", "verdicts", "verdict_rows", "llm_calls")}


# ------------------------------------------------------------ the real sample


def test_sample_path_is_resolved_relative_to_the_repo():
    repo = Path(__file__).resolve().parent.parent
    assert SAMPLE == (repo / "../shared/reference/topic-debate-sample").resolve()


@needs_sample
def test_import_the_topic_debate_sample(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    [res] = import_paths(arc, [SAMPLE])
    assert res.status == "imported" and res.kind == "topic-debate"
    d = arc.get_debate(res.id)
    assert d.protocol == "topic" and d.status == "completed"
    assert d.topic == "缺爱的人 vs 不缺爱的人，谁更懂得如何爱人？"
    assert [(p.label, p.stance) for p in d.participants] == [
        ("辩手甲", "缺爱的人更懂得如何爱人"), ("辩手乙", "不缺爱的人更懂得如何爱人")]
    assert [(s.round, s.speaker) for s in d.rounds] == [
        (1, "辩手甲"), (1, "辩手乙"), (2, "辩手甲"), (2, "辩手乙"), (3, "辩手甲"), (3, "辩手乙")]
    by = {(s.round, s.speaker): s for s in d.rounds}
    # round 1: the argument tables
    r1 = by[(1, "辩手甲")].envelope
    assert [a["id"] for a in r1["arguments"]] == ["A1", "A2", "A3", "A4"] and r1["rebuttals"] == []
    assert r1["arguments"][1]["evidence"].startswith("弗洛姆《爱的艺术》")
    assert [a["id"] for a in by[(1, "辩手乙")].envelope["arguments"]] == ["A1", "A2", "A3", "A4"]
    # round 2: rebuttals aimed at the other side's points, and the new points
    r2 = by[(2, "辩手甲")].envelope
    assert [(r["type"], r["target"]) for r in r2["rebuttals"]] == [
        ("反驳", "辩手乙 A1"), ("质疑", "辩手乙 A2"), ("让步", "辩手乙 A3"), ("反驳", "辩手乙 A4")]
    assert [a["id"] for a in r2["arguments"]] == ["B1", "B2"]
    assert [r["target"] for r in by[(2, "辩手乙")].envelope["rebuttals"]] == [
        "辩手甲 A1", "辩手甲 A2", "辩手甲 A3", "辩手甲 A4"]
    r3 = by[(3, "辩手乙")].envelope
    assert r3["rebuttals"][0]["target"] == "辩手甲 B1" and r3["arguments"]
    # the no_new_points flags exactly where the log states them
    flags = {k: s.envelope.get("no_new_points") for k, s in by.items()}
    assert flags == {(1, "辩手甲"): None, (1, "辩手乙"): None, (2, "辩手甲"): None, (2, "辩手乙"): None,
                     (3, "辩手甲"): True, (3, "辩手乙"): False}
    # the stop at the round cap
    assert d.stop_reason.startswith("round=3 触顶") and d.planned_rounds == 3
    assert [s.round for s in d.summaries] == [1, 2]
    # the verdict
    v = d.verdict
    assert v.winner == "辩手乙" and v.scores == {"辩手甲": 6.5, "辩手乙": 8.0}
    rows = {r.label: r for r in v.rows}
    assert rows["辩手甲"].strongest.startswith('"懂爱是要付学费的手艺')
    assert rows["辩手甲"].weakness.startswith('全程依赖"已觉察/已修复的缺爱者"')
    assert rows["辩手乙"].strongest.startswith('"更懂珍惜≠更懂去爱"')
    assert rows["辩手乙"].weakness.startswith("A1 起手把缺爱描述偏病态")
    assert "论点强度" in v.reasons["判词"] and v.note.startswith("这场辩论真正的结论")
    assert any("JSON 结构漂移" in w for w in d.warnings)
    # in SQL too
    df = arc.sql("SELECT label, score FROM verdict_rows ORDER BY score")
    assert df.values.tolist() == [["辩手甲", 6.5], ["辩手乙", 8.0]]


@needs_sample
def test_importing_twice_does_not_duplicate(tmp_path):
    path = tmp_path / "a.duckdb"
    r1 = cli("import", str(SAMPLE), "--archive", str(path))
    assert r1.returncode == 0 and r1.stdout.startswith("imported"), r1.stderr
    r2 = cli("import", "../shared/reference/topic-debate-sample", "--archive", str(path), "--format", "json")
    assert r2.returncode == 0, r2.stderr
    assert json.loads(r2.stdout)[0]["status"] == "exists"
    arc = open_archive(path)
    assert _count(arc)["debates"] == 1 and _count(arc)["speeches"] == 6
    # a copy of the folder elsewhere is the same debate
    copy = tmp_path / "copy.debate"
    shutil.copytree(SAMPLE, copy)
    assert import_paths(arc, [copy])[0].status == "exists"


@needs_sample
def test_malformed_file_names_file_and_line_and_leaves_nothing(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    bad = tmp_path / "bad.debate"
    shutil.copytree(SAMPLE, bad)
    lines = (bad / "verdict.md").read_text(encoding="utf-8").splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("| 辩手乙"))
    lines[i] = lines[i].replace("**8.0**", "eight")
    (bad / "verdict.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    good_json = tmp_path / "good.json"
    d = Debate(id="good1", protocol="topic", topic="好的", config=DebateConfig(protocol="topic", topic="好的"))
    good_json.write_text(json.dumps(to_json_dict(d), ensure_ascii=False), encoding="utf-8")
    before = _count(arc)
    with pytest.raises(ImportFormatError) as info:
        import_paths(arc, [good_json, bad])  # the good file first: still nothing may be written
    assert info.value.file.endswith("verdict.md") and info.value.line == i + 1
    assert f"line {i + 1}" in str(info.value) and "eight" in str(info.value)
    assert _count(arc) == before
    # the CLI: one line, exit 2
    r = cli("import", str(good_json), str(bad), "--archive", str(arc.path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "verdict.md" in r.stderr and f"line {i + 1}" in r.stderr
    assert _count(arc) == before


@pytest.mark.parametrize("case", ["table", "round", "json", "mapping"])
def test_more_malformed_inputs(tmp_path, case):
    arc = open_archive(tmp_path / "a.duckdb")
    folder = tmp_path / "x.debate"
    folder.mkdir()
    log = ["# 辩论日志：t", "", "- **辩题**：测试题", "- **立场映射（匿名）**：", "  - 辩手甲 → 「甲方」",
           "  - 辩手乙 → 「乙方」", "", "## 第 1 轮：独立立论", "", "### 辩手甲（甲方）", "",
           "| id | 论点 | 论证要点 | 论据 |", "|----|------|---------|------|", "| A1 | 一 | 二 | 三 |", "",
           "### 辩手乙（乙方）", "", "| id | 论点 | 论证要点 | 论据 |", "|----|------|---------|------|",
           "| A1 | 一 | 二 | 三 |", ""]
    expect_file, expect_line = "debate-log.md", None
    if case == "table":
        log[13] = "| A1 | 一 | 二 |"
        expect_line = 14
    elif case == "round":
        log.append("## 第 3 轮：交叉反驳")
        expect_line = len(log)
    elif case == "mapping":
        log[5] = "  - 张三 → 「乙方」"
        expect_line = 6
    (folder / "debate-log.md").write_text("\n".join(log) + "\n", encoding="utf-8")
    target = folder
    if case == "json":
        target = tmp_path / "broken.json"
        target.write_text('{\n  "id": "x",\n  "protocol": "master",\n  "topic": "t",\n  "status": \n}\n')
        expect_file, expect_line = "broken.json", 6  # where the missing value is found
    with pytest.raises(ImportFormatError) as info:
        import_paths(arc, [target])
    assert info.value.file.endswith(expect_file)
    assert info.value.line == expect_line, str(info.value)
    assert _count(arc)["debates"] == 0


def test_json_validation_error_points_at_the_field(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    d = Debate(id="v1", protocol="master", topic="t", config=DebateConfig(topic="t"))
    data = to_json_dict(d)
    data["status"] = "exploded"
    path = tmp_path / "v.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(ImportFormatError) as info:
        import_paths(arc, [path])
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if '"status"' in t)
    assert info.value.line == line and "status" in str(info.value)


# ------------------------------------------------------------- JSON round trip


def _judged() -> Debate:
    return Debate(
        id="judged01", protocol="topic", topic="远程办公还是坐班？", status="completed", stop_reason="all no_new_points",
        participants=[Participant(label="辩手甲", stance="远程", model="m1"),
                      Participant(label="辩手乙", stance="坐班", model="m2")],
        models=["m1", "m2"], planned_rounds=3,
        config=DebateConfig(protocol="topic", topic="远程办公还是坐班？", models=["m1", "m2"], stances=["远程", "坐班"]),
        rounds=[Speech(round=1, speaker="辩手甲", role="立论", text="甲的立论", engine="m1", prompt_tokens=11,
                       completion_tokens=22, cost=0.000123, latency_ms=1234.5,
                       envelope={"stance": "远程", "arguments": [{"id": "A1", "point": "p"}], "rebuttals": [],
                                 "no_new_points": False}),
                Speech(round=1, speaker="辩手乙", role="立论", text="乙的立论", engine="m2", retries=1, truncated=True)],
        verdict=Verdict(winner="辩手乙", summary="乙胜", reasons={"论点强度": "乙强"},
                        rows=[VerdictRow(label="辩手甲", stance="远程", strongest="s", weakness="w", score=6.5),
                              VerdictRow(label="辩手乙", stance="坐班", strongest="s2", weakness="w2", score=8.0)],
                        per_round=[RoundComment(round=1, comment="开局")], judge="m3"),
        llm_calls=[LLMCall(purpose="speech", model="m1", round=1, speaker="辩手甲", prompt_tokens=11,
                           completion_tokens=22, messages=[{"role": "user", "content": "hi"}], response="甲的立论")],
        warnings=["a warning"], batch_id="b1", source="run")


def test_json_export_round_trips_exactly(tmp_path, pack):
    a = open_archive(tmp_path / "a.duckdb")
    master = run_debate(a, pack)
    a.save(_judged())
    for debate_id in (master.id, "judged01"):
        out = tmp_path / f"{debate_id}.json"
        if debate_id == "judged01":
            r = cli("export", debate_id, "--format", "json", "--out", str(out), "--archive", str(a.path))
            assert r.returncode == 0, r.stderr
        else:
            assert export_debate(a, debate_id, "json", out) == out
        first = json.loads(out.read_text(encoding="utf-8"))
        for key in ("id", "protocol", "topic", "status", "participants", "rounds"):
            assert key in first
        for s in first["rounds"]:
            assert {"round", "speaker", "role", "text", "citations", "findings"} <= set(s)
        b = open_archive(tmp_path / f"b-{debate_id}.duckdb")
        [res] = import_paths(b, [out])
        assert res.status == "imported" and res.id == debate_id
        again = to_json_dict(b.get_debate(debate_id))
        assert again == first
        assert import_paths(b, [out])[0].status == "exists"
    assert first["verdict"]["scores"] == {"辩手甲": 6.5, "辩手乙": 8.0} and first["verdict"]["winner"] == "辩手乙"


@needs_sample
def test_sample_round_trips_through_json(tmp_path):
    a = open_archive(tmp_path / "a.duckdb")
    [res] = import_paths(a, [SAMPLE])
    r = cli("export", res.id, "--format", "json", "--archive", str(a.path))  # stdout when no --out
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout)
    assert first["verdict"]["scores"] == {"辩手甲": 6.5, "辩手乙": 8.0}
    src = tmp_path / "s.json"
    src.write_text(r.stdout, encoding="utf-8")
    b = open_archive(tmp_path / "b.duckdb")
    import_paths(b, [src])
    assert to_json_dict(b.get_debate(res.id)) == first


# ------------------------------------------------------------------ Markdown


def test_master_markdown_exports_and_imports(tmp_path, pack):
    a = open_archive(tmp_path / "a.duckdb")
    d = run_debate(a, pack)
    r = cli("export", d.id, "--format", "md", "--archive", str(a.path))
    assert r.returncode == 0, r.stderr
    md = r.stdout
    assert md.startswith("> 本对话依据历史佛教文献生成") and "### R1｜慧能大师 立论" in md and "### 教内余争 — 中立观察" in md
    path = tmp_path / "m.md"
    path.write_text(md, encoding="utf-8")
    b = open_archive(tmp_path / "b.duckdb")
    [res] = import_paths(b, [path], pack=str(pack))
    assert res.kind == "master-md" and res.id == d.id  # the engine line carries the id
    got = b.get_debate(d.id)
    assert got.topic == d.topic and got.status == "completed"
    assert [p.label for p in got.participants] == ["huineng", "yinguang"]
    assert [(s.round, s.speaker, s.role) for s in got.rounds] == [(s.round, s.speaker, s.role) for s in d.rounds]
    assert [s.text for s in got.rounds] == [s.text.strip() for s in d.rounds]
    assert [s.citations for s in got.rounds] == [s.citations for s in d.rounds]
    assert got.observation == d.observation
    assert got.pack_name == "test-pack"
    assert import_paths(a, [path])[0].status == "exists"


def test_seed_style_markdown_without_pack_or_engine_line(tmp_path):
    text = """> 本对话依据历史佛教文献生成，对比旨在展现多元视角，不评判优劣。

## 议题：顿悟与渐修

### R1｜甲师 立论
甲师的立论，引 T48n2008 为据。

### R2｜乙师 反驳
先复述甲师原意，再作回应。X62n1182

### 教内余争 — 中立观察
- 分歧本质：见地层。
- 共识点：都重实修。
- 留给读者：两条路都通。
"""
    path = tmp_path / "seed.md"
    path.write_text(text, encoding="utf-8")
    arc = open_archive(tmp_path / "a.duckdb")
    [res] = import_paths(arc, [path])
    d = arc.get_debate(res.id)
    assert [p.label for p in d.participants] == ["甲师", "乙师"]
    assert d.rounds[0].citations == ["T48n2008"] and d.rounds[1].citations == ["X62n1182"]
    assert d.observation.divergence == "见地层。" and d.status == "completed"
    broken = tmp_path / "broken.md"
    broken.write_text(text.replace("### R2｜", "### R3｜"), encoding="utf-8")
    with pytest.raises(ImportFormatError) as info:
        import_paths(arc, [broken])
    assert info.value.line == 8 and "R3" in str(info.value)


# ------------------------------------------------------------ other formats


def test_slug_rules():
    assert slugify("Remote Work vs Office!") == "remote-work-vs-office"
    assert slugify("缺爱的人 vs 不缺爱的人，谁更懂得如何爱人？") == "缺爱的人-vs-不缺爱的人谁更懂得如何爱人"
    assert len(slugify("a" * 100)) == 40
    assert slugify("  Hello,   World  ") == "hello-world"
    assert slugify("？！") == "debate"


@needs_sample
def test_debate_dir_export_and_reimport(tmp_path):
    a = open_archive(tmp_path / "a.duckdb")
    [res] = import_paths(a, [SAMPLE])
    r = cli("export", res.id, "--format", "debate-dir", "--out", str(tmp_path / "out"), "--archive", str(a.path))
    assert r.returncode == 0, r.stderr
    folder = tmp_path / "out" / "缺爱的人-vs-不缺爱的人谁更懂得如何爱人.debate"
    assert sorted(p.name for p in folder.iterdir()) == ["debate-log.md", "verdict.md"]
    log = (folder / "debate-log.md").read_text(encoding="utf-8")
    assert "- **辩题**：缺爱的人 vs 不缺爱的人，谁更懂得如何爱人？" in log and "## 第 3 轮" in log
    assert "辩手乙 → 「不缺爱的人更懂得如何爱人」" in log
    verdict = (folder / "verdict.md").read_text(encoding="utf-8")
    assert "| 辩手 | 立场 | 最强论点 | 致命弱点 | 评分 |" in verdict and "**8.0**" in verdict
    assert import_paths(a, [folder])[0].status == "exists"  # the id travels with the folder
    b = open_archive(tmp_path / "b.duckdb")
    [again] = import_paths(b, [folder])
    d = b.get_debate(again.id)
    assert d.verdict.winner == "辩手乙" and d.verdict.scores == {"辩手甲": 6.5, "辩手乙": 8.0}
    assert len(d.rounds) == 6 and d.rounds[4].envelope["no_new_points"] is True


def test_master_debate_dir_export(tmp_path, pack):
    a = open_archive(tmp_path / "a.duckdb")
    d = run_debate(a, pack)
    folder = export_debate(a, d.id, "debate-dir", tmp_path)
    assert folder.name == slugify(d.topic) + ".debate"
    assert "### R1｜" in (folder / "debate-log.md").read_text(encoding="utf-8")
    assert "中立观察" in (folder / "verdict.md").read_text(encoding="utf-8")
    b = open_archive(tmp_path / "b.duckdb")
    [res] = import_paths(b, [folder], pack=str(pack))
    assert res.id == d.id and b.get_debate(d.id).observation == d.observation


def test_parquet_export(tmp_path, pack):
    import duckdb
    import pyarrow.parquet as pq

    a = open_archive(tmp_path / "a.duckdb")
    d = run_debate(a, pack)
    run_debate(a, pack, topic="另一个议题：念佛")
    out = tmp_path / "pq"
    r = cli("export", d.id, "--format", "parquet", "--out", str(out), "--archive", str(a.path))
    assert r.returncode == 0, r.stderr
    assert pq.read_table(out / "debates.parquet").num_rows == 1
    sp = pq.read_table(out / "speeches.parquet").to_pandas()
    assert len(sp) == 4 and set(sp["debate_id"]) == {d.id}
    assert pq.read_table(out / "pack_critiques.parquet").num_rows == 3
    # another engine reads them
    con = duckdb.connect()
    assert con.execute(f"SELECT count(*) FROM read_parquet('{out}/summaries.parquet')").fetchone()[0] == 4
    every = export_debate(a, "all", "parquet", tmp_path / "all")
    assert pq.read_table(every / "debates.parquet").num_rows == 2
    assert pq.read_table(every / "audit_calls.parquet").num_rows == 0  # the audit tables come along, empty here


def test_notebook_export_validates_and_executes(tmp_path, pack):
    import nbformat
    from nbclient import NotebookClient

    a = open_archive(tmp_path / "a.duckdb")
    d = run_debate(a, pack)
    out = tmp_path / "d.ipynb"
    r = cli("export", d.id, "--format", "ipynb", "--out", str(out), "--archive", str(a.path))
    assert r.returncode == 0, r.stderr
    nb = nbformat.read(out, as_version=4)
    nbformat.validate(nb)
    sources = "\n".join(c.source for c in nb.cells)
    assert d.topic in sources and "### R1｜" in sources and "open_archive" in sources and "plotly" in sources
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("application/vnd.plotly.v1+json" in o.get("data", {}) for o in outputs)
    assert any(d.topic in "".join(o.get("text", "")) for o in outputs if o.output_type == "stream")


def test_export_unknown_id_is_one_line(tmp_path):
    path = tmp_path / "a.duckdb"
    open_archive(path)
    r = cli("export", "nope", "--format", "json", "--archive", str(path))
    assert r.returncode == 2 and r.stderr.startswith("error: no debate 'nope'") and r.stderr.count("\n") == 1


# ------------------------------------------------------------- never overwrite


def _one_error_line(r) -> str:
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: export: "), r.stderr
    return lines[0]


@pytest.mark.parametrize("fmt", ["md", "json", "ipynb"])
def test_export_out_never_overwrites_a_file_without_force(tmp_path, pack, fmt):
    a = open_archive(tmp_path / "a.duckdb")
    d = run_debate(a, pack)
    out = tmp_path / f"mine.{fmt}"
    out.write_text("my own notes", encoding="utf-8")
    r = cli("export", d.id, "--format", fmt, "--out", str(out), "--archive", str(a.path))
    line = _one_error_line(r)
    assert str(out) in line and "--force" in line and "already exists" in line
    assert out.read_text(encoding="utf-8") == "my own notes"
    r = cli("export", d.id, "--format", fmt, "--out", str(out), "--archive", str(a.path), "--force")
    assert r.returncode == 0, r.stderr
    assert out.read_text(encoding="utf-8") != "my own notes" and d.id in out.read_text(encoding="utf-8")
    # into a folder: <id>.<fmt> there, refused the second time
    folder = tmp_path / "into"
    folder.mkdir()
    assert cli("export", d.id, "--format", fmt, "--out", str(folder), "--archive", str(a.path)).returncode == 0
    written = folder / f"{d.id}.{fmt}"
    before = written.read_bytes()
    _one_error_line(cli("export", d.id, "--format", fmt, "--out", str(folder), "--archive", str(a.path)))
    assert written.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == [written.name]


def test_debate_dir_and_parquet_exports_never_overwrite_without_force(tmp_path, pack):
    a = open_archive(tmp_path / "a.duckdb")
    d = run_debate(a, pack)
    out = tmp_path / "out"
    assert cli("export", d.id, "--format", "debate-dir", "--out", str(out), "--archive", str(a.path)).returncode == 0
    folder = out / f"{slugify(d.topic)}.debate"
    (folder / "verdict.md").write_text("edited by hand", encoding="utf-8")
    line = _one_error_line(cli("export", d.id, "--format", "debate-dir", "--out", str(out), "--archive", str(a.path)))
    assert "debate-log.md" in line or "verdict.md" in line
    assert (folder / "verdict.md").read_text(encoding="utf-8") == "edited by hand"
    r = cli("export", d.id, "--format", "debate-dir", "--out", str(out), "--archive", str(a.path), "--force")
    assert r.returncode == 0 and "中立观察" in (folder / "verdict.md").read_text(encoding="utf-8")
    # a <slug>.debate folder named as --out is the target itself
    assert cli("export", d.id, "--format", "debate-dir", "--out", str(folder), "--archive", str(a.path),
               "--force").returncode == 0
    assert sorted(p.name for p in folder.iterdir()) == ["debate-log.md", "verdict.md"]
    pq_out = tmp_path / "pq"
    assert cli("export", d.id, "--format", "parquet", "--out", str(pq_out), "--archive", str(a.path)).returncode == 0
    stamp = (pq_out / "debates.parquet").stat().st_mtime_ns
    _one_error_line(cli("export", d.id, "--format", "parquet", "--out", str(pq_out), "--archive", str(a.path)))
    assert (pq_out / "debates.parquet").stat().st_mtime_ns == stamp


def test_a_topic_debate_dir_export_ends_with_the_wrap_up(tmp_path):
    a = open_archive(tmp_path / "a.duckdb")
    a.save(_judged())
    out = tmp_path / "out"
    r = cli("export", "judged01", "--format", "debate-dir", "--out", str(out), "--archive", str(a.path))
    assert r.returncode == 0, r.stderr
    folder = next(out.iterdir())
    assert f"wrote {folder}" in r.stderr
    # the wrap-up names the files the export wrote, by their paths
    assert "## 收尾" in r.stderr and f"`{folder}/debate-log.md` 与 `{folder}/verdict.md`" in r.stderr
    assert (folder / "debate-log.md").is_file() and (folder / "verdict.md").is_file()
    assert f"存档 `{a.path}`" in r.stderr and r.stderr.rstrip().endswith("可以逐条追溯。")
    assert "参考结论，非定论" in r.stderr
