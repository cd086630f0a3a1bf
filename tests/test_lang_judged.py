"""Issue 14: topic debates and trials speak their own language (zh or en) in every line they
show or send — prompts, labels, tool texts, warnings, progress, rendering — through the CLI
and the scripted OpenAI-compatible server (no mocks)."""

from __future__ import annotations

import json
import os
import re
import threading
from collections import defaultdict
from typing import Callable, Optional

import pytest

from debate_core.engines import judged_prompts
from debate_core.engines.envelopes import EnvelopeError, parse_envelope, render_envelope
from debate_core.engines.scripted_server import Reply, ScriptedServer
from debate_core.engines.verdicts import find_winner, parse_verdict
from debate_core.lang import has_cjk
from debate_core.models import Debate
from debate_core.protocols import registry
from debate_core.protocols.topic import clean_stances, label_stances
from debate_core.protocols.trial import cut_speech
from debate_core.render.judged import progress_line, render_trial, verdict_md
from debate_core.research.tools import Workspace, tool_specs

EN_TOPIC = "Should cities ban private cars from their centres?"
ZH_TOPIC = "城市中心应该禁止私家车吗？"
EN_LABELS = ["Debater A", "Debater B"]


# --------------------------------------------------------------------- helpers


def sent_texts(srv: ScriptedServer) -> list[str]:
    """Every instruction-bearing text the server received: system, user and tool messages, and the
    tools' descriptions (assistant messages are the models' own words)."""
    out: list[str] = []
    for body in srv.requests:
        for m in body.get("messages", []):
            if m.get("role") in ("system", "user", "tool") and m.get("content"):
                out.append(m["content"])
        for t in body.get("tools") or []:
            out.append(json.dumps(t, ensure_ascii=False))
    return out


# Words a Chinese prompt may carry: JSON keys and values of the formats it asks for, tool and
# parameter names, the data fence, format names, and proper nouns.
ALLOWED_LATIN = {
    "JSON", "json", "data", "stance", "stances", "reason", "arguments", "id", "point", "reasoning", "evidence",
    "rebuttals", "target", "type", "content", "no_new_points", "true", "false", "winner", "summary", "reasons",
    "rows", "label", "strongest", "weakness", "score", "note", "per_round", "round", "comment", "pro", "con", "draw",
    "read", "glob", "grep", "offset", "limit", "pattern", "path", "ignore_case", "function", "parameters",
    "properties", "description", "required", "object", "string", "integer", "boolean", "minimum", "name",
    "Python", "NUL", "HTTP",
}


def english_words(text: str) -> list[str]:
    """Latin words of ``text`` outside quoted data blocks, echoed model strings, paths/file names and the
    allowed words."""
    text = re.sub(r"```data\n.*?\n```", " ", text, flags=re.S)
    text = re.sub(r"'[^'\n]*'", " ", text)  # a model's own strings echoed back (a tool name it made up, a path)
    text = re.sub(r"[^\s，。：；（）「」、]*[/.*][^\s，。：；（）「」、]*", " ", text)  # paths, globs, file names
    return [w for w in re.findall(r"[A-Za-z][A-Za-z_]+", text) if w not in ALLOWED_LATIN]


def en_envelope(label: str, round_no: int, *, no_new: bool = False) -> str:
    data = {"stance": "whatever", "no_new_points": no_new,
            "arguments": [] if no_new else [{"id": f"A{round_no}", "point": f"{label} point in round {round_no}",
                                              "reasoning": ["because", "and also"], "evidence": "an example"}],
            "rebuttals": [] if round_no == 1 else [{"target": "Debater B A1", "content": f"{label} answers"}]}
    return "Sure.\n```json\n" + json.dumps(data) + "\n```"


