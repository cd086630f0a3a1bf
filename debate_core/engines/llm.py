"""The model-backed master-debate engine: isolated requests -> prompts -> gateway."""

from __future__ import annotations

import json
import re

from debate_core.checks import VERDICT_PATTERNS
from debate_core.engines.gateway import Gateway, GatewayError, Generation, TokenCallback
from debate_core.engines.prompts import observation_messages, speech_messages, summary_messages
from debate_core.models import Observation, ObservationRequest, SpeechRequest, SummaryRequest


def clip(text: str, limit: int) -> str:
    text = re.sub(r"\s+", " ", text).strip().strip('"“”')
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_json_block(text: str) -> dict | None:
    m = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    candidate = m.group(1) if m else text[text.find("{") : text.rfind("}") + 1] if "{" in text else ""
    try:
        data = json.loads(candidate)
    except (json.JSONDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class LLMEngine:
    def __init__(self, gateway: Gateway):
        self.gateway = gateway
        self.name = gateway.model

    @property
    def on_call(self):
        return self.gateway.on_call

    @on_call.setter
    def on_call(self, sink) -> None:
        self.gateway.on_call = sink

    def speech(self, req: SpeechRequest, on_token: TokenCallback | None = None) -> Generation:
        return self.gateway.complete(
            speech_messages(req), purpose="speech", on_token=on_token, round=req.round, speaker=req.speaker
        )

    def summarize(self, req: SummaryRequest) -> Generation:
        gen = self.gateway.complete(summary_messages(req), purpose="summary", round=req.round, speaker=req.speaker)
        gen.text = clip(gen.text, req.limit)
        return gen

    def observe(self, req: ObservationRequest) -> Observation:
        last_error = ""
        for _ in range(2):
            gen = self.gateway.complete(observation_messages(req), purpose="observation")
            data = parse_json_block(gen.text) or {}
            try:
                obs = Observation(
                    divergence=str(data["divergence"]),
                    consensus=str(data["consensus"]),
                    to_reader=str(data["to_reader"]),
                    engine=self.name,
                )
            except KeyError as exc:
                last_error = f"observation JSON lacks {exc.args[0]!r}"
                continue
            joined = obs.divergence + obs.consensus + obs.to_reader
            if any(p.search(joined) for p in VERDICT_PATTERNS):
                last_error = "observation named a winner"
                continue
            return obs
        raise GatewayError(f"no usable neutral observation: {last_error}")
