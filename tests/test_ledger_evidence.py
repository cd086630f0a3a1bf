"""The argument ledger's evidence (issue 24, item 6): explicit, inferred and model attacks; round order and
speaker rules; no duplicates; speech-plan edges for offline master debates and passages for model-written
ones; ``ledger --by-model`` naming and the offline engine left out; ``ledger ID --model M`` end to end
against the scripted server on 127.0.0.1, with its labels cached in the archive; the gold set's figures.

The gold set is our own (tests/fixtures/ledger_gold, README.md there): ten debates in the benchmark layout,
every claim annotated with the earlier claims of the other side it answers, cited or not."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate_core.analysis import ledger as L
from debate_core.analysis.ledger import build_ledger, dropped_rates, ledger_json, ledger_markdown
from debate_core.analysis.ledger_eval import ledger_for, load_gold, score
from debate_core.archive import open_archive
from debate_core.engines.scripted_server import Reply
from debate_core.io.importers import import_paths
from debate_core.models import Debate, DebateConfig, Participant, Speech
from tests.conftest import run_cli

GOLD = Path(__file__).parent / "fixtures" / "ledger_gold"
BENCH = Path(__file__).parent / "fixtures" / "benchmark"
TOPIC = "禅宗顿悟和净土念佛，到底谁更直接？"


@pytest.fixture(scope="module")
def gold():
    return load_gold(GOLD)


def _pairs(led, evidence=None):
    return {(a.source, a.target) for a in led.attacks if evidence is None or a.evidence == evidence}


# --------------------------------------------------------------------------- evidence kinds


def test_every_attack_carries_its_evidence_and_every_report_says_which_was_used(gold):
    g = next(x for x in gold if x.stem.startswith("prop_0901"))
    led = build_ledger(g.debate)
    assert led.evidence == ["explicit", "inferred"] and led.basis == "claim ids"
    assert {a.evidence for a in led.attacks} == {"explicit", "inferred"}
    by = {(a.source, a.target): a for a in led.attacks}
    # explicit: a cited id, and an A1: answer to the other side's Q1:
    assert by[("P2.1", "C1.2")].evidence == "explicit" and by[("P2.1", "C1.2")].kind == "cites"
    assert by[("P4.1", "C3.1")].evidence == "explicit" and by[("P4.1", "C3.1")].kind == "answer"
    # inferred: "Discount passes look efficient on paper…" answers C1.3 (a targeted discount pass) uncited
    inferred = by[("P2.2", "C1.3")]
    assert inferred.evidence == "inferred" and inferred.kind == "engages" and inferred.score > 0
    assert "[C1.3]" not in next(c.text for c in led.claims if c.id == "P2.2")
    # a paragraph that cites answers what it cites: no inferred attack from it
    citing = {a.source for a in led.attacks if a.evidence == "explicit"}
    assert not any(a.source in citing for a in led.attacks if a.evidence == "inferred")
    # explicit only: what the ledger was before; dropped counts only claims no attack of the evidence reaches
    only = build_ledger(g.debate, evidence=("explicit",))
    assert only.evidence == ["explicit"] and _pairs(only) == _pairs(led, "explicit")
    assert {c.id for c in led.dropped} < {c.id for c in only.dropped}
    assert "C1.3" in {c.id for c in only.dropped} and "C1.3" not in {c.id for c in led.dropped}
    # the reports say which evidence was used
    data = ledger_json(led)
    assert data["evidence"] == {"used": ["explicit", "inferred"], "model": None,
                                "attacks": {"explicit": len(_pairs(led, "explicit")),
                                            "inferred": len(_pairs(led, "inferred"))}}
    assert all(a["evidence"] in ("explicit", "inferred") for a in data["attacks"])
    md = ledger_markdown(led)
    assert f"evidence: explicit {len(_pairs(led, 'explicit'))}, inferred {len(_pairs(led, 'inferred'))}" in md
    assert "| C1.3 | lynx-mini | 1 | P2.2 (inferred) |" in md


def test_the_outcome_page_data_says_which_evidence_was_used(gold):
    from webapp import views

    en = next(x for x in gold if x.lang == "en").debate
    lv = views.ledger_view(en)
    n_exp, n_inf = (sum(a.evidence == k for a in lv.ledger.attacks) for k in ("explicit", "inferred"))
    assert lv.basis == (f"the claim ids the speakers cite (evidence: explicit references {n_exp}, "
                        f"inferred by the aligner {n_inf})")
    zh = _model_master([(1, "huineng", "立论", R1), (2, "yinguang", "反驳", R2_ANSWER)])
    lv = views.ledger_view(zh)  # a Chinese debate's map speaks the reader's language (here the default, English)
    assert not lv.chinese and lv.basis.startswith("the passages of each speech (evidence: explicit references 0, ")
    assert lv.dropped == len(build_ledger(zh).dropped)


def test_the_cli_prints_the_evidence(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    r = import_paths(arc, [GOLD])[0]
    out = run_cli("ledger", r.id, "--archive", str(arc.path), "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["evidence"]["used"] == ["explicit", "inferred"]
    only = json.loads(run_cli("ledger", r.id, "--archive", str(arc.path), "--format", "json",
                              "--evidence", "explicit").stdout)
    assert only["evidence"]["used"] == ["explicit"] and len(only["dropped"]) > len(data["dropped"])
    assert {a["evidence"] for a in only["attacks"]} == {"explicit"}
    md = run_cli("ledger", r.id, "--archive", str(arc.path)).stdout
    assert "(read from claim ids; evidence: explicit " in md and ", inferred " in md
    bad = run_cli("ledger", r.id, "--archive", str(arc.path), "--evidence", "model")
    assert bad.returncode == 2 and "needs --model" in bad.stderr


# ------------------------------------------------------------------- order, speaker, duplicates


def _topic(rounds, a="辩手甲", b="辩手乙") -> Debate:
    return Debate(id="t", protocol="topic", topic="城市应当在市中心禁止私家车通行",
                  config=DebateConfig(protocol="topic", topic="t"),
                  participants=[Participant(label=a, model="m-a"), Participant(label=b, model="m-b")],
                  rounds=[Speech(round=r, speaker=sp, role="opening" if r == 1 else "rebuttal",
                                 envelope={"arguments": args, "rebuttals": rebs}) for r, sp, args, rebs in rounds])


def test_topic_edges_respect_round_order_and_speaker_with_no_duplicates():
    a, b = "辩手甲", "辩手乙"
    d = _topic([
        (1, a, [{"id": "A1", "point": "私家车占用大量道路和停车空间，禁行后可以还给步行者和公交车道。"}],
         [{"target": f"{b} A1", "type": "反驳", "content": "对方说公交运力不足，这是开场就写下的反驳。"}]),
        (1, b, [{"id": "A1", "point": "高峰时段地铁已经满员，公交系统承担不了这么多通勤者。"}],
         [{"target": f"{a} A1", "type": "反驳", "content": "盲写的第一轮反驳。"}]),
        (2, a, [{"id": "A1", "point": "私家车占用大量道路和停车空间，禁行后可以还给步行者和公交车道。"},  # reused id
                {"id": "A2", "point": "把修停车场的钱拿来增加地铁班次，高峰满员的问题就能缓解。"}],
         [{"target": f"{a} A1", "type": "反驳", "content": "自己反驳自己。"},
          {"target": f"{b} A1", "type": "质疑", "content": "地铁满员是投入不足造成的。"},
          {"target": f"{b} A1", "type": "质疑", "content": "地铁满员是投入不足造成的。"}]),
        (2, b, [{"id": "A2", "point": "外围换乘站要占用大片土地。"}], []),
    ])
    led = build_ledger(d)
    ids = [c.id for c in led.claims]
    assert len(ids) == len(set(ids)) and ids.count(f"{a} A1") == 1  # the reused id is one claim, the first
    assert next(c for c in led.claims if c.id == f"{a} A1").round == 1
    pairs = [(x.source, x.target) for x in led.attacks]
    assert len(pairs) == len(set(pairs))
    claim = {c.id: c for c in led.claims}
    for x in led.attacks:  # every attack: another speaker's claim of an earlier round
        assert claim[x.target].speaker != x.speaker and claim[x.target].round < claim[x.source].round, x
    assert (f"{a} R2.2", f"{b} A1") in pairs and (f"{a} R2.3", f"{b} A1") in pairs  # two rebuttals, two rows
    assert not any(s.startswith((f"{a} R1", f"{b} R1")) for s, _ in pairs)  # blind round 1 answers nothing
    assert sorted(led.refused) == sorted([f"{a} R1.1 → {b} A1: not made in an earlier round",
                                          f"{b} R1.1 → {a} A1: not made in an earlier round",
                                          f"{a} R2.1 → {a} A1: a rebuttal of its own side"])
    # the aligner reaches only earlier rounds too: A2 (more trains) engages B's round-1 claim, uncited
    assert (f"{a} A2", f"{b} A1") in {(x.source, x.target) for x in led.attacks if x.evidence == "inferred"}
    # a round's debaters speak at once: B's round-2 claim could not answer A's round-2 claims
    assert {c.id for c in led.dropped} == {f"{a} R1.1"} | ({f"{a} A1"} - {x.target for x in led.attacks})


def test_benchmark_citations_make_one_row_per_pair():
    text_p = "[P1.1] buses should be free for everyone"
    d = Debate(id="b", protocol="benchmark", topic="t", config=DebateConfig(protocol="benchmark", topic="t"),
               participants=[Participant(label="pro", model="mp"), Participant(label="con", model="mc")],
               rounds=[Speech(round=1, speaker="pro", role="opening", text=text_p,
                              envelope={"claims": [{"id": "P1.1", "text": "buses should be free for everyone"}]}),
                       Speech(round=1, speaker="con", role="opening", text="[C1.1] [P1.1] is wrong, [P1.1] again",
                              envelope={"claims": [{"id": "C1.1", "text": "[P1.1] is wrong, [P1.1] again"},
                                                   {"id": "C1.1", "text": "a repeated tag"}],
                                        "cited": ["P1.1", "P1.1"]})])
    led = build_ledger(d)
    assert [c.id for c in led.claims] == ["P1.1", "C1.1"]
    assert [(a.source, a.target, a.evidence) for a in led.attacks] == [("C1.1", "P1.1", "explicit")]


# ----------------------------------------------------------------------------- master debates


def _plan_claims(speech):
    """(claim id, plan point) of each plan point the ledger makes a claim of, in order."""
    pts = [p for p in speech.plan.points if p.kind in L._PLAN_CLAIMS]
    return [(f"R{speech.round}.{k}", p) for k, p in enumerate(pts, 1)]


def test_offline_master_debates_take_their_edges_from_the_speech_plans(tmp_path):
    from debate_core import runs

    arc = open_archive(tmp_path / "m.duckdb")
    runner, debate = runs.start(DebateConfig(topic=TOPIC, rounds=4), arc)
    d = arc.get_debate(runner.run(debate).id)
    led = build_ledger(d)
    assert led.basis == "speech plans" and led.evidence == ["explicit"]  # nothing model-written to infer from
    claims = {cid: (s, p) for s in d.rounds for cid, p in _plan_claims(s)}
    assert set(claims) == {c.id for c in led.claims}
    expected = set()
    for cid, (s, p) in claims.items():
        if p.kind not in L._PLAN_EDGES or not p.target:
            continue
        earlier = [tid for tid, (t, q) in claims.items() if t.round < s.round and t.speaker != s.speaker
                   and q.ref == p.target and q.kind not in ("accept", "partly", "hold")]
        if earlier:
            expected.add((cid, earlier[-1], L._PLAN_EDGES[p.kind]))
    got = {(a.source, a.target, a.kind) for a in led.attacks}
    assert got == expected and {a.evidence for a in led.attacks} == {"explicit"}
    kinds = {k for _, _, k in got}
    assert {"rebuttal"} <= kinds and kinds & {"concession", "partly", "hold"}  # answers, and replies to them
    # the 反驳's restatement is no claim and no attack: only its answers are
    r2 = next(s for s in d.rounds if s.role == "反驳")
    assert all(p.kind != "restate" for _, p in _plan_claims(r2))
    assert not any(a.kind == "restatement" for a in led.attacks)


def _model_master(rounds: list[tuple[int, str, str, str]], restated: bool = True) -> Debate:
    from debate_core.models import Finding

    return Debate(id="mm", protocol="master", topic=TOPIC, config=DebateConfig(topic=TOPIC),
                  participants=[Participant(label="huineng", name="慧能大师", model="openai/x"),
                                Participant(label="yinguang", name="印光大师", model="openai/x")],
                  rounds=[Speech(round=r, speaker=sp, role=role, text=text, engine="openai/x",
                                 findings=[Finding(rule="restatement", passed=restated)])
                          for r, sp, role, text in rounds])


R1 = ("迷人念佛求生于彼，悟人自净其心，分别只在迷与悟，不在坐禅还是念佛这个门头上。"
      "若悟得无生顿法，见西方只在刹那之间，佛土就在脚下，不必推到十万亿佛土之外去找。")


R2_ANSWER = ("慧能上一轮所说，一是迷悟不在门头，二是见西方只在刹那。"
             "悟了无生，西方只在刹那，在真悟的人分上，光不敢驳；但能悟无生顿法的人古来不多，"
             "凡夫听了便不肯求生，不如先以信愿持名，求生西方，悟与不悟都有着落。")


def test_a_template_echo_no_longer_counts_as_an_answer():
    echo = _model_master([
        (1, "huineng", "立论", R1),
        (2, "yinguang", "反驳", "慧能上一轮所说，一是迷悟不在门头，二是见西方只在刹那。"
                               "今天天气晴朗，山上的茶树长得很好，采茶的人一早就上山了，傍晚才挑着竹篓回来。"
                               "茶叶要趁新鲜炒制，火候要看师傅的经验，炒好以后装进陶罐里慢慢存放。"),
    ])
    led = build_ledger(echo)
    assert led.basis == "passages" and led.evidence == ["explicit", "inferred"]
    assert not led.attacks  # the restatement passed, but the body answers nothing
    assert {c.id for c in led.dropped} == {c.id for c in led.claims if c.round == 1}
    assert not any("慧能上一轮所说" in c.text for c in led.claims)  # the echo is no claim
    answer = _model_master([(1, "huineng", "立论", R1), (2, "yinguang", "反驳", R2_ANSWER)])
    led = build_ledger(answer)
    assert led.attacks and all(a.evidence == "inferred" and a.source.startswith("R2.") for a in led.attacks)
    assert {a.target for a in led.attacks} <= {c.id for c in led.claims if c.round == 1}


def test_a_model_written_master_debate_reads_passages_through_the_aligner(default_pack, scripted):
    from debate_core.engines.gateway import Gateway
    from debate_core.engines.llm import LLMEngine
    from debate_core.protocols.master import MasterDebate
    from tests.master_script import master_script

    scripted.script = master_script(default_pack)
    md = MasterDebate(default_pack, LLMEngine(Gateway(model="openai/scripted-master", api_base=scripted.url,
                                                      max_retries=0)))
    d = md.run(md.prepare(DebateConfig(topic=TOPIC, model="openai/scripted-master", api_base=scripted.url)))
    assert all(s.engine == "openai/scripted-master" for s in d.rounds)
    led = build_ledger(d)
    assert led.basis == "passages" and led.evidence == ["explicit", "inferred"]
    claim = {c.id: c for c in led.claims}
    assert led.attacks and all(a.evidence == "inferred" for a in led.attacks)
    for a in led.attacks:
        assert claim[a.target].speaker != a.speaker and claim[a.target].round < claim[a.source].round
    r2 = next(s for s in d.rounds if s.role == "反驳")
    first = re.split(r"(?<=[。！？])", r2.text)[0]
    assert first and not any(first in c.text for c in led.claims if c.round == r2.round)  # the echo left out


# ---------------------------------------------------------------------------- ledger --by-model


def test_by_model_names_each_model_once_and_leaves_the_offline_engine_out(tmp_path, default_pack, scripted):
    from debate_core import runs
    from debate_core.engines.gateway import Gateway
    from debate_core.engines.llm import LLMEngine
    from debate_core.protocols.master import MasterDebate
    from tests.master_script import master_script

    arc = open_archive(tmp_path / "a.duckdb")
    import_paths(arc, [BENCH])
    runner, debate = runs.start(DebateConfig(topic=TOPIC), arc)  # offline: 慧能大师 vs 印光大师
    runner.run(debate)
    scripted.script = master_script(default_pack)
    md = MasterDebate(default_pack, LLMEngine(Gateway(model="openai/scripted-master", api_base=scripted.url,
                                                      max_retries=0)))
    arc.save(md.run(md.prepare(DebateConfig(topic=TOPIC, model="openai/scripted-master", api_base=scripted.url))))
    out = run_cli("ledger", "--by-model", "--archive", str(arc.path), "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    rows = data["rates"]
    models = [r["model"] for r in rows]
    assert len(models) == len(set(models))  # each model once
    assert "offline" not in models and not any(r["name"] in ("慧能大师", "印光大师") for r in rows)
    assert data["left_out"]["offline_engine"] == ["huineng", "yinguang"]
    assert data["evidence"] == ["explicit", "inferred"]
    names = {r["model"]: r["name"] for r in rows}
    assert names["beta-pro-high"] == "Beta Pro (high reasoning)" and names["alpha-7b"] == "Alpha 7B"
    assert names["openai/scripted-master"] == "openai/scripted-master"  # no display name known: its id
    md_out = run_cli("ledger", "--by-model", "--archive", str(arc.path)).stdout
    assert "The offline engine is no model and is left out" in md_out and "Evidence: explicit, inferred" in md_out
    # the library call the Archive page makes
    table = dropped_rates(arc.get_debates(list(arc.list_debates(limit=100, mark=False)["id"])))
    assert "offline" not in set(table["model"])


# ------------------------------------------------------------------------- --model, end to end


def _gold_script(g, *, first_bad: bool = False):
    """A labelling 'model' on the scripted server: for each paragraph the prompt shows, the gold targets
    among the claims it shows (so the model ledger is checked against an answer we know)."""
    state = {"n": 0}

    def block(text: str, head: str) -> list[str]:
        part = text.split(head, 1)[1].split("```data\n", 1)[1].split("\n```", 1)[0]
        return re.findall(r"^\[([A-Z]\d+\.\d+)\]", part, re.M)

    def script(body: dict):
        state["n"] += 1
        if first_bad and state["n"] == 1:
            return Reply(text="I think P2.1 answers C1.1.")
        user = body["messages"][1]["content"]
        shown = set(block(user, "Earlier claims of the other side:"))
        links = [{"source": s, "target": t, "relation": "rebuts"}
                 for s in block(user, "Paragraphs of this turn") for t in g.answers.get(s, []) if t in shown]
        return Reply(text="```json\n" + json.dumps({"links": links}) + "\n```")
    return script


def test_ledger_model_labels_through_the_scripted_server_and_caches_them(tmp_path, gold, scripted):
    g = next(x for x in gold if x.stem.startswith("prop_0904"))
    arc = open_archive(tmp_path / "a.duckdb")
    r = next(x for x in import_paths(arc, [GOLD]) if Path(x.path).stem == g.stem)
    scripted.script = _gold_script(g, first_bad=True)
    args = ["ledger", r.id, "--model", "openai/labeller", "--api-base", scripted.url, "--archive", str(arc.path),
            "--format", "json"]
    out = run_cli(*args, timeout=600)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    turns = len(g.debate.rounds) - 1  # every turn after the first has earlier claims of the other side
    lab = data["evidence"]["labelling"]
    assert lab["cached"] is False and lab["calls"] == turns + 1 and not lab["unusable_turns"]  # one repair
    assert data["evidence"]["used"] == ["explicit", "inferred", "model"]
    assert data["evidence"]["model"] == "openai/labeller"
    assert len(scripted.requests) == turns + 1
    assert all(req["model"] == "labeller" for req in scripted.requests)
    # the repair named the problem to the model
    assert "not the JSON asked for" in scripted.requests[1]["messages"][-1]["content"]
    pairs = {(a["source"], a["target"]): a["evidence"] for a in data["attacks"]}
    assert g.edges <= set(pairs)  # every gold pair reached: cited, inferred, or labelled
    assert "model" in pairs.values() and len(pairs) == len(data["attacks"])
    assert {c["id"] for c in data["dropped"]} <= g.dropped()
    assert "model labels: openai/labeller" in out.stderr and "calls" in out.stderr

    # asked again: the labels come from the archive, no request is made
    again = run_cli(*args, timeout=600)
    assert again.returncode == 0, again.stderr
    data2 = json.loads(again.stdout)
    assert len(scripted.requests) == turns + 1
    assert data2["evidence"]["labelling"]["cached"] is True and data2["attacks"] == data["attacks"]
    assert "cached labels, no call made" in again.stderr
    runs_ = arc.ledger_label_runs(r.id)
    assert list(runs_["model"]) == ["openai/labeller"] and int(runs_["calls"].iloc[0]) == turns + 1
    # --refresh asks again and replaces the stored labels
    assert run_cli(*args, "--refresh", timeout=600).returncode == 0
    assert len(scripted.requests) == 2 * turns + 1 and len(arc.ledger_label_runs(r.id)) == 1
    # the markdown marks the model's attacks
    md = run_cli("ledger", r.id, "--model", "openai/labeller", "--api-base", scripted.url,
                 "--archive", str(arc.path), timeout=600).stdout
    assert "(model)" in md and "model " in md and "(openai/labeller)" in md
    # a rewritten debate drops its labels (they are debate rows)
    assert arc.delete(r.id) and len(arc.ledger_label_runs(r.id)) == 0


def test_ledger_model_failure_is_one_line_and_caches_nothing(tmp_path, scripted):
    arc = open_archive(tmp_path / "a.duckdb")
    r = import_paths(arc, [GOLD])[0]
    scripted.script = lambda body: Reply(status=400, error="model not found")
    out = run_cli("ledger", r.id, "--model", "openai/none", "--api-base", scripted.url, "--archive", str(arc.path),
                  timeout=600)
    assert out.returncode == 1 and out.stderr.startswith("error: labelling with openai/none failed")
    assert len(arc.ledger_label_runs(r.id)) == 0


# ------------------------------------------------------------------------------- the gold set


def test_the_gold_set_is_complete_and_consistent(gold):
    assert len(gold) >= 8 and {g.split for g in gold} == {"dev", "test"}
    assert {g.lang for g in gold if g.split == "test"} == {"en", "zh"}
    for g in gold:
        d = L.draft(g.debate)
        assert set(g.answers) == {c.id for c in d.claims}, g.stem  # every claim annotated
        for s, t in g.edges:
            assert d.reaches(s, t), (g.stem, s, t)  # another side's earlier claim
        assert {(a.source, a.target) for a in d.explicit} <= g.edges, g.stem  # a citation is an answer


def test_gold_set_figures_on_the_test_half(gold):
    """Floors a few points under what bench/ledger_bench.py measures on the test half (explicit: P 1.00,
    R 0.27; with the aligner: P 0.76, R 0.52; dropped-claim precision 0.41 -> 0.58): a change to the aligner
    that costs more than that fails here.  The dev half, which the aligner was tuned on, is not scored."""
    test = [g for g in gold if g.split == "test"]
    exp, exp_d = score(test, ledger_for(("explicit",)))
    inf, inf_d = score(test, ledger_for(("explicit", "inferred")))
    assert exp.precision == 1.0 and 0.2 <= exp.recall <= 0.35
    assert inf.precision >= 0.70 and inf.recall >= 0.45
    assert inf.recall - exp.recall >= 0.2
    assert exp_d.recall == 1.0 and inf_d.precision >= exp_d.precision + 0.1 and inf_d.recall >= 0.8