def zh_envelope(label: str, round_no: int, *, no_new: bool = False) -> str:
    data = {"stance": "随便", "no_new_points": no_new,
            "arguments": [] if no_new else [{"id": f"A{round_no}", "point": f"{label}第{round_no}轮论点",
                                              "reasoning": "理由", "evidence": "例子"}],
            "rebuttals": [] if round_no == 1 else [{"target": "辩手乙 A1", "type": "反驳", "content": "反驳内容"}]}
    return "```json\n" + json.dumps(data, ensure_ascii=False) + "\n```"


EN_MARKDOWN_VERDICT = """## 1. Winner
**Winner:** Debater B — the cost evidence was never answered.

## 2. Reasons
**Argument strength:** Debater B brought figures.
**Attack and defence:** Debater A dodged the cost question.
**Logical flaws:** Debater A generalised from one city.

## 3. Debater by debater
| Debater | Stance | Strongest argument | Fatal weakness | Score |
|---|---|---|---|---|
| Debater A | Keep the cars | Local trade | No data | 5 |
| Debater B | Ban the cars | Clean air | Transition costs | **8.5** |

## 4. A note for readers
Pilot schemes first.
"""


class Script:
    """Routes a request of either language: stance split, topic judge, debater, trial speaker or judge."""

    def __init__(self, *, debater: Optional[Callable] = None, judge: Optional[Callable] = None,
                 speaker: Optional[Callable] = None, trial_judge: Optional[Callable] = None,
                 stances=("Ban them", "Keep them")):
        self.debater = debater or (lambda label, r, n, body: en_envelope(label, r, no_new=r >= 2))
        self.judge = judge or (lambda n, body: EN_MARKDOWN_VERDICT)
        self.speaker = speaker or (lambda side, r, n, body: f"The {side} side argues its case in round {r}.")
        self.trial_judge = trial_judge or (lambda n, body: json.dumps({
            "per_round": [{"round": 1, "comment": "Pro was sharper."}], "winner": "pro",
            "summary": "Pro made the better case", "reasons": "Pro cited the workspace"}))
        self.stances = list(stances)
        self.counts: dict = defaultdict(int)
        self.lock = threading.Lock()

    def __call__(self, body):
        msgs = body["messages"]
        system, user = msgs[0]["content"], msgs[1]["content"]
        if "organise a multi-sided debate" in system or "中立编排者" in system:
            key = ("split",)
        elif "independent judge" in system or "独立裁判" in system:
            key = ("judge",)
        elif "You judge this courtroom" in system or "庭审式辩论的裁判" in system:
            key = ("trial_judge",)
        elif (m := re.search(r"You are (Debater .)|你是(辩手.)", system)):
            # this round's request: the last user message naming a round (a repair request names none)
            r = next(r for x in reversed(msgs) if x["role"] == "user"
                     and (r := re.search(r"Round (\d+) \(of|第 (\d+) 轮", x["content"])))
            key = ("debater", m.group(1) or m.group(2), int(r.group(1) or r.group(2)))
        else:
            side = "pro" if ("arguing the Pro side" in system or "担任正方" in system) else "con"
            r = next(r for x in reversed(msgs) if x["role"] == "user"
                     and (r := re.search(r"This is round (\d+) of|现在是第 (\d+) 轮", str(x["content"]))))
            key = ("speaker", side, int(r.group(1) or r.group(2)))
        with self.lock:
            self.counts[key] += 1
            n = self.counts[key]
        if key[0] == "split":
            return json.dumps({"stances": self.stances, "reason": "two sides"}, ensure_ascii=False)
        if key[0] == "judge":
            return self.judge(n, body)
        if key[0] == "trial_judge":
            return self.trial_judge(n, body)
        if key[0] == "debater":
            return self.debater(key[1], key[2], n, body)
        return self.speaker(key[1], key[2], n, body)


@pytest.fixture()
def cli_env(monkeypatch):
    monkeypatch.setenv("DEBATE_BACKOFF", "0.01")
    monkeypatch.delenv("DEBATE_ARCHIVE", raising=False)
    monkeypatch.delenv("DEBATE_MODEL", raising=False)


