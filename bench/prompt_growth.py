"""Benchmark: prompt tokens per round, 8-round trial (full transcript) vs 8-round master debate (summaries).

How it is measured
------------------
* Both debates really run, through litellm, against a scripted OpenAI-compatible
  server on 127.0.0.1 (no network, no key); every prompt actually sent is kept on
  ``debate.llm_calls`` and counted with ``litellm.token_counter(model="gpt-4o")``
  (the same tokenizer for both, so the figures compare).
* Trial: ``open_trial`` / ``trial_round`` x 8 / ``trial_verdict``.  Each speech the
  server returns is ``SPEECH_CHARS`` characters (near the 2000-character cap, as a
  debater that uses its room would), so every later speaker reads all earlier ones.
* Master: ``MasterDebate`` with ``LLMEngine`` on the default pack (its round cap
  raised to 8 for the comparison), speeches of 450 characters (the protocol's
  300-500 rule) and 80-character summaries; each round's prompt holds only the
  opponent's summary, plus one summary call per round.
* Per round the table gives the prompt tokens of that round's calls (trial: pro +
  con; master: speech + summary) and the running total; the closing judge /
  observation call is listed last.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate_core.api import get_pack  # noqa: E402
from debate_core.engines.gateway import Gateway, litellm  # noqa: E402
from debate_core.engines.llm import LLMEngine  # noqa: E402
from debate_core.models import DebateConfig  # noqa: E402
from debate_core.protocols.master import MasterDebate  # noqa: E402
from debate_core.protocols.trial import open_trial, trial_round, trial_verdict  # noqa: E402
from debate_core.engines.scripted_server import ScriptedServer  # noqa: E402

ROUNDS = 8
SPEECH_CHARS = 1800
COUNTER_MODEL = "gpt-4o"
FILLER = "我方认为这一论点成立，理由如下：第一，现有证据显示迁移成本可控；第二，性能收益可以量化；第三，对方忽视了长期维护。"


def speech_text(n: int, tag: str) -> str:
    body = (tag + FILLER * (n // len(FILLER) + 2))[:n]
    return body


def trial_script(body: dict) -> str:
    system = body["messages"][0]["content"]
    if "庭审式辩论的裁判" in system:
        return json.dumps({"per_round": [{"round": i, "comment": "点评"} for i in range(1, ROUNDS + 1)],
                           "winner": "con", "reasons": "理由"}, ensure_ascii=False)
    return speech_text(SPEECH_CHARS, "正方：" if "担任正方" in system else "反方：")


def master_script(body: dict) -> str:
    system = body["messages"][0]["content"]
    if "中立观察者" in system:
        return json.dumps({"divergence": "分歧", "consensus": "共识", "to_reader": "留给读者"}, ensure_ascii=False)
    if "中立主持人" in system:
        return speech_text(80, "摘要：")
    return speech_text(450, "本宗立场：")


def count(messages: list[dict]) -> int:
    return int(litellm().token_counter(model=COUNTER_MODEL, messages=messages))


def per_round(calls) -> tuple[dict[int, int], int]:
    rounds: dict[int, int] = defaultdict(int)
    closing = 0
    for c in calls:
        if c.error:
            continue
        n = count(c.messages)
        if c.round is None:
            closing += n
        else:
            rounds[c.round] += n
    return rounds, closing


def run_trial(url: str):
    d = open_trial(DebateConfig(protocol="trial", topic="我们应该把 REST API 换成 gRPC", model="openai/bench",
                                api_base=url, rounds=ROUNDS, max_retries=0), probe=False)
    for _ in range(ROUNDS):
        trial_round(d)
        assert d.status == "running", d.stop_reason
    trial_verdict(d)
    assert d.status == "completed", d.stop_reason
    return d


def run_master(url: str):
    pack = get_pack().model_copy(deep=True)
    pack.protocol.max_rounds = ROUNDS
    engine = LLMEngine(Gateway(model="openai/bench", api_base=url, max_retries=0))
    md = MasterDebate(pack=pack, engine=engine)
    d = md.prepare(DebateConfig(protocol="master", topic="顿悟与渐修", masters=["huineng", "zhiyi"], rounds=ROUNDS,
                                check_retries=0))
    d = md.run(d)
    assert d.status == "completed", d.stop_reason
    return d


def main() -> int:
    litellm()
    with ScriptedServer(trial_script) as srv:
        trial = run_trial(srv.url)
    with ScriptedServer(master_script) as srv:
        master = run_master(srv.url)
    t_rounds, t_close = per_round(trial.llm_calls)
    m_rounds, m_close = per_round(master.llm_calls)
    print(f"bench/prompt_growth.py — prompt tokens (litellm.token_counter, {COUNTER_MODEL} tokenizer) of the prompts "
          "actually sent to a scripted server")
    print(f"trial: {ROUNDS} rounds, pro + con per round, each speech {SPEECH_CHARS} chars, full transcript every time")
    print(f"master: {ROUNDS} rounds, speech + summary call per round, speeches 450 chars, summaries 80 chars\n")
    print("| round | trial (pro+con) | trial total | master (speech+summary) | master total | trial/master |")
    print("|------:|----------------:|------------:|------------------------:|-------------:|-------------:|")
    tt = mt = 0
    for r in range(1, ROUNDS + 1):
        tt += t_rounds[r]
        mt += m_rounds[r]
        print(f"| {r} | {t_rounds[r]:,} | {tt:,} | {m_rounds[r]:,} | {mt:,} | {t_rounds[r] / max(1, m_rounds[r]):.1f}x |")
    print(f"| judge / observation | {t_close:,} | {tt + t_close:,} | {m_close:,} | {mt + m_close:,} | "
          f"{(tt + t_close) / max(1, mt + m_close):.1f}x |")
    first, last = t_rounds[1], t_rounds[ROUNDS]
    print(f"\ntrial: round {ROUNDS} prompts are {last / max(1, first):.1f}x round 1 (grows linearly per round, "
          f"so the total grows quadratically); master: round {ROUNDS} is "
          f"{m_rounds[ROUNDS] / max(1, m_rounds[1]):.1f}x round 1 (flat: isolated summaries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
