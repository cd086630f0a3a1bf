"""A scripted 'model' for master debates: it answers from the prompt alone.

It parses the speaker, round, role, topic and opponent summary out of the messages
it is sent and composes a speech with the offline engine from that, so it knows
only what the prompt carried.  Summary and observation prompts get canned answers.
"""

from __future__ import annotations

import json
import re

from debate_core.models import Pack, SpeechRequest
from debate_core.engines.offline import OfflineEngine
from debate_core.engines.scripted_server import Reply
from debate_core.engines.prompts import RETRY_HEADING

LONG_SUMMARY = "这是一段故意写得很长的摘要，用来检验编排器会把摘要截到八十个字以内：" + "立场要点" * 30


def _data_blocks(text: str) -> list[str]:
    return [json.loads(m) for m in re.findall(r"```data\n(.*?)\n```", text, re.S)]


def parse_speech_prompt(pack: Pack, messages: list[dict]) -> SpeechRequest:
    system, user = messages[0]["content"], messages[1]["content"]
    slug = re.search(r"(?:slug: |代号：)([a-z\-]+)", system).group(1)
    round_no = int(re.search(r"这是第 (\d+) 轮", user).group(1))
    opp_name = re.search(r"你的对手是(.+?)。", user).group(1)
    opp = next(s for s, m in pack.masters.items() if m.name == opp_name)
    role = next(r for r, key in (("立论", "立论："), ("反驳", "反驳："), ("回应", "回应："), ("综合", "综合："))
                if "【本轮任务】\n" + key in user)
    blocks = _data_blocks(user)
    topic = blocks[0]
    summary = blocks[1] if len(blocks) > 1 else ""
    m = pack.masters[slug]
    return SpeechRequest(topic=topic, round=round_no, role=role, speaker=slug, speaker_name=m.name, opponent=opp,
                         opponent_name=opp_name, opponent_summary=summary, ammo=m.ammo_against(opp),
                         sources=m.sources)


def master_script(pack: Pack, *, bad_first_speech: bool = False, long_summary: bool = False, bad_drafts_by: str = ""):
    """A scripted model for master debates: the offline engine's speech for the prompt.  ``bad_first_speech``:
    the first speech request of the script gets a draft that fails its checks; ``bad_drafts_by`` (a master's
    name): each first draft of his speeches fails, and the rewrite its prompt asks for is the engine's (the
    same in every run, whatever the order of the requests)."""
    engine = OfflineEngine(pack)
    state = {"speeches": 0}

    def script(body: dict):
        msgs = body["messages"]
        system = msgs[0]["content"]
        if "中立主持人" in system:
            return LONG_SUMMARY if long_summary else "对方立场：持名念佛，仗佛力往生；引《文钞》。"
        if "中立观察者" in system:
            return "```json\n" + json.dumps({"divergence": "分歧在行门层面。", "consensus": "皆归一心。",
                                             "to_reader": "两条都是通路。"}, ensure_ascii=False) + "\n```"
        state["speeches"] += 1
        if bad_first_speech and state["speeches"] == 1:
            return Reply(text="这一稿没有引用任何经典，也太短了。")
        if bad_drafts_by and bad_drafts_by in system and not any(RETRY_HEADING in m["content"] for m in msgs):
            return Reply(text="这一稿没有引用任何经典，也太短了。")
        return Reply(text=engine.speech(parse_speech_prompt(pack, msgs)).text, chunk_chars=16)
    return script