@pytest.fixture()
def workspace(tmp_path):
    root = tmp_path / "repo"
    (root / "api").mkdir(parents=True)
    (root / "api" / "routes.py").write_text("ROUTES = 42\n", encoding="utf-8")
    (tmp_path / "private.txt").write_text("password=hunter2\n", encoding="utf-8")
    os.symlink(tmp_path / "private.txt", root / "shortcut.txt")
    return root


def assert_no_cjk(texts, what: str) -> None:
    bad = [t for t in texts if has_cjk(t)]
    assert not bad, f"CJK in {what}: {bad[0][:300]!r}"


# ----------------------------------------------------------- English, end to end


def test_an_english_topic_debate_sends_and_shows_no_cjk_and_reads_a_markdown_verdict(capsys, cli_env):
    from debate_core.cli.main import main

    def debater(label, r, n, body):
        if label == "Debater A" and r == 1 and n == 1:
            return "I would rather not."  # repaired: the repair request is English too
        return en_envelope(label, r, no_new=r >= 2)

    def judge(n, body):
        return "I cannot decide." if n == 1 else EN_MARKDOWN_VERDICT  # judge repair, then Markdown

    with ScriptedServer(Script(debater=debater, judge=judge)) as srv:
        code = main(["debate", EN_TOPIC, "--protocol", "topic", "--models", "openai/m-one,openai/m-two",
                     "--api-base", srv.url, "--rounds", "2", "--format", "json"])
        out, err = capsys.readouterr()
        texts = sent_texts(srv)
        systems = [b["messages"][0]["content"] for b in srv.requests]
    assert code == 0
    data = json.loads(out)
    assert data["lang"] == "en" and data["status"] == "completed"
    assert [p["label"] for p in data["participants"]] == EN_LABELS
    assert {p["label"]: p["stance"] for p in data["participants"]} == {"Debater A": "Keep them",
                                                                     "Debater B": "Ban them"}
    v = data["verdict"]
    assert v["winner"] == "Debater B" and v["parsed"] is True
    assert set(v["reasons"]) == {"Argument strength", "Attack and defence", "Logical flaws"}
    assert data["rounds"][0]["warnings"][0].startswith("the first reply was not a valid envelope (the reply holds "
                                                       "no JSON object)")
    assert any("organise a multi-sided debate" in s for s in systems)  # the stance split was asked, in English
    assert any("No winner could be read from the previous verdict" in t for t in texts)  # judge repair
    assert any("cannot be used as an envelope" in t for t in texts)  # envelope repair
    assert any('"target": "Debater X A2"' in t for t in texts)  # the envelope shape names English labels
    assert_no_cjk(texts, "the messages sent")
    assert_no_cjk([out], "stdout")
    assert_no_cjk([err], "stderr")
    progress = [ln for ln in err.splitlines() if ln.startswith("  Round")]
    assert progress[:2] == ["  Round 1 | Debater A opening done (resent 1x)", "  Round 1 | Debater B opening done"]
    assert len(progress) == 4
    md = registry.get("topic").render(Debate.model_validate(data))
    assert_no_cjk([md], "the rendering")
    assert "## 1. Winner" in md and "**Debater B (\"Ban them\") wins**" in md
    assert "- **Stances**: 2 sides — Debater B → \"Ban them\"; Debater A → \"Keep them\"" in md
    assert "| id | Point | Reasoning | Evidence |" in md and "because; and also" in md
    assert "- **rebuttal Debater B A1**: Debater A answers" in md


