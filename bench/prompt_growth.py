"""Benchmark: prompt growth and prompt caching, per protocol.

Part 1, growth: prompt tokens per round, 8-round trial (full transcript) vs 8-round master debate
(summaries).  Part 2, caching: for every call of the trial, a 3-round topic debate and the master
debate, the share of its input (bytes of the prompt as sent, role by role) that is a byte-identical
prefix of the same speaker's previous call, per round — what a provider's prompt cache can serve —
beside the ceiling (the previous call's size over this call's: nothing more can be a prefix of it);
and the projected cost of the 8-round trial with and without caching at the price table printed
(litellm's bundled cost map: input, cached input, cache write, output per million tokens).

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
from debate_core.engines.scripted_server import ScriptedServer, serialize  # noqa: E402

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


TOPIC_STANCES = ["远程办公更好", "坐班更好"]


def topic_script(body: dict) -> str:
    msgs = body["messages"]
    system = msgs[0]["content"]
    if "中立编排者" in system:
        return json.dumps({"stances": TOPIC_STANCES, "reason": "两方"}, ensure_ascii=False)
    if "独立裁判" in system:
        return json.dumps({"winner": "辩手甲", "summary": "甲胜", "reasons": {"论点强度": "a", "攻防表现": "b",
                           "逻辑硬伤": "c"}, "rows": [], "note": ""}, ensure_ascii=False)
    label = system.split("你是", 1)[1][:3]
    n = sum(1 for m in msgs if m["role"] == "assistant") + 1
    env = {"stance": "", "arguments": [{"id": f"A{n}{k}", "point": speech_text(60, f"{label}论点{n}.{k}："),
                                        "reasoning": speech_text(160, "理由："), "evidence": speech_text(80, "例：")}
                                       for k in (1, 2, 3)],
           "rebuttals": [] if n == 1 else [{"target": "辩手乙 A11", "type": "反驳", "content": speech_text(200, "反驳：")}],
           "no_new_points": False}
    return json.dumps(env, ensure_ascii=False)


def run_topic(url: str):
    from debate_core import runs

    runner, d = runs.start(DebateConfig(protocol="topic", topic="远程办公还是坐班？", models=["openai/bench"] * 2,
                                        stances=TOPIC_STANCES, api_base=url, rounds=3, max_retries=0), probe=False)
    d = runner.run(d)
    assert d.status == "completed", d.stop_reason
    return d


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def prefix_shares(calls, purposes=("speech",)) -> dict[int, list[tuple[float, float]]]:
    """round -> [(share of the call's input that is a prefix of the same speaker's previous call, ceiling)]."""
    last: dict[str, str] = {}
    out: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for c in calls:
        if c.error or c.purpose not in purposes or c.round is None:
            continue
        text = serialize(c.messages).encode("utf-8")
        prev = last.get(c.speaker)
        if prev is not None:
            common = _common(prev.decode("utf-8"), text.decode("utf-8"))
            share = len(text.decode("utf-8")[:common].encode("utf-8")) / len(text)
            out[c.round].append((share, min(1.0, len(prev) / len(text))))
        last[c.speaker] = text
    return out


def print_shares(name: str, shares: dict[int, list[tuple[float, float]]], goal: bool) -> None:
    print(f"\n{name}: prefix share of each call vs the same speaker's previous call (mean over speakers)")
    print("| round | calls | prefix share | ceiling |" + (" ≥ 80 % |" if goal else ""))
    print("|------:|------:|-------------:|--------:|" + ("--------:|" if goal else ""))
    for r in sorted(shares):
        vals = shares[r]
        share = sum(v[0] for v in vals) / len(vals)
        ceil = sum(v[1] for v in vals) / len(vals)
        print(f"| {r} | {len(vals)} | {share:.1%} | {ceil:.1%} |" + (f" {'yes' if share >= 0.8 else 'no'} |" if goal else ""))


PRICED = {"OpenAI gpt-4o": "gpt-4o", "Anthropic claude-sonnet-4-5": "claude-sonnet-4-5",
          "DeepSeek deepseek-chat": "deepseek/deepseek-chat"}


def price_table() -> dict[str, dict[str, float]]:
    cost_map = litellm().model_cost
    out = {}
    for name, key in PRICED.items():
        info = cost_map.get(key) or cost_map.get(key.split("/")[-1]) or {}
        inp = float(info.get("input_cost_per_token") or 0)
        out[name] = {"input": inp, "cached": float(info.get("cache_read_input_token_cost") or inp),
                     "write": float(info.get("cache_creation_input_token_cost") or inp),
                     "output": float(info.get("output_cost_per_token") or 0)}
    return out


def projected_cost(calls, prices: dict[str, float]) -> tuple[float, float]:
    """(without caching, with caching) in USD: cached tokens = the prefix share of each call's input
    tokens (vs the same speaker's previous call); on a cache-writing provider the rest is written."""
    last: dict[str, str] = {}
    plain = cached = 0.0
    for c in calls:
        if c.error:
            continue
        n_in, n_out = count(c.messages), int(litellm().token_counter(model=COUNTER_MODEL, text=c.response or ""))
        text = serialize(c.messages)
        prev = last.get(c.speaker + c.purpose)
        hit = int(n_in * _common(prev, text) / len(text)) if prev else 0
        last[c.speaker + c.purpose] = text
        plain += n_in * prices["input"] + n_out * prices["output"]
        cached += hit * prices["cached"] + (n_in - hit) * prices["write"] + n_out * prices["output"]
    return plain, cached


def main() -> int:
    litellm()
    with ScriptedServer(trial_script, prompt_cache=True) as srv:
        trial = run_trial(srv.url)
    with ScriptedServer(master_script, prompt_cache=True) as srv:
        master = run_master(srv.url)
    with ScriptedServer(topic_script, prompt_cache=True) as srv:
        topic = run_topic(srv.url)
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

    print("\n## Prompt caching")
    print("Bytes of each prompt as sent (role by role, in order); a speaker's call against its own previous call. "
          "The ceiling is the previous call's size over this call's: what is new since (the speaker's own last "
          "reply, the other side's new speeches, this round's request) cannot be a prefix of anything sent before.")
    print_shares(f"trial ({ROUNDS} rounds, pro and con)", prefix_shares(trial.llm_calls), True)
    print_shares("topic debate (3 rounds, 2 debaters)", prefix_shares(topic.llm_calls), True)
    print_shares(f"master debate ({ROUNDS} rounds: isolated calls by design, the stable block first)",
                 prefix_shares(master.llm_calls), False)
    reported = sum(c.cached_tokens for c in trial.llm_calls)
    sent = sum(c.prompt_tokens for c in trial.llm_calls)
    print(f"\nthe scripted server, playing an automatic prefix cache, reported {reported:,} of {sent:,} trial input "
          f"tokens ({reported / max(1, sent):.0%}) as cached; the gateway recorded them on every call")
    print(f"\nProjected cost of the {ROUNDS}-round trial (prices per million tokens from litellm's bundled cost map):")
    print("| provider / model | input | cached input | cache write | output | without caching | with caching | saved |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, p in price_table().items():
        plain, cached = projected_cost(trial.llm_calls, p)
        print(f"| {name} | ${p['input'] * 1e6:.2f} | ${p['cached'] * 1e6:.3f} | ${p['write'] * 1e6:.2f} | "
              f"${p['output'] * 1e6:.2f} | ${plain:.4f} | ${cached:.4f} | {1 - cached / max(plain, 1e-12):.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
