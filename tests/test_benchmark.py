"""Importing a debate benchmark checkout (the lechmazur/debate layout), ratings over judgments,
judge analysis and the argument ledger, on our own fixtures in that layout (tests/fixtures/benchmark,
tests/fixtures/benchmark_bad, tests/benchmark_synth.py).  Real DuckDB archives, real CLI runs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from debate_core.analysis import judgments as J
from debate_core.analysis.ledger import build_ledger, dropped_rates, ledger_json
from debate_core.archive import open_archive
from debate_core.io.importers import import_paths
from debate_core.models import Debate, DebateConfig, Participant, Speech
from tests.benchmark_synth import write_benchmark
from tests.conftest import run_cli

FIXTURE = Path(__file__).parent / "fixtures" / "benchmark"
BAD = Path(__file__).parent / "fixtures" / "benchmark_bad"
REPORTS = "reports/debate_matchup_judgments"


# ------------------------------------------------------------- reading the fixture independently


def report_rows(root: Path) -> dict[str, list[list[str]]]:
    """Per source debate id, the judge-table rows of the reports, read with plain line splitting."""
    out: dict[str, list[list[str]]] = {}
    for p in sorted((root / REPORTS).glob("*/*.md")):
        current = None
        for line in p.read_text(encoding="utf-8").splitlines():
            m = re.match(r"- debate_id: `(.+)`", line)
            if m:
                current = m.group(1)
                out[current] = []
            elif current and line.startswith("| ") and not line.startswith(("| Judge | Winner", "| ---")):
                out[current].append([c.strip() for c in line.strip("|").split("|")])
    return out


def transcript_paragraphs(path: Path) -> list[tuple[str, str, str]]:
    """(side, claim id, text) of every tagged paragraph, in order."""
    side, out = None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"## Turn \d+: (PRO|CON) ", line)
        if m:
            side = m.group(1).lower()
        m = re.match(r"\[([PC]\d+\.\d+)\] (.*)", line)
        if m:
            out.append((side, m.group(1), m.group(2)))
    return out


@pytest.fixture()
def imported(tmp_path):
    arc = open_archive(tmp_path / "bench.duckdb")
    results = import_paths(arc, [FIXTURE])
    return arc, results


# ------------------------------------------------------------------------------ import


def test_checkout_imports_every_transcript_with_its_turns_and_judgments(imported):
    arc, results = imported
    transcripts = sorted((FIXTURE / "transcripts").glob("*.md"))
    assert len(results) == len(transcripts) and {r.status for r in results} == {"imported"}
    assert {r.kind for r in results} == {"benchmark"}
    assert sorted(Path(r.path).name for r in results) == [p.name for p in transcripts]
    rows = report_rows(FIXTURE)
    names = J.model_names(arc)
    assert names["beta-pro-high"] == "Beta Pro (high reasoning)" and names["alpha-7b"] == "Alpha 7B"
    for r in results:
        d = arc.get_debate(r.id)
        source_id = Path(r.path).stem
        text = Path(r.path).read_text(encoding="utf-8")
        head = dict(re.findall(r"^- (\w+): (.*)$", text.split("## Turn")[0], re.M))
        assert d.protocol == "benchmark" and d.lang == "en" and d.status == "completed"
        assert d.topic == head["proposition"]
        pro, con = d.participant("pro"), d.participant("con")
        assert (pro.model, con.model) == (head["model_pro"], head["model_con"])
        assert pro.name == names.get(pro.model, pro.model)
        # every turn a speech: its side, phase, round and model
        headings = re.findall(r"^## Turn (\d+): (PRO|CON) (.+)$", text, re.M)
        assert len(d.rounds) == len(headings) == 10
        phases = [s.role for s in d.rounds]
        assert phases == ["opening", "opening", "rebuttal", "rebuttal", "pressure_questions", "pressure_questions",
                          "answers", "answers", "closing", "closing"]
        assert [s.round for s in d.rounds] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        assert [s.speaker for s in d.rounds] == [h[1].lower() for h in headings]
        assert all(s.envelope["model"] == (head["model_pro"] if s.speaker == "pro" else head["model_con"])
                   for s in d.rounds)
        claims = [c["id"] for s in d.rounds for c in s.envelope["claims"]]
        assert claims == [cid for _, cid, _ in transcript_paragraphs(Path(r.path))]
        # the judge rows of its report, each a judgment
        expected = rows.get(source_id, [])
        assert [(j.judge, j.winner_name) for j in d.judgments] == [(row[0], row[1]) for row in expected]
        for j, row in zip(d.judgments, expected):
            assert j.margin == float(row[2]) and j.normalized == float(row[3]) and j.entertainment == float(row[4])
            side = "tie" if row[1] == "Tie" else "pro" if row[1] == pro.name else "con"
            assert j.winner == side
            assert j.notes and j.group == d.group and j.template == "judge_fixture_a__debate_fixture_a"
            if j.winner != "tie":  # the signed margin agrees with the side that won
                assert (j.margin > 0) == (j.winner == "pro")
        if expected:
            votes = [j.winner for j in d.judgments]
            majority = "pro" if votes.count("pro") > votes.count("con") else (
                "con" if votes.count("con") > votes.count("pro") else "draw")
            assert d.verdict.winner == majority
    # the two debates of a side-swap group share it; the sides are reversed
    groups: dict[str, list[Debate]] = {}
    for r in results:
        d = arc.get_debate(r.id)
        groups.setdefault(d.group, []).append(d)
    complete = [g for g in groups.values() if len(g) == 2]
    assert len(complete) == 4 and len(groups) == 5
    for a, b in complete:
        assert (a.participant("pro").model, a.participant("con").model) == \
               (b.participant("con").model, b.participant("pro").model)
    board = J.leaderboard(arc)
    assert list(board["model"]) == ["Beta Pro (high reasoning)", "Gamma 2", "Alpha 7B", "Delta Mini"]


def test_a_tie_row_is_a_tie(imported):
    arc, _ = imported
    frame = J.judgments_frame(arc)
    ties = frame[frame["winner"] == "tie"]
    assert len(ties) >= 1 and (ties["margin"] == 0).all()


def test_import_is_idempotent_by_source_and_heals_when_a_report_arrives(tmp_path):
    partial = tmp_path / "checkout"
    shutil.copytree(FIXTURE, partial)
    report = next((partial / REPORTS).glob("*/matchup-judgment-prop_0101-*.md"))
    report.unlink()
    arc = open_archive(tmp_path / "a.duckdb")
    first = import_paths(arc, [partial])
    assert {r.status for r in first} == {"imported"}
    counts = arc.judgment_counts([r.id for r in first])
    assert sum(1 for r in first if counts[r.id] == 0) == 2  # prop_0101's two debates have no judgments yet
    again = import_paths(arc, [partial])
    assert {r.status for r in again} == {"exists"} and [r.id for r in again] == [r.id for r in first]
    shutil.copy(next((FIXTURE / REPORTS).glob("*/matchup-judgment-prop_0101-*.md")), report)
    healed = import_paths(arc, [partial])
    assert sorted(r.status for r in healed).count("updated") == 2
    assert all(r.status in ("exists", "updated") for r in healed)
    assert arc.count_debates() == len(first)  # nothing duplicated
    frame = J.judgments_frame(arc)
    assert len(frame) == sum(len(v) for v in report_rows(FIXTURE).values())


def test_cli_import_json_lists_ids_and_source_paths(tmp_path):
    path = tmp_path / "cli.duckdb"
    r = run_cli("import", str(FIXTURE), "--archive", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert len(rows) == 9 and all(re.fullmatch(r"[0-9a-f]{12}", x["id"]) for x in rows)
    assert {Path(x["path"]).parent.name for x in rows} == {"transcripts"}
    again = json.loads(run_cli("import", str(FIXTURE), "--archive", str(path), "--format", "json").stdout)
    assert [x["id"] for x in again] == [x["id"] for x in rows] and {x["status"] for x in again} == {"exists"}


def test_malformed_files_are_named_with_their_line_skipped_and_nothing_saved_is_lost(tmp_path):
    path = tmp_path / "bad.duckdb"
    arc = open_archive(path)
    good = import_paths(arc, [FIXTURE])
    before = arc.count_debates()
    expected = re.findall(r"^- `([^`]+)` line (\d+):", (BAD / "EXPECTED.md").read_text(encoding="utf-8"), re.M)
    assert len(expected) == 3
    r = run_cli("import", str(BAD), "--archive", str(path))
    assert r.returncode == 1
    skipped = [line for line in r.stderr.splitlines() if line.startswith("skipped: ")]
    assert len(skipped) == len(expected), r.stderr
    for file, line in expected:
        assert any(f"{BAD / file}, line {line}:" in s for s in skipped), (file, line, skipped)
    # the well-formed group came in, with its judgments; the broken transcripts did not
    arc = open_archive(path)
    assert arc.count_debates() == before + 2
    bad_report_debates = [d for d in arc.list_debates(limit=100)["id"] if arc.get_debate(d).topic.startswith("Choir")]
    assert bad_report_debates == []
    new = [i for i in arc.list_debates(limit=100)["id"] if i not in {g.id for g in good}]
    assert len(new) == 2 and all(arc.get_debate(i).judgments for i in new)
    assert all(arc.exists(g.id) for g in good)


def test_a_report_with_a_broken_row_attaches_none_of_its_judgments(tmp_path):
    broken = tmp_path / "co"
    shutil.copytree(FIXTURE, broken)
    report = next((broken / REPORTS).glob("*/matchup-judgment-prop_0102-*.md"))
    lines = report.read_text(encoding="utf-8").splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("| ") and "+" in line and "Judge |" not in line)
    cells = lines[row].split("|")
    cells[4] = " lots "
    lines[row] = "|".join(cells)
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    arc = open_archive(tmp_path / "x.duckdb")
    res = import_paths(arc, [broken])
    skipped = [r for r in res if r.status == "skipped"]
    assert len(skipped) == 1 and f", line {row + 1}: the normalized margin is not a number: 'lots'" in skipped[0].message
    prop_0102 = [arc.get_debate(r.id) for r in res if r.status == "imported" and "prop_0102" in r.path]
    assert len(prop_0102) == 2 and all(d.judgments == [] for d in prop_0102)


# ----------------------------------------------------------------------------- ratings


def test_ratings_recover_the_true_order_and_agree_with_the_published_board(tmp_path):
    root = tmp_path / "synth"
    truth = write_benchmark(root, models=10, groups=300, judges=3, paragraphs=2, words=20, seed=3, incomplete=20)
    arc = open_archive(tmp_path / "s.duckdb")
    import_paths(arc, [root])
    frame = J.judgments_frame(arc)
    assert len(frame) == truth["judgments"]
    table = J.matchup_ratings(frame, names=J.model_names(arc), bootstrap=100)
    assert set(table["name"]) == set(truth["display"].values())  # shown by the source's display names
    true_order = sorted(truth["strengths"], key=truth["strengths"].get, reverse=True)
    agree = J.rank_agreement(table, pd.DataFrame({"model": true_order, "rank": range(1, len(true_order) + 1)}))
    assert agree["models"] == 10 and agree["spearman"] >= 0.9
    published = J.leaderboard(arc)
    assert J.rank_agreement(table, published)["spearman"] == agree["spearman"]  # the board is the true order
    assert ((table["ci_low"] <= table["rating"]) & (table["rating"] <= table["ci_high"])).all()
    # complete groups only, by default: the incomplete ones are rated only when asked
    m = J.matchups(frame)
    assert table["matchups"].sum() == 2 * m["complete"].sum()
    everything = J.matchup_ratings(frame, complete_only=False, bootstrap=0)
    assert everything["matchups"].sum() == 2 * len(m)


def test_side_swaps_cancel_a_judge_panel_that_favours_pro(tmp_path):
    root = tmp_path / "biased"
    truth = write_benchmark(root, models=6, groups=240, judges=3, paragraphs=1, words=10, seed=5, pro_bias=1.5)
    arc = open_archive(tmp_path / "b.duckdb")
    import_paths(arc, [root])
    frame = J.judgments_frame(arc)
    bias = J.side_bias(frame)
    assert bias["biased"].all() and (bias["ci_low"] > 0.5).all()  # every judge favours the side presented first
    table = J.matchup_ratings(frame, bootstrap=0)
    order = sorted(truth["strengths"], key=truth["strengths"].get, reverse=True)
    rho = J.rank_agreement(table, pd.DataFrame({"model": order, "rank": range(1, 7)}))["spearman"]
    assert rho >= 0.75  # each model argued both sides, so the PRO advantage does not reorder them


def test_an_unbiased_panel_is_not_flagged(tmp_path):
    root = tmp_path / "fair"
    write_benchmark(root, models=6, groups=200, judges=2, paragraphs=1, words=10, seed=9, pro_bias=0.0)
    arc = open_archive(tmp_path / "f.duckdb")
    import_paths(arc, [root])
    bias = J.side_bias(J.judgments_frame(arc))
    assert not bias["biased"].any() and ((bias["ci_low"] < 0.5) & (bias["ci_high"] > 0.5)).all()


def test_judge_agreement_matrix_counts_same_winner_on_common_debates(imported):
    arc, _ = imported
    frame = J.judgments_frame(arc)
    share, common = J.agreement_matrix(frame)
    judges = sorted(frame["judge"].unique())
    assert list(share.index) == judges and np.allclose(np.diag(share.to_numpy()), 1.0)
    assert (share.to_numpy() == share.to_numpy().T).all()
    by = {(r.debate_id, r.judge): r.winner for r in frame.itertuples()}
    for a in judges:
        for b in judges:
            both = [d for d in frame["debate_id"].unique() if (d, a) in by and (d, b) in by]
            assert common.loc[a, b] == len(both)
            if both and a != b:
                assert share.loc[a, b] == pytest.approx(sum(by[(d, a)] == by[(d, b)] for d in both) / len(both),
                                                        abs=1e-3)


def test_margin_views(imported):
    arc, _ = imported
    frame = J.judgments_frame(arc)
    dist = J.margin_distribution(frame)
    assert dist.groupby("judge")["count"].sum().to_dict() == frame.groupby("judge").size().to_dict()
    assert np.allclose(dist.groupby("judge")["share"].sum(), 1.0, atol=1e-3)
    mean, count = J.margin_matrix(frame, names=J.model_names(arc))
    assert "Alpha 7B" in mean.index and np.allclose(mean.to_numpy(), -mean.to_numpy().T, equal_nan=True)
    assert count.loc["Alpha 7B", "Beta Pro (high reasoning)"] == 1


def test_our_own_trials_feed_the_same_ratings(tmp_path):
    """Judgments from our own judges (a trial's verdict) join the frame: one row per debate and judge."""
    arc = open_archive(tmp_path / "own.duckdb")
    debates = []
    for i, (pro, con, winner) in enumerate([("m-a", "m-b", "pro"), ("m-b", "m-a", "con"), ("m-a", "m-b", "draw")]):
        d = Debate(id=f"own{i}", protocol="trial", topic="Remote work is better", status="completed",
                   participants=[Participant(label="pro", model=pro), Participant(label="con", model=con)],
                   config=DebateConfig(protocol="trial", topic="Remote work is better", judge_model="judge-x"),
                   lang="en")
        from debate_core.models import Verdict

        d.verdict = Verdict(winner=winner, judge="judge-x")
        debates.append(d)
    arc.save_many(debates)
    frame = J.judgments_frame(arc)
    assert list(frame["winner"]) == ["pro", "con", "tie"] and set(frame["judge"]) == {"judge-x"}
    m = J.matchups(frame)
    assert len(m) == 1 and bool(m["complete"].iloc[0]) and m["a_score"].iloc[0] == pytest.approx(2.5 / 3)


# ------------------------------------------------------------------------------ ledger


def _debate_of(arc, results, stem: str) -> Debate:
    return arc.get_debate(next(r.id for r in results if Path(r.path).stem.startswith(stem)))


def test_ledger_of_a_benchmark_debate(imported):
    arc, results = imported
    for r in results:
        d = arc.get_debate(r.id)
        led = build_ledger(d)
        paragraphs = transcript_paragraphs(Path(r.path))
        assert [c.id for c in led.claims] == [cid for _, cid, _ in paragraphs]
        side_of = {cid: side for side, cid, _ in paragraphs}
        # every inline citation of an opponent's claim is an attack from that paragraph
        for side, cid, text in paragraphs:
            for ref in set(re.findall(r"\[([PC]\d+\.\d+)\]", text)):
                if ref in side_of and side_of[ref] != side:
                    assert any(a.source == cid and a.target == ref for a in led.attacks), (r.path, cid, ref)
        # an answer A1: answers the opponent's question Q1:
        questions = {(side, m.group(1)): cid for side, cid, t in paragraphs if (m := re.match(r"Q(\d+):", t))}
        for side, cid, t in paragraphs:
            m = re.match(r"A(\d+):", t)
            if m:
                other = "con" if side == "pro" else "pro"
                assert any(a.source == cid and a.target == questions[(other, m.group(1))] and a.kind == "answer"
                           for a in led.attacks)
        answered = {a.target for a in led.attacks}
        last = d.rounds[-1].speaker
        final = {c["id"] for c in d.rounds[-1].envelope["claims"]}
        for c in led.claims:
            if c.id in final:  # nobody could answer the last closing
                assert c not in led.dropped
            else:
                assert (c in led.dropped) == (c.id not in answered), (r.path, c.id)
        assert all(a.speaker != side_of[a.target] for a in led.attacks)
        assert last == "con"


def test_ledger_names_the_claims_the_fixture_leaves_unanswered(imported):
    arc, results = imported
    led = build_ledger(_debate_of(arc, results, "prop_0101__alpha-7b__beta-pro-high__s0"), evidence=("explicit",))
    dropped = {c.id for c in led.dropped}
    assert {"P1.1", "P1.3", "C1.3"} <= dropped
    # C1.3 (crowded routes fill the carriage) answers P1.3 (a choice for passengers) without citing it
    led = build_ledger(_debate_of(arc, results, "prop_0101__alpha-7b__beta-pro-high__s0"))
    assert ("C1.3", "P1.3", "inferred") in {(a.source, a.target, a.evidence) for a in led.attacks}
    assert "P1.3" not in {c.id for c in led.dropped}
    led = build_ledger(_debate_of(arc, results, "prop_0103__alpha-7b__gamma-2__s1"))
    assert led.unresolved == ["C9.9"]


def test_cli_ledger_json_and_md(imported, tmp_path):
    arc, results = imported
    r = results[0]
    out = run_cli("ledger", r.id, "--archive", str(arc.path), "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"claims", "attacks", "dropped", "evidence"}
    assert data["evidence"]["used"] == ["explicit", "inferred"]
    assert data == json.loads(json.dumps(ledger_json(build_ledger(arc.get_debate(r.id)))))
    assert {"id", "speaker", "round", "text"} <= set(data["claims"][0])
    assert {"source", "target"} <= set(data["attacks"][0])
    md = run_cli("ledger", r.id, "--archive", str(arc.path)).stdout
    assert md.startswith(f"# Argument ledger: {r.id}") and "**dropped**" in md
    bad = run_cli("ledger", "nosuchdebate", "--archive", str(arc.path))
    assert bad.returncode == 2 and bad.stderr.startswith("error: no debate 'nosuchdebate'")


def test_ledger_of_a_topic_debate_reads_envelopes_in_both_languages():
    for a, b in (("Debater A", "Debater B"), ("辩手甲", "辩手乙")):
        d = Debate(id="t1", protocol="topic", topic="t", config=DebateConfig(protocol="topic", topic="t"),
                   participants=[Participant(label=a, model="m1"), Participant(label=b, model="m2")],
                   rounds=[Speech(round=1, speaker=a, role="opening", envelope={"arguments": [
                               {"id": "A1", "point": "first"}, {"id": "A2", "point": "second"}], "rebuttals": []}),
                           Speech(round=1, speaker=b, role="opening", envelope={"arguments": [
                               {"id": "A1", "point": "other"}], "rebuttals": []}),
                           Speech(round=2, speaker=a, role="rebuttal", envelope={"arguments": [], "rebuttals": [
                               {"target": f"{b} A1", "type": "challenge", "content": "no"}]}),
                           Speech(round=2, speaker=b, role="rebuttal", envelope={"arguments": [], "rebuttals": [
                               {"target": f"{a} A2", "type": "反驳" if a == "辩手甲" else "rebuttal", "content": "x"},
                               {"target": f"{a} A9", "type": "rebuttal", "content": "y"}]})])
        led = build_ledger(d)
        assert led.basis == "envelopes"
        assert [(x.source, x.target, x.kind) for x in led.attacks] == [
            (f"{a} R2.1", f"{b} A1", "challenge"), (f"{b} R2.1", f"{a} A2", "rebuttal")]
        assert led.unresolved == [f"{a} A9"]
        # A1 was never answered though B spoke in a later round; B's claims were all answered, and the
        # round-2 rebuttals came after everyone else had spoken (a round's debaters speak at once)
        assert [c.id for c in led.dropped] == [f"{a} A1"]


def test_ledger_of_a_master_debate_follows_the_speech_plans(tmp_path):
    from debate_core import runs

    arc = open_archive(tmp_path / "m.duckdb")
    runner, debate = runs.start(DebateConfig(topic="禅宗顿悟和净土念佛，到底谁更直接？"), arc)
    debate = runner.run(debate)
    led = build_ledger(arc.get_debate(debate.id))
    assert led.basis == "speech plans" and led.evidence == ["explicit"]
    assert {c.round for c in led.claims} == {s.round for s in debate.rounds} and all(c.text for c in led.claims)
    # every attack is a plan point's target (tests/test_ledger_evidence.py checks them one by one)
    assert led.attacks and all(a.evidence == "explicit" and a.kind != "restatement" for a in led.attacks)


def test_dropped_rates_per_model_by_hand():
    d = Debate(id="h", protocol="benchmark", topic="t", config=DebateConfig(protocol="benchmark", topic="t"),
               participants=[Participant(label="pro", model="mp"), Participant(label="con", model="mc")],
               rounds=[Speech(round=1, speaker="pro", role="opening", text="[P1.1] a\n\n[P1.2] b",
                              envelope={"claims": [{"id": "P1.1", "text": "a"}, {"id": "P1.2", "text": "b"}]}),
                       Speech(round=1, speaker="con", role="opening", text="[C1.1] against [P1.1]",
                              envelope={"claims": [{"id": "C1.1", "text": "against [P1.1]"}]}),
                       Speech(round=2, speaker="pro", role="closing", text="[P2.1] back to [C1.1]",
                              envelope={"claims": [{"id": "P2.1", "text": "back to [C1.1]"}]})])
    rates = dropped_rates([d]).set_index("model")
    assert rates.loc["mc", "answerable"] == 2 and rates.loc["mc", "dropped"] == 1  # P1.2 never answered
    assert rates.loc["mc", "dropped_rate"] == 0.5
    assert rates.loc["mp", "answerable"] == 1 and rates.loc["mp", "dropped"] == 0  # C1.1 answered by P2.1
    assert rates.loc["mp", "own_dropped"] == 1 and rates.loc["mc", "own_dropped"] == 0


# ----------------------------------------------------------------------------- filters


def test_archive_filters_by_judge_side_winner_and_topic(imported):
    arc, _ = imported
    frame = J.judgments_frame(arc)
    kappa = set(frame.loc[frame["judge"] == "Judge Kappa", "debate_id"])
    assert set(arc.list_debates(judge="Judge Kappa")["id"]) == kappa and arc.count_debates(judge="Judge Kappa") == len(kappa)
    everything = arc.get_debates(list(arc.list_debates()["id"]))
    as_pro = {d.id for d in everything if d.participant("pro").model == "alpha-7b"}
    assert set(arc.list_debates(model="alpha-7b", side="pro")["id"]) == as_pro and as_pro
    assert set(arc.list_debates(winner="pro")["id"]) == {d.id for d in everything if d.verdict and d.verdict.winner == "pro"}
    won = {d.id for d in everything if d.verdict and d.verdict.winner in ("pro", "con")
           and d.participant(d.verdict.winner).model == "beta-pro-high"}
    assert set(arc.list_debates(winner="beta-pro-high")["id"]) == won and won
    topic = everything[0].topic
    assert set(arc.list_debates(topic=topic)["id"]) == {d.id for d in everything if d.topic == topic}
    assert "Judge Lambda" in arc.judges()


def test_ratings_on_an_archive_of_only_judgments_uses_them_or_says_to_pass_judgments(tmp_path):
    path = tmp_path / "judged.duckdb"
    assert run_cli("import", str(FIXTURE), "--archive", str(path), "--format", "json").returncode == 0
    explicit = run_cli("ratings", "--archive", str(path), "--judgments", "--bootstrap", "0", "--format", "json")
    assert explicit.returncode == 0, explicit.stderr
    implicit = run_cli("ratings", "--archive", str(path), "--by", "model", "--bootstrap", "0", "--format", "json")
    assert implicit.returncode == 0, implicit.stderr
    assert json.loads(implicit.stdout) == json.loads(explicit.stdout) and json.loads(implicit.stdout)["ratings"]
    assert implicit.stderr.splitlines() == [implicit.stderr.splitlines()[0]]
    assert "per-judge judgments" in implicit.stderr and "--judgments" in implicit.stderr
    by_stance = run_cli("ratings", "--archive", str(path), "--by", "stance", "--bootstrap", "0")
    assert by_stance.returncode == 0, by_stance.stderr
    assert [line for line in by_stance.stderr.splitlines() if "pass --judgments" in line]
    assert "0 pairwise outcomes" in by_stance.stdout