def test_an_english_trial_sends_and_shows_no_cjk_with_tools_word_limit_and_a_json_verdict(capsys, cli_env,
                                                                                         workspace):
    from debate_core.cli.main import main

    long_speech = " ".join(f"word{i}" for i in range(2100))

    def speaker(side, r, n, body):
        if side == "pro" and r == 1 and n == 1:  # seven calls: one past the budget, with refusals
            return Reply(tool_calls=[{"name": "grep", "arguments": {"pattern": "ROUTES"}},
                                     {"name": "read", "arguments": {"path": "../private.txt"}},
                                     {"name": "read", "arguments": {"path": "shortcut.txt"}},
                                     {"name": "glob", "arguments": {"pattern": "**/*.md"}},
                                     {"name": "read", "arguments": {"path": "missing.txt"}},
                                     {"name": "delete", "arguments": {"path": "api"}},
                                     {"name": "read", "arguments": {"path": "api/routes.py"}}])
        if side == "con" and r == 2:
            return long_speech
        return f"The {side} side, round {r}: api/routes.py:1 shows 42 routes."

    with ScriptedServer(Script(speaker=speaker)) as srv:
        code = main(["debate", "We should replace REST with gRPC", "--protocol", "trial", "--models",
                     "openai/pro-m,openai/con-m", "--rounds", "2", "--api-base", srv.url, "--workspace",
                     str(workspace), "--format", "json"])
        out, err = capsys.readouterr()
        texts = sent_texts(srv)
        tool_msgs = [m["content"] for b in srv.requests for m in b["messages"] if m["role"] == "tool"]
    assert code == 0
    data = json.loads(out)
    assert data["lang"] == "en" and data["status"] == "completed"
    assert [(p["label"], p["name"], p["stance"]) for p in data["participants"]] == [
        ("pro", "Pro", "For the motion"), ("con", "Con", "Against the motion")]
    assert data["verdict"]["winner"] == "pro" and data["verdict"]["reasons"] == {"Reasons": "Pro cited the workspace"}
    assert data["stop_reason"] == "verdict after all 2 rounds"
    # tools: English descriptions, results and errors
    assert any("Read a text file in the workspace" in t for t in texts)
    assert any(t.startswith("error: '..' is refused") for t in tool_msgs)
    assert any("leads outside the workspace" in t for t in tool_msgs)
    assert any(t.startswith("error: the 6 tool calls allowed for this speech are used up") for t in tool_msgs)
    assert any("You have used up your tool calls" in t for t in texts)  # the budget note
    assert any("at most 2000 words" in t for t in texts)
    # the word limit: con's 2100-word speech is cut after 2000 words
    con2 = [s for s in data["rounds"] if s["speaker"] == "con" and s["round"] == 2][0]
    assert con2["truncated"] is True and len(con2["text"].split()) == 2000
    assert con2["warnings"] == ["longer than 2000 words: cut"]
    assert_no_cjk(texts, "the messages sent")
    assert_no_cjk([out, err], "the output")
    assert "  Round 2 | Con speech done (cut)" in err.splitlines()
    md = render_trial(Debate.model_validate(data))
    assert_no_cjk([md], "the rendering")
    assert "**Verdict: Pro wins**" in md and "each speech at most 2000 words" in md


# --------------------------------------------------------- --lang zh, and zh stays zh


def test_lang_zh_on_an_english_topic_sends_chinese_prompts_and_labels(capsys, cli_env):
    from debate_core.cli.main import main

    def debater(label, r, n, body):
        return zh_envelope(label, r, no_new=r >= 2)

    def judge(n, body):
        return json.dumps({"winner": "辩手甲", "summary": "甲更好", "reasons": {"论点强度": "强"}}, ensure_ascii=False)

    with ScriptedServer(Script(debater=debater, judge=judge, stances=("禁止", "不禁止"))) as srv:
        code = main(["debate", EN_TOPIC, "--protocol", "topic", "--model", "openai/m", "--api-base", srv.url,
                     "--rounds", "2", "--lang", "zh", "--format", "json", "--quiet"])
        data = json.loads(capsys.readouterr().out)
        systems = [b["messages"][0]["content"] for b in srv.requests]
    assert code == 0 and data["lang"] == "zh"
    assert [p["label"] for p in data["participants"]] == ["辩手甲", "辩手乙"]
    assert all(has_cjk(s) for s in systems)
    assert any(s.startswith("你是辩手甲") for s in systems) and any("独立裁判" in s for s in systems)
    assert data["verdict"]["winner"] == "辩手甲"
    assert data["warnings"][0].startswith("降级：")


def test_a_chinese_topic_debate_sends_no_english_instruction_words(capsys, cli_env):
    from debate_core.cli.main import main

    def debater(label, r, n, body):
        if label == "辩手甲" and r == 1 and n == 1:
            return "不行"  # the repair request
        return zh_envelope(label, r, no_new=r >= 2)

    def judge(n, body):
        return "无法判断" if n == 1 else json.dumps({"winner": "辩手乙", "summary": "乙胜"}, ensure_ascii=False)

    with ScriptedServer(Script(debater=debater, judge=judge, stances=("禁止", "不禁止"))) as srv:
        code = main(["debate", ZH_TOPIC, "--protocol", "topic", "--models", "openai/a,openai/b", "--api-base",
                     srv.url, "--rounds", "2", "--format", "json", "--quiet"])
        data = json.loads(capsys.readouterr().out)
        texts = sent_texts(srv)
    assert code == 0 and data["lang"] == "zh" and data["verdict"]["winner"] == "辩手乙"
    assert len(texts) >= 8
    for t in texts:
        assert not english_words(t), (english_words(t), t[:300])


def test_a_chinese_trial_with_tools_sends_no_english_instruction_words(capsys, cli_env, workspace):
    from debate_core.cli.main import main

    def speaker(side, r, n, body):
        if side == "pro" and r == 1 and n == 1:
            return Reply(tool_calls=[{"name": "grep", "arguments": {"pattern": "接口"}},
                                     {"name": "read", "arguments": {"path": "../private.txt"}},
                                     {"name": "read", "arguments": {"path": "shortcut.txt"}},
                                     {"name": "glob", "arguments": {"pattern": "**/*.txt"}},
                                     {"name": "read", "arguments": {"path": "missing.txt"}},
                                     {"name": "delete", "arguments": {"path": "api"}},
                                     {"name": "grep", "arguments": {"pattern": "("}}])
        return f"{side} 第{r}轮发言"

    def trial_judge(n, body):
        return json.dumps({"per_round": [{"round": 1, "comment": "正方更好"}], "winner": "正方", "reasons": "证据"},
                          ensure_ascii=False)

    (workspace / "api" / "说明.md").write_text("接口共 42 个\n", encoding="utf-8")  # the workspace's words are data

    with ScriptedServer(Script(speaker=speaker, trial_judge=trial_judge)) as srv:
        # a model name of its own: another test teaches litellm that "openai/m" has no tool calling
        code = main(["debate", "我们应该把接口换成新协议", "--protocol", "trial", "--model", "openai/zh-trial-m",
                     "--rounds", "1", "--api-base", srv.url, "--workspace", str(workspace), "--format", "json", "--quiet"])
        data = json.loads(capsys.readouterr().out)
        texts = sent_texts(srv)
        tool_msgs = [m["content"] for b in srv.requests for m in b["messages"] if m["role"] == "tool"]
    assert code == 0 and data["lang"] == "zh" and data["verdict"]["winner"] == "pro"
    assert data["verdict"]["reasons"] == {"判词": "证据"}
    assert not data["warnings"], data["warnings"]
    # six run (four refused), the seventh is past the budget
    assert len(tool_msgs) == 7 and sum(t.startswith("错误：") for t in tool_msgs) == 5
    assert tool_msgs[-1] == "错误：本篇发言的 6 次工具调用额度已用完，请直接写发言"
    assert any("工具调用次数已用完" in t for t in texts)
    for t in texts:
        assert not english_words(t), (english_words(t), t[:300])


# ----------------------------------------------------------------- unit: tables


def test_every_english_prompt_and_note_is_free_of_cjk_and_every_chinese_one_of_english_words():
    for lang in ("en", "zh"):
        P = judged_prompts.for_lang(lang)
        msgs = (P.stance_split_messages("t") + P.opening_messages(P.LABELS[0], "s", "t", 3)
                + P.rebuttal_messages(P.LABELS[0], "s", "t", 3, 3, "{}", [(P.LABELS[1], "s2", "{}")])
                + P.repair_messages([], "", "e")[-2:] + P.judge_messages("t", [(P.LABELS[0], "s")], "log")
                + P.judge_repair_messages([], "", list(P.LABELS))[-2:]
                + P.trial_speaker_messages("pro", "t", 1, 2, [], 500, True)
                + P.trial_speaker_messages("con", "t", 2, 2, [(1, "pro", "1"), (1, "con", "2"), (2, "pro", "3")],
                                           500, False)
                + P.trial_judge_messages("t", "x", 2) + P.trial_judge_repair([], "")[-2:])
        notes = [re.sub(r"\{\w+\}", "", n) for n in P.NOTES.values()]  # placeholders are not words
        texts = [m["content"] for m in msgs if m["role"] != "assistant"] + [P.TOOL_BUDGET_NOTE, P.STANCE_SPLIT_RETRY, *notes]
        texts += [json.dumps(s, ensure_ascii=False) for s in tool_specs(lang)]
        if lang == "en":
            assert_no_cjk(texts, "the English tables")
        else:
            for t in texts:
                assert has_cjk(t) and not english_words(t), (english_words(t), t)

    def fields(notes: dict[str, str]) -> dict[str, list[str]]:
        return {k: sorted(re.findall(r"\{\w+\}", v)) for k, v in notes.items()}

    assert fields(judged_prompts.for_lang("en").NOTES) == fields(judged_prompts.for_lang("zh").NOTES)
    assert judged_prompts.for_lang("en").LABELS == ("Debater A", "Debater B", "Debater C", "Debater D")
    assert judged_prompts.for_lang(None) is judged_prompts.for_lang("zh")


# -------------------------------------------------------- unit: labels, verdicts


def test_english_stance_seats_follow_the_seed_and_stances_are_cut_in_words():
    assert label_stances(["one", "two", "three"], "en") == {"Debater A": "two", "Debater B": "one",
                                                           "Debater C": "three"}
    assert label_stances(["一", "二"]) == {"辩手甲": "二", "辩手乙": "一"}
    long = " ".join(["word"] * 80)
    assert clean_stances([long], "en") == [" ".join(["word"] * 60)]
    assert clean_stances(["字" * 300]) == ["字" * 200]
    assert cut_speech("one two  three four", 3, "en") == ("one two  three", True)
    assert cut_speech("one two", 3, "en") == ("one two", False)
    assert cut_speech("一二三四", 3, "zh") == ("一二三", True)


@pytest.mark.parametrize("text,winner", [
    ("**Winner:** Debater B", "Debater B"),
    ("Winner: Debater A. The rest is commentary.", "Debater A"),
    ("After three rounds, Debater B wins on the evidence.", "Debater B"),
    ("Debater A carries the debate.", "Debater A"),
    ('{"winner": "Debater B", "summary": "B"}', "Debater B"),
    ('```json\n{"winner": "B"}\n```', "Debater B"),
    ('{"winner": "辩手乙"}', "Debater B"),  # a Chinese label in an English debate names the same seat
])
def test_english_topic_verdicts_parse(text, winner):
    v = parse_verdict(text, EN_LABELS, lang="en")
    assert v.parsed and v.winner == winner


def test_english_verdicts_that_name_no_listed_label_are_unparsed_not_a_draw():
    assert not parse_verdict("Both debaters did well.", EN_LABELS, lang="en").parsed
    assert not parse_verdict('{"winner": "Debater D"}', EN_LABELS, lang="en").parsed
    assert find_winner("Debater C wins") == "Debater C" and find_winner("辩手丙胜出") == "辩手丙"
    assert find_winner("Debater C wins", "zh") == "辩手丙"


def test_an_english_markdown_verdict_gives_reasons_rows_and_note():
    v = parse_verdict(EN_MARKDOWN_VERDICT, EN_LABELS, lang="en")
    assert v.winner == "Debater B" and v.note == "Pilot schemes first."
    assert v.reasons == {"Argument strength": "Debater B brought figures.",
                         "Attack and defence": "Debater A dodged the cost question.",
                         "Logical flaws": "Debater A generalised from one city."}
    assert [(r.label, r.stance, r.score) for r in v.rows] == [("Debater A", "Keep the cars", 5.0),
                                                             ("Debater B", "Ban the cars", 8.5)]


@pytest.mark.parametrize("text,winner", [
    ("## Round 1\nPro was sharper.\n\n**Winner:** Pro", "pro"),
    ("Verdict: the Con side, narrowly.", "con"),
    ("Winner: draw", "draw"),
    ('{"winner": "Con", "per_round": ["even"]}', "con"),
])
def test_english_trial_verdicts_parse(text, winner):
    v = parse_verdict(text, trial=True, lang="en")
    assert v.parsed and v.winner == winner


def test_english_envelopes_errors_and_rendering():
    with pytest.raises(EnvelopeError, match="^the reply holds no JSON object$"):
        parse_envelope("no json here", "en")
    with pytest.raises(EnvelopeError, match="neither arguments nor rebuttals"):
        parse_envelope('{"arguments": [], "rebuttals": []}', "en")
    with pytest.raises(EnvelopeError, match="信封里既没有论点也没有反驳"):
        parse_envelope('{"arguments": [], "rebuttals": []}')
    env = parse_envelope('{"arguments": ["a bare claim"], "rebuttals": ["a bare answer", '
                         '{"target": "Debater B A2", "point": "x", "reasoning": "y"}]}', "en")
    assert [r.type for r in env.rebuttals] == ["rebuttal", "rebuttal"] and env.rebuttals[1].content == "x — y"
    md = render_envelope(env, lang="en")
    assert "- **rebuttal Debater B A2**: x — y" in md and not has_cjk(md)
    assert render_envelope(parse_envelope('{"no_new_points": true}', "en"), lang="en").startswith(
        "(no arguments and no rebuttals this round)")


def test_progress_lines_follow_the_speech_language():
    from debate_core.models import Speech

    en = Speech(round=2, speaker="Debater B", speaker_name="Debater B", role="rebuttal", status="failed",
                warnings=["the model call failed: timeout"])
    assert progress_line(en) == "  Round 2 | Debater B rebuttal failed: the model call failed: timeout"
    zh = Speech(round=1, speaker="pro", speaker_name="正方", role="pro", text="x")
    assert progress_line(zh) == "  第 1 轮｜正方 发言 完成"
    assert progress_line(Speech(round=1, speaker="con", speaker_name="Con", role="con", text="x",
                                truncated=True)) == "  Round 1 | Con speech done (cut)"


def test_the_english_verdict_rendering_and_chinese_tool_texts():
    d = Debate.model_validate({"id": "x", "protocol": "topic", "topic": EN_TOPIC, "status": "completed",
                               "config": {"protocol": "topic", "topic": EN_TOPIC, "lang": "en"},
                               "participants": [{"label": "Debater A", "name": "Debater A", "stance": "Keep"},
                                                {"label": "Debater B", "name": "Debater B", "stance": "Ban"}]})
    assert d.lang == "en"
    d.verdict = parse_verdict(EN_MARKDOWN_VERDICT, EN_LABELS, lang="en")
    md = verdict_md(d)
    assert not has_cjk(md)
    assert "**Debater B (\"Ban\") wins** — the cost evidence was never answered." in md
    from debate_core.render.judged import wrap_up_md

    assert "- **Winner**: Debater B (\"Ban\") wins — the cost evidence was never answered." in wrap_up_md(d)
    ws = Workspace(os.path.dirname(__file__), lang="zh")
    assert ws.execute("read", {"path": "/etc/passwd"}).error.startswith("错误：不接受绝对路径")
    assert has_cjk(ws.glob("no/such/*.zz"))
