"""Batch runs: a grid of debates under a concurrency limit, into the archive, resumable.

A *spec* (YAML or JSON; see docs/batch.md) names a protocol and the axes of a grid:

* master debates: ``topics`` × ``pairs`` (explicit, ``auto``, ``canonical`` or ``all``)
  × ``models`` × ``repeats`` (× 2 with ``swap``: who opens);
* topic debates: ``topics`` × ``stances`` (given, or split by the model) × model
  lineups × ``repeats`` (× label rotations with ``swap``);
* trials: ``topics`` × model lineups ``[pro, con]`` × ``repeats`` (× sides swapped).

Every grid cell has a deterministic *cell key* (a hash of what defines it).  A
debate run for a cell carries ``debate.batch_id = <batch id>`` and
``config.batch_id = "<batch id>#<cell key>"``, so rerunning the same spec looks the
keys up in the archive and skips cells that are completed, continues cells whose
debate failed, stopped or was interrupted, and runs the rest.

Cells run in worker threads (``concurrency``); one debate's error is recorded for
its cell and never stops the others.  Model calls go through
:class:`~debate_core.gateway.Gateway`; when the spec lists ``deployments`` they go
through one shared ``litellm.Router`` (rpm / tpm per deployment, fallbacks,
routing strategy).  litellm is imported only when a model is actually used.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import re
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from debate_core.errors import InputError
from debate_core.models import Debate, DebateConfig
from debate_core.recorder import NULL_RECORDER, Recorder

CELL_SEP = "#"
BATCH_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
RESUMABLE = ("failed", "stopped", "interrupted")
LIMITED_RETRIES = 8  # with rpm/tpm limits: 1+2+4+8+16+30+30+30 s of backoff outlasts a one-minute window


class SpecError(InputError):
    """A batch spec that cannot run; the message says which key is wrong."""


# ------------------------------------------------------------------------- the spec


class TopicItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    topic: str
    stances: list[str] = Field(default_factory=list)
    pairs: Optional[list[Union[str, list[str]]]] = None


class Deployment(BaseModel):
    """One litellm Router deployment: ``{model_name, litellm_params: {model, api_base, rpm, tpm, ...}}``."""

    model_config = ConfigDict(extra="allow")

    model_name: str
    litellm_params: dict[str, Any]

    @field_validator("litellm_params")
    @classmethod
    def _has_model(cls, v: dict[str, Any]) -> dict[str, Any]:
        if not v.get("model"):
            raise ValueError("litellm_params needs a 'model' (a litellm model string)")
        return v


class BatchSpec(BaseModel):
    """What a batch runs.  Unknown keys are refused (a typo would silently change the grid)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    batch_id: Optional[str] = Field(default=None, alias="name")
    protocol: Literal["master", "topic", "trial"] = "master"
    topics: list[Union[str, TopicItem]]
    pairs: Union[str, list[Union[str, list[str]]], None] = None
    stances: Union[list[list[str]], dict[str, list[str]], None] = None
    models: list[Union[str, list[str]]] = Field(default_factory=list)
    tournament: bool = False
    judge_models: list[str] = Field(default_factory=list)
    repeats: int = Field(default=1, ge=1, le=1000)
    swap: bool = False
    concurrency: int = Field(default=4, ge=1, le=256)
    rounds: Optional[int] = Field(default=None, ge=1, le=20)
    pack: Optional[str] = None
    api_base: Optional[str] = None
    temperature: float = 0.7
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=20)
    check_retries: int = Field(default=2, ge=0, le=10)
    workspace: Optional[str] = None
    max_speech_length: int = 2000
    deployments: list[Deployment] = Field(default_factory=list)
    fallbacks: list[dict[str, list[str]]] = Field(default_factory=list)
    router: dict[str, Any] = Field(default_factory=dict)
    gateway: dict[str, Any] = Field(default_factory=dict)
    audit: bool = False
    audit_variants: list[str] = Field(default_factory=lambda: ["original", "relabel", "reorder"])
    resume: bool = True
    commit: Literal["auto", "speech", "debate"] = "auto"

    @field_validator("batch_id")
    @classmethod
    def _batch_id(cls, v: Optional[str]) -> Optional[str]:
        if v is not None and not BATCH_ID_RE.match(v):
            raise ValueError("use letters, digits, '_', '.' or '-' (at most 64), starting with a letter or digit")
        return v

    @field_validator("topics")
    @classmethod
    def _topics(cls, v: list) -> list:
        if not v:
            raise ValueError("give at least one topic")
        return v

    @field_validator("stances", mode="before")
    @classmethod
    def _flat_stances(cls, v: Any) -> Any:
        if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
            return [v]  # one stance set written as a flat list
        return v

    @field_validator("rounds")
    @classmethod
    def _rounds(cls, v: Optional[int], info: ValidationInfo) -> Optional[int]:
        if v is not None and info.data.get("protocol") == "topic":
            from debate_core.protocols.topic import MAX_ROUNDS

            if v > MAX_ROUNDS:
                raise ValueError(f"{v} is too many: a topic debate runs at most {MAX_ROUNDS} rounds "
                                 f"(the openings plus up to {MAX_ROUNDS - 1} rebuttal rounds)")
        return v

    @field_validator("gateway")
    @classmethod
    def _gateway(cls, v: dict[str, Any]) -> dict[str, Any]:
        allowed = {"backoff", "max_backoff", "max_tokens"}
        bad = sorted(set(v) - allowed)
        if bad:
            raise ValueError(f"unknown gateway option(s) {', '.join(bad)} (allowed: {', '.join(sorted(allowed))})")
        return v

    @model_validator(mode="after")
    def _protocol_keys(self) -> "BatchSpec":
        if self.protocol == "master":
            if self.stances:
                raise ValueError("'stances' is for topic debates; master debates take 'pairs'")
            if self.tournament:
                raise ValueError("'tournament' pairs up models for judged protocols (topic, trial)")
        else:
            if self.pairs:
                raise ValueError("'pairs' is for master debates; topic debates take 'stances'")
            if not self.models and not os.environ.get("DEBATE_MODEL"):
                raise ValueError(f"a {self.protocol} batch needs 'models' (or $DEBATE_MODEL)")
            if self.tournament and any(not isinstance(m, str) for m in self.models):
                raise ValueError("with 'tournament: true' list plain model strings; lineups are formed from them")
            if self.tournament and len(self.models) < 2:
                raise ValueError("'tournament: true' needs at least two models")
        bad = [v for v in self.audit_variants if v not in ("original", "relabel", "reorder")]
        if bad:
            raise ValueError(f"unknown audit variant(s) {', '.join(bad)} (original, relabel, reorder)")
        return self


def _one_line_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:4]:
        loc = ".".join(str(x) for x in err.get("loc", ()))
        msg = err.get("msg", "").replace("Value error, ", "")
        if err.get("type") == "extra_forbidden":
            msg = "unknown key"
        parts.append(f"{loc}: {msg}" if loc else msg)
    more = f" (+{len(exc.errors()) - 4} more)" if len(exc.errors()) > 4 else ""
    return "; ".join(parts) + more


def parse_spec(data: dict[str, Any], *, base_dir: Optional[Path] = None, default_id: Optional[str] = None) -> BatchSpec:
    """Validate a spec mapping; relative ``pack`` / ``workspace`` paths resolve against ``base_dir`` then the cwd."""
    if not isinstance(data, dict):
        raise SpecError("a batch spec is a mapping of keys (protocol, topics, models, ...)")
    try:
        spec = BatchSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(f"batch spec: {_one_line_validation(exc)}") from None
    updates: dict[str, Any] = {}
    for key in ("pack", "workspace"):
        value = getattr(spec, key)
        if value:
            updates[key] = str(_resolve_path(value, base_dir))
    if spec.batch_id is None:
        updates["batch_id"] = default_id if default_id and BATCH_ID_RE.match(default_id) else None
    if "max_retries" not in spec.model_fields_set and any(
            d.litellm_params.get("rpm") or d.litellm_params.get("tpm") for d in spec.deployments):
        updates["max_retries"] = LIMITED_RETRIES  # a call over a deployment's rpm/tpm waits out the window
    spec = spec.model_copy(update=updates)
    if spec.batch_id is None:
        spec = spec.model_copy(update={"batch_id": "batch-" + _digest(spec_identity(spec), 10)})
    return spec


def _resolve_path(value: str, base_dir: Optional[Path]) -> Path:
    p = Path(value).expanduser()
    if p.is_absolute():
        return p
    if base_dir is not None and (base_dir / p).exists():
        return (base_dir / p).resolve()
    return p.resolve()


def load_spec(source: Union[str, Path, dict[str, Any], BatchSpec]) -> BatchSpec:
    """A :class:`BatchSpec` from a YAML / JSON file, a mapping or a spec.

    A file's batch id defaults to its name without extension (``specs/tournament.yaml``
    → ``tournament``), so editing and rerunning the file continues the same batch.
    """
    if isinstance(source, BatchSpec):
        return source
    if isinstance(source, dict):
        return parse_spec(source)
    path = Path(source).expanduser()
    if not path.is_file():
        raise SpecError(f"batch spec {path} not found")
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SpecError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
    else:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise SpecError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    return parse_spec(data, base_dir=path.parent.resolve(), default_id=path.stem)


def spec_identity(spec: BatchSpec) -> dict[str, Any]:
    """The keys that define the grid (not how it runs: concurrency, deployments, retries)."""
    keep = ("protocol", "topics", "pairs", "stances", "models", "tournament", "judge_models", "repeats", "swap",
            "rounds", "pack", "workspace", "max_speech_length")
    data = spec.model_dump(mode="json", by_alias=False)
    return {k: data[k] for k in keep}


def _digest(data: Any, n: int = 12) -> str:
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()[:n]


# ------------------------------------------------------------------------ the grid


@dataclass(frozen=True)
class Cell:
    """One grid cell: everything that defines one debate of the batch."""

    key: str
    protocol: str
    topic: str
    masters: tuple[str, ...] = ()
    stances: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    judge_model: Optional[str] = None
    repeat: int = 0
    swap: int = 0
    rounds: Optional[int] = None

    def describe(self) -> str:
        who = " vs ".join(self.masters) if self.masters else " / ".join(self.models)
        extra = f" r{self.repeat}" if self.repeat else ""
        extra += f" swap{self.swap}" if self.swap else ""
        return f"{self.topic[:24]} · {who}{extra}"

    def as_row(self) -> dict[str, Any]:
        return {"cell": self.key, "protocol": self.protocol, "topic": self.topic, "masters": list(self.masters),
                "stances": list(self.stances), "models": list(self.models), "judge_model": self.judge_model,
                "repeat": self.repeat, "swap": self.swap, "rounds": self.rounds}


def cell_key(protocol: str, topic: str, *, masters=(), stances=(), models=(), judge=None, repeat=0, swap=0,
             rounds=None, pack=None, extra: Optional[dict] = None) -> str:
    return _digest({"p": protocol, "t": topic, "m": list(masters), "s": list(stances), "models": list(models),
                    "j": judge, "rep": repeat, "sw": swap, "r": rounds, "pack": pack, **(extra or {})}, 12)


def _split_pair(item: Union[str, list[str]]) -> list[str]:
    if isinstance(item, str):
        parts = re.split(r"\s*(?:,|\bvs\b|\|)\s*", item.strip())
        return [p for p in parts if p]
    return [str(x).strip() for x in item if str(x).strip()]


def _topic_items(spec: BatchSpec) -> list[TopicItem]:
    out = []
    for t in spec.topics:
        item = TopicItem(topic=t) if isinstance(t, str) else t
        if not item.topic.strip():
            raise SpecError("batch spec: topics: an empty topic")
        out.append(item.model_copy(update={"topic": item.topic.strip()}))
    return out


def _lineups(spec: BatchSpec) -> list[tuple[str, ...]]:
    from debate_core.settings import resolve_model

    models = spec.models
    if not models:
        m = resolve_model(None)
        models = [m or "offline"]
    if spec.tournament:
        return [tuple(c) for c in itertools.combinations([str(m) for m in models], 2)]
    return [(m,) if isinstance(m, str) else tuple(m) for m in models]


def _rotations(lineup: tuple[str, ...]) -> list[tuple[str, ...]]:
    seen: list[tuple[str, ...]] = []
    for k in range(len(lineup)):
        r = lineup[k:] + lineup[:k]
        if r not in seen:
            seen.append(r)
    return seen


def expand(spec: BatchSpec) -> list[Cell]:
    """Every cell of the grid, in a stable order, without duplicates."""
    cells: list[Cell] = []
    judge = spec.judge_models[0] if spec.judge_models else None
    items = _topic_items(spec)
    if spec.protocol == "master":
        from debate_core.content.packs import get_pack
        from debate_core.content.pairing import PairError, choose_pair

        from debate_core.settings import resolve_model

        pack = get_pack(spec.pack)
        models = [m if isinstance(m, str) else None for m in (spec.models or [resolve_model(None) or "offline"])]
        if any(m is None for m in models):
            raise SpecError("batch spec: models: a master debate uses one model per debate; list model strings")
        for item in items:
            pairs_spec = item.pairs if item.pairs is not None else spec.pairs
            pairs: list[tuple[str, str]] = []
            if pairs_spec in (None, "auto", [], "") or pairs_spec == ["auto"]:
                requested: list[Optional[list[str]]] = [None]
            elif pairs_spec == "canonical":
                from debate_core.content.coverage import canonical_pairs

                requested = [[c["a"], c["b"]] for c in canonical_pairs()
                             if c["a"] in pack.masters and c["b"] in pack.masters]
            elif pairs_spec == "all":
                requested = [list(c) for c in itertools.combinations(sorted(pack.masters), 2)]
            elif isinstance(pairs_spec, str):
                requested = [_split_pair(pairs_spec)]
            else:
                requested = [_split_pair(p) for p in pairs_spec]
            for req in requested:
                if req in (["auto"], []):
                    req = None
                try:
                    choice = choose_pair(item.topic, pack, req)
                except PairError as exc:
                    raise SpecError(f"batch spec: pairs: {exc}") from None
                pair = (choice.a, choice.b)
                if pair not in pairs:
                    pairs.append(pair)
            for a, b in pairs:
                orders = [(a, b), (b, a)] if spec.swap else [(a, b)]
                for model in models:
                    for rep in range(spec.repeats):
                        for sw, order in enumerate(orders):
                            key = cell_key("master", item.topic, masters=order, models=(model,), repeat=rep, swap=sw,
                                           rounds=spec.rounds, pack=spec.pack)
                            cells.append(Cell(key=key, protocol="master", topic=item.topic, masters=order,
                                              models=(model,), repeat=rep, swap=sw, rounds=spec.rounds))
    else:
        lineups = _lineups(spec)
        for item in items:
            stance_sets: list[list[str]] = []
            if item.stances:
                stance_sets = [item.stances]
            elif isinstance(spec.stances, dict):
                if item.topic in spec.stances:
                    stance_sets = [spec.stances[item.topic]]
            elif spec.stances:
                stance_sets = [list(s) for s in spec.stances]
            if spec.protocol == "trial":
                stance_sets = [[]]
            stance_sets = stance_sets or [[]]  # [] = let the model split the topic
            for stances in stance_sets:
                for lineup in lineups:
                    variants = _rotations(lineup) if spec.swap else [lineup]
                    for rep in range(spec.repeats):
                        for sw, models in enumerate(variants):
                            key = cell_key(spec.protocol, item.topic, stances=stances, models=models, judge=judge,
                                           repeat=rep, swap=sw, rounds=spec.rounds,
                                           extra={"ws": spec.workspace, "len": spec.max_speech_length}
                                           if spec.protocol == "trial" else None)
                            cells.append(Cell(key=key, protocol=spec.protocol, topic=item.topic,
                                              stances=tuple(stances), models=models, judge_model=judge,
                                              repeat=rep, swap=sw, rounds=spec.rounds))
    seen: set[str] = set()
    unique = []
    for c in cells:
        if c.key not in seen:
            seen.add(c.key)
            unique.append(c)
    return unique


def config_for(spec: BatchSpec, cell: Cell) -> DebateConfig:
    """The :class:`DebateConfig` of one cell, tagged ``<batch id>#<cell key>``."""
    tag = f"{spec.batch_id}{CELL_SEP}{cell.key}"
    common = dict(protocol=cell.protocol, topic=cell.topic, rounds=cell.rounds, api_base=spec.api_base,
                  temperature=spec.temperature, timeout=spec.timeout, max_retries=spec.max_retries,
                  check_retries=spec.check_retries, batch_id=tag)
    if cell.protocol == "master":
        model = cell.models[0] if cell.models else None
        return DebateConfig(**common, masters=list(cell.masters), model=None if model == "offline" else model,
                            pack=spec.pack)
    return DebateConfig(**common, models=list(cell.models), judge_model=cell.judge_model, stances=list(cell.stances),
                        workspace=spec.workspace if cell.protocol == "trial" else None,
                        max_speech_length=spec.max_speech_length)


def split_tag(tag: Optional[str]) -> tuple[Optional[str], Optional[str]]:
    """``"<batch>#<cell>"`` → (batch, cell); a plain batch id → (batch, None)."""
    if not tag:
        return None, None
    batch, sep, cell = tag.partition(CELL_SEP)
    return batch, (cell if sep else None)


# ------------------------------------------------------------------------ the router


def router_models(spec: BatchSpec) -> set[str]:
    """Every model name the batch calls (debaters and judges), offline excluded."""
    names: set[str] = set()
    for m in spec.models:
        names.update([m] if isinstance(m, str) else m)
    names.update(spec.judge_models)
    names.discard("offline")
    return names


def build_router(spec: BatchSpec):
    """A ``litellm.Router`` over the spec's deployments, or None when it lists none.

    Models the batch uses that no deployment names are added as plain pass-through
    deployments (with the spec's ``api_base``), so every call shares one router.
    """
    if not spec.deployments:
        return None
    from debate_core.engines.gateway import litellm, provider_of

    litellm()  # offline-safe import settings first
    from litellm import Router

    model_list = [d.model_dump(mode="json") for d in spec.deployments]
    groups = {d.model_name for d in spec.deployments}
    for name in sorted(router_models(spec) - groups):
        params: dict[str, Any] = {"model": name}
        if spec.api_base:
            params["api_base"] = spec.api_base
            if provider_of(name) in ("openai", "hosted_vllm", "") and not os.environ.get("OPENAI_API_KEY"):
                params["api_key"] = "not-needed"
        model_list.append({"model_name": name, "litellm_params": params})
    for d in model_list:
        lp = d["litellm_params"]
        if lp.get("api_base") and provider_of(lp["model"]) in ("openai", "hosted_vllm") and "api_key" not in lp \
                and not os.environ.get("OPENAI_API_KEY"):
            lp["api_key"] = "not-needed"
    limited = any(d["litellm_params"].get("rpm") or d["litellm_params"].get("tpm") or d.get("rpm") or d.get("tpm")
                  for d in model_list)
    kwargs: dict[str, Any] = {"num_retries": 0}
    if limited:
        kwargs.update(routing_strategy="usage-based-routing-v2", enable_pre_call_checks=True)
    if spec.fallbacks:
        kwargs["fallbacks"] = spec.fallbacks
    kwargs.update(spec.router)

    async def make():
        # Built inside a short-lived event loop: a usage-based strategy schedules a background
        # (redis) sync task on the current loop, and asyncio.run cancels it cleanly at the end
        # instead of leaving a never-awaited coroutine behind.
        return Router(model_list=model_list, **kwargs)

    import asyncio
    from concurrent.futures import ThreadPoolExecutor as _Pool

    try:
        with _Pool(max_workers=1) as pool:
            return pool.submit(asyncio.run, make()).result()
    except Exception as exc:  # noqa: BLE001 - a bad router config is a spec error, said in one line
        raise SpecError(f"batch spec: deployments/router: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}") \
            from None


# ----------------------------------------------------------------------- results


@dataclass
class CellResult:
    cell: Cell
    status: str  # completed, failed, stopped, interrupted, error, skipped, busy, cancelled
    debate_id: Optional[str] = None
    reason: str = ""
    resumed: bool = False
    seconds: float = 0.0

    def as_row(self) -> dict[str, Any]:
        row = self.cell.as_row()
        row.update(status=self.status, debate_id=self.debate_id, reason=self.reason, resumed=self.resumed,
                   seconds=round(self.seconds, 3))
        return row


@dataclass
class BatchResult:
    batch_id: str
    protocol: str
    results: list[CellResult] = field(default_factory=list)
    elapsed: float = 0.0
    archive: Optional[str] = None
    audit: Any = None  # an audit.AuditReport when the spec asked for one

    def count(self, *statuses: str) -> int:
        return sum(1 for r in self.results if r.status in statuses)

    @property
    def ok(self) -> bool:
        return all(r.status in ("completed", "skipped") for r in self.results)

    @property
    def debate_ids(self) -> list[str]:
        return [r.debate_id for r in self.results if r.debate_id]

    def frame(self):
        import pandas as pd

        return pd.DataFrame([r.as_row() for r in self.results])

    def summary(self) -> dict[str, Any]:
        ran = [r for r in self.results if r.status not in ("skipped", "busy", "cancelled")]
        return {
            "batch_id": self.batch_id, "protocol": self.protocol, "archive": self.archive, "cells": len(self.results),
            "completed": self.count("completed"), "skipped": self.count("skipped"),
            "resumed": sum(1 for r in self.results if r.resumed), "failed": self.count("failed"),
            "errors": self.count("error"), "stopped": self.count("stopped", "interrupted", "cancelled"),
            "busy": self.count("busy"), "ran": len(ran), "elapsed_s": round(self.elapsed, 2),
            "debates_per_s": round(len(ran) / self.elapsed, 2) if self.elapsed > 0 and ran else 0.0,
        }

    def to_markdown(self) -> str:
        s = self.summary()
        lines = [f"# batch {self.batch_id} ({self.protocol})", "",
                 f"- cells: {s['cells']} — completed {s['completed']} (resumed {s['resumed']}), skipped "
                 f"{s['skipped']}, failed {s['failed']}, errors {s['errors']}, stopped {s['stopped']}"
                 + (f", running elsewhere {s['busy']}" if s["busy"] else ""),
                 f"- wall time: {s['elapsed_s']} s ({s['debates_per_s']} debates/s)"]
        if self.archive:
            lines.append(f"- archive: {self.archive}")
        bad = [r for r in self.results if r.status in ("failed", "error", "stopped", "interrupted")]
        if bad:
            lines += ["", "| cell | debate | status | reason |", "| --- | --- | --- | --- |"]
            for r in bad:
                reason = r.reason.replace("|", "\\|").replace("\n", " ")[:160]
                lines.append(f"| {r.cell.describe()} | {r.debate_id or '—'} | {r.status} | {reason} |")
        if self.audit is not None:
            lines += ["", self.audit.to_markdown()]
        return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------- running


class _Tagged(Recorder):
    """Forwards to the archive; stamps the batch id on the debate when it is created."""

    def __init__(self, inner: Recorder, batch_id: str):
        self.inner = inner
        self.batch_id = batch_id
        self.debate: Optional[Debate] = None

    def start(self, debate: Debate) -> None:
        debate.batch_id = self.batch_id
        self.debate = debate
        self.inner.start(debate)

    def speech(self, debate, speech) -> None:
        self.inner.speech(debate, speech)

    def summary(self, debate, summary) -> None:
        self.inner.summary(debate, summary)

    def call(self, debate, call) -> None:
        self.inner.call(debate, call)

    def update(self, debate) -> None:
        self.inner.update(debate)


def _first_line(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None)
    text = cause if isinstance(cause, str) and cause else (str(exc).strip() or type(exc).__name__)
    text = text.splitlines()[0]
    name = type(exc).__name__
    return text if name in ("InputError", "SpecError", "GatewayError", "ConfigError") else f"{name}: {text}"


@dataclass
class Existing:
    debate_id: str
    status: str
    created_at: Any = None


def existing_cells(archive, batch_id: str) -> dict[str, list[Existing]]:
    """Debates already archived for ``batch_id``, by cell key, newest first."""
    df = archive.query(
        "SELECT id, status, json_extract_string(config, '$.batch_id') AS tag, created_at FROM debates "
        "WHERE batch_id = ? OR starts_with(coalesce(json_extract_string(config, '$.batch_id'), ''), ?) "
        "ORDER BY created_at DESC, id", [batch_id, batch_id + CELL_SEP])
    out: dict[str, list[Existing]] = {}
    for row in df.itertuples(index=False):
        b, cell = split_tag(row.tag)
        if b != batch_id or not cell:
            continue
        out.setdefault(cell, []).append(Existing(row.id, row.status, row.created_at))
    return out


class _LoopNoise(logging.Filter):
    """Drops litellm's logging-worker complaints (``asyncio`` and ``LiteLLM`` loggers).

    litellm keeps one global logging worker bound to one event loop; topic debates
    running concurrently (each thread with its own loop) make it log errors about
    queues "bound to a different event loop".  They concern litellm's own (unused)
    success callbacks, not the debate, so a batch filters exactly those records.
    """

    NEEDLES = ("LoggingWorker", "bound to a different event loop", "cannot reuse already awaited coroutine",
               "periodic_sync_in_memory_spend")

    def filter(self, record: logging.LogRecord) -> bool:
        blob = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            blob += repr(exc) + repr(exc.__context__)
        return not any(n in blob for n in self.NEEDLES)


def _quiet_litellm_loop_noise() -> None:
    import warnings

    for name in ("asyncio", "LiteLLM"):
        log = logging.getLogger(name)
        if not any(isinstance(f, _LoopNoise) for f in log.filters):
            log.addFilter(_LoopNoise())
    # the usage-based router leaves a background sync task in whichever loop first used it
    warnings.filterwarnings("ignore", message=r"coroutine 'BaseRoutingStrategy\.periodic_sync", category=RuntimeWarning)


class _Committer:
    """Group commit for ``commit: debate``: finished debates are written whole, many per transaction.

    Workers hand over a finished :class:`Debate`; one thread writes whatever has queued up
    with :meth:`Archive.save_many` (one short transaction), so the archive's per-operation
    cost is paid once per group instead of once per speech.
    """

    def __init__(self, archive):
        import queue

        self.archive = archive
        self.queue: "queue.Queue[Optional[Debate]]" = queue.Queue()
        self.failures: dict[str, str] = {}
        self._thread = threading.Thread(target=self._loop, name="batch-commit", daemon=True)
        self._thread.start()

    def put(self, debate: Debate) -> None:
        self.queue.put(debate)

    def _loop(self) -> None:
        import queue

        done = False
        while not done:
            group = [self.queue.get()]
            while True:
                try:
                    group.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            done = any(d is None for d in group)
            debates = [d for d in group if d is not None]
            if not debates:
                continue
            try:
                self.archive.save_many(debates)
            except Exception as exc:  # noqa: BLE001 - reported per debate, never raised in a worker
                for d in debates:
                    self.failures[d.id] = f"not archived: {_first_line(exc)}"

    def close(self) -> None:
        self.queue.put(None)
        self._thread.join()


class BatchRunner:
    """Runs one spec's grid into an archive (or nowhere, with ``archive=None``)."""

    def __init__(self, spec: Union[BatchSpec, dict, str, Path], archive=None, *,
                 concurrency: Optional[int] = None, progress: Union[bool, str] = False,
                 on_result: Optional[Callable[[CellResult], None]] = None,
                 stop: Optional[threading.Event] = None, router: Any = None, probe: bool = True):
        self.spec = load_spec(spec)
        self.archive = archive
        self.concurrency = max(1, int(concurrency or self.spec.concurrency))
        self.progress = progress
        self.on_result = on_result
        self.stop = stop or threading.Event()
        self.probe = probe
        self._router = router
        self._router_built = router is not None
        self._lock = threading.Lock()
        self._committer: Optional[_Committer] = None

    # ---------------------------------------------------------------- set-up
    @property
    def batch_id(self) -> str:
        assert self.spec.batch_id
        return self.spec.batch_id

    def cells(self) -> list[Cell]:
        return expand(self.spec)

    @property
    def router(self):
        if not self._router_built:
            self._router = build_router(self.spec)
            self._router_built = True
        return self._router

    def gateway_options(self) -> dict[str, Any]:
        opts = dict(self.spec.gateway)
        if self.router is not None:
            opts["router"] = self.router
        return opts

    def preflight(self, cells: list[Cell]) -> None:
        """Check every model configuration once (key present, api_base reachable) before any debate."""
        from debate_core.engines.gateway import check_model_config

        routed = {d.model_name for d in self.spec.deployments}
        models = sorted({m for c in cells for m in c.models + ((c.judge_model,) if c.judge_model else ())}
                        - {"offline"} - routed)
        if self.spec.deployments:
            return  # every call goes through the router, whose deployments carry their own endpoints
        probe = self.probe
        for m in models:
            check_model_config(m, self.spec.api_base, probe=probe)
            probe = False
        if models:
            from debate_core.engines.gateway import litellm

            litellm()  # import it once here, not in every worker thread at the same time

    def plan(self) -> "Any":
        """The grid as a DataFrame with what a run would do per cell: run, resume or skip."""
        import pandas as pd

        cells = self.cells()
        existing = existing_cells(self.archive, self.batch_id) if self.archive is not None else {}
        rows = []
        for c in cells:
            action, debate_id = self._action(existing.get(c.key, []))
            rows.append({**c.as_row(), "action": action, "debate_id": debate_id})
        return pd.DataFrame(rows)

    def _action(self, prior: list[Existing]) -> tuple[str, Optional[str]]:
        done = next((p for p in prior if p.status == "completed"), None)
        if done is not None:
            return "skip", done.debate_id
        running = next((p for p in prior if p.status == "running"), None)
        if running is not None:
            return "busy", running.debate_id
        again = next((p for p in prior if p.status in RESUMABLE), None)
        if again is not None and self.spec.resume:
            return "resume", again.debate_id
        return "run", None

    # ------------------------------------------------------------- one cell
    def _start(self, config: DebateConfig, recorder: Recorder):
        from debate_core.runs import start as start_debate

        return start_debate(config, recorder, probe=False, gateway_options=self.gateway_options())

    def _resume(self, debate_id: str, recorder: Recorder):
        debate = self.archive.get_debate(debate_id)
        self.archive.claim(debate_id)
        if debate.protocol == "master":
            from debate_core.protocols.master import master_runner

            return master_runner(debate.config, recorder, probe=False, gateway_options=self.gateway_options()), debate
        from debate_core.protocols import registry

        return registry.get(debate.protocol).runner_for(debate, recorder, gateway_options=self.gateway_options()), debate

    def run_cell(self, cell: Cell, prior: Optional[list[Existing]] = None) -> CellResult:
        t0 = time.perf_counter()
        action, old_id = self._action(prior or [])
        if action == "skip":
            return CellResult(cell, "skipped", old_id, "completed in an earlier run")
        if action == "busy":
            return CellResult(cell, "busy", old_id, "a live process is running this cell's debate")
        if self.stop.is_set():
            return CellResult(cell, "cancelled", None, "the batch was stopped before this cell")
        buffered = self.archive is not None and action == "run" and self._buffered(cell)
        inner = self.archive if self.archive is not None and not buffered else NULL_RECORDER
        tag = _Tagged(inner, self.batch_id)
        debate: Optional[Debate] = None
        try:
            if action == "resume" and old_id:
                runner, debate = self._resume(old_id, tag)
                tag.debate = debate
            else:
                runner, debate = self._start(config_for(self.spec, cell), tag)
            debate = runner.run(debate, should_stop=self.stop.is_set)
        except Exception as exc:  # noqa: BLE001 - one debate's error never stops the batch
            reason = _first_line(exc)
            live = tag.debate or debate
            if live is not None and live.status == "running":
                live.status, live.stop_reason = "failed", f"batch: {reason}"
                if buffered:
                    self._commit(live)
                elif self.archive is not None:
                    try:
                        self.archive.set_status(live.id, "failed", live.stop_reason)
                    except Exception:  # noqa: BLE001
                        pass
            return CellResult(cell, "error", live.id if live else None, reason, resumed=action == "resume",
                              seconds=time.perf_counter() - t0)
        if buffered:
            self._commit(debate)
        return CellResult(cell, debate.status, debate.id, debate.stop_reason, resumed=action == "resume",
                          seconds=time.perf_counter() - t0)

    def _buffered(self, cell: Cell) -> bool:
        """``commit: debate`` (or ``auto`` for offline master debates, which take milliseconds)."""
        if self.spec.commit == "speech":
            return False
        if self.spec.commit == "debate":
            return True
        return cell.protocol == "master" and (not cell.models or cell.models[0] == "offline")

    def _commit(self, debate: Debate) -> None:
        with self._lock:
            if self._committer is None:
                self._committer = _Committer(self.archive)
        self._committer.put(debate)

    # -------------------------------------------------------------- the batch
    def run(self) -> BatchResult:
        t0 = time.perf_counter()
        cells = self.cells()
        self.preflight(cells)
        if (self.concurrency > 1 and self.spec.protocol == "topic") or self.spec.deployments:
            _quiet_litellm_loop_noise()
        if self.archive is not None:
            self.archive.mark_interrupted()
            existing = existing_cells(self.archive, self.batch_id)
        else:
            existing = {}
        result = BatchResult(batch_id=self.batch_id, protocol=self.spec.protocol,
                             archive=str(getattr(self.archive, "path", "")) or None)
        todo = [(c, existing.get(c.key, [])) for c in cells]
        bar = _Bar(len(todo), self.batch_id, self.progress)
        by_key: dict[str, CellResult] = {}
        try:
            with bar, ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="batch") as pool:
                pending: dict[Future, Cell] = {}
                queue = iter(todo)

                def submit_more() -> None:
                    while len(pending) < self.concurrency * 2 and not self.stop.is_set():
                        try:
                            c, prior = next(queue)
                        except StopIteration:
                            return
                        action, old = self._action(prior)
                        if action in ("skip", "busy"):
                            r = self.run_cell(c, prior)
                            by_key[c.key] = r
                            bar.done(r)
                            self._emit(r)
                            continue
                        pending[pool.submit(self.run_cell, c, prior)] = c

                submit_more()
                try:
                    while pending:
                        finished, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                        for fut in finished:
                            c = pending.pop(fut)
                            r = fut.result()
                            by_key[c.key] = r
                            bar.done(r)
                            self._emit(r)
                        submit_more()
                except KeyboardInterrupt:
                    self.stop.set()
                    bar.note("stopping: running debates halt at their next round; rerun the spec to resume")
                    for fut, c in list(pending.items()):
                        if fut.cancel():
                            pending.pop(fut)
                    for fut, c in pending.items():
                        by_key[c.key] = fut.result()
        finally:
            if self._committer is not None:
                self._committer.close()
                for r in by_key.values():
                    why = self._committer.failures.get(r.debate_id or "")
                    if why:
                        r.status, r.reason = "error", why
                self._committer = None
            for c, _prior in todo:
                if c.key not in by_key:
                    by_key[c.key] = CellResult(c, "cancelled", None, "the batch was stopped before this cell")
            result.results = [by_key[c.key] for c, _ in todo]
            result.elapsed = time.perf_counter() - t0
        if self.spec.audit and self.spec.protocol != "master" and self.archive is not None and not self.stop.is_set():
            from debate_core.analysis.audit import audit_batch

            result.audit = audit_batch(self.archive, self.batch_id, judges=self.spec.judge_models or None,
                                       variants=self.spec.audit_variants, concurrency=self.concurrency,
                                       gateway_options=self.gateway_options())
        return result

    def _emit(self, r: CellResult) -> None:
        if self.on_result is not None:
            with self._lock:
                self.on_result(r)


class _Bar:
    """A rich progress bar with ETA on stderr (or nothing)."""

    def __init__(self, total: int, batch_id: str, enabled: Union[bool, str]):
        self.total = total
        self.enabled = bool(enabled)
        self.stats = {"ok": 0, "failed": 0, "skipped": 0}
        self._progress = None
        self._task = None
        self.batch_id = batch_id

    def __enter__(self) -> "_Bar":
        if self.enabled:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)

            console = Console(stderr=True)
            self._progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[stats]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                console=console, refresh_per_second=4)
            self._progress.__enter__()
            self._task = self._progress.add_task(f"batch {self.batch_id}", total=self.total, stats=self._stats())
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def _stats(self) -> str:
        return f"ok {self.stats['ok']} · failed {self.stats['failed']} · skipped {self.stats['skipped']}"

    def done(self, r: CellResult) -> None:
        if r.status == "completed":
            self.stats["ok"] += 1
        elif r.status == "skipped":
            self.stats["skipped"] += 1
        elif r.status not in ("cancelled",):
            self.stats["failed"] += 1
        if self._progress is not None:
            if r.status in ("failed", "error"):
                self._progress.console.print(f"[red]✗[/red] {r.cell.describe()} ({r.debate_id or 'no debate'}): "
                                             f"{r.reason[:200]}", markup=True, highlight=False)
            self._progress.update(self._task, advance=1, stats=self._stats())

    def note(self, text: str) -> None:
        if self._progress is not None:
            self._progress.console.print(text, markup=False, highlight=False)
        elif self.enabled:
            sys.stderr.write(text + "\n")


def run_batch(spec: Union[BatchSpec, dict, str, Path], archive=None, **kwargs) -> BatchResult:
    """Run a spec (a BatchSpec, a mapping or a YAML / JSON path) into ``archive`` (an Archive, a path, or None).

    Keyword arguments go to :class:`BatchRunner` (``concurrency``, ``progress``, ``on_result``, ``stop``,
    ``router``, ``probe``).
    """
    if isinstance(archive, (str, Path)):
        from debate_core.archive import open_archive

        archive = open_archive(archive)
    return BatchRunner(spec, archive, **kwargs).run()


# -------------------------------------------------------------- a simulated model


def simulated_model(strengths: Optional[dict[str, float]] = None, *, judges: Optional[dict[str, str]] = None,
                    default_judge: str = "fair", delay: float = 0.0,
                    faults: Optional[Callable[[dict], Any]] = None, stances: tuple[str, str] = ("正方立场", "反方立场")):
    """A script for :class:`~debate_core.scripted_server.ScriptedServer` that plays the judged protocols.

    For demos, notebooks, tests and benchmarks with no real model: debaters answer
    valid envelopes (topic debates) or speeches (trials) carrying a visible
    ``力度=<strength>`` marker, where the strength is ``strengths[<model name>]``
    (default 1.0); the judge reads the markers from the anonymous log and rules:

    * ``fair`` — the strongest wins (a tie is broken by a hash of the log);
    * ``noisy`` — a Bradley-Terry draw (P ∝ strength), seeded by the log and the judge;
    * ``first`` — whoever is presented first (a position-biased judge);
    * ``label`` — always 辩手甲 / pro (a label-biased judge).

    ``judges`` maps a judge model name to its mode; ``faults(body)`` may return a
    :class:`~debate_core.scripted_server.Reply` (an error, a delay) that replaces the answer.
    Model names are the server-side names (``openai/m1`` reaches the server as ``m1``).
    """
    import random
    from debate_core.engines.scripted_server import Reply

    strengths = dict(strengths or {})
    judges = dict(judges or {})
    seen: dict[str, int] = {}
    lock = threading.Lock()
    strength_of = (lambda model: float(strengths.get(model, strengths.get(model.split("/")[-1], 1.0))))

    def pick(mode: str, ranked: list[tuple[str, float]], seed_text: str, first: str, label: str) -> str:
        if mode == "first":
            return first
        if mode == "label":
            return label
        if mode == "noisy":
            digest = hashlib.sha256(seed_text.encode()).hexdigest()
            with lock:  # the n-th judging of the same log draws anew (repeats are identical logs)
                seen[digest] = seen.get(digest, 0) + 1
                nth = seen[digest]
            rng = random.Random(f"{digest}:{nth}")
            total = sum(max(v, 1e-9) for _, v in ranked)
            x = rng.random() * total
            for name, v in ranked:
                x -= max(v, 1e-9)
                if x <= 0:
                    return name
            return ranked[-1][0]
        best = max(v for _, v in ranked)
        tied = sorted(n for n, v in ranked if v == best)
        return tied[int(hashlib.sha256(seed_text.encode()).hexdigest(), 16) % len(tied)]

    def answer(body: dict) -> Any:
        msgs = body.get("messages") or []
        system = str(msgs[0].get("content") or "") if msgs else ""
        user = str(msgs[1].get("content") or "") if len(msgs) > 1 else ""
        model = str(body.get("model") or "")
        if "中立编排者" in system:
            return json.dumps({"stances": list(stances), "reason": "simulated split"}, ensure_ascii=False)
        if "独立裁判" in system:  # topic-debate judge
            listed = re.findall(r'"label": "(辩手.)"', user)
            marks: dict[str, list[float]] = {}
            for lab, block in re.findall(r"### (辩手.)（[^\n]*\n(.*?)(?=\n### |\n## |\Z)", user, re.S):
                marks.setdefault(lab, []).extend(float(x) for x in re.findall(r"力度=([0-9.]+)", block))
            ranked = [(lab, sum(marks.get(lab, [0.0])) / max(len(marks.get(lab, [])), 1)) for lab in listed]
            if not ranked:
                return "无法裁决"
            winner = pick(judges.get(model, default_judge), ranked, model + user, listed[0], "辩手甲")
            rows = [{"label": lab, "stance": "", "strongest": "论点", "weakness": "弱点",
                     "score": 8.0 if lab == winner else 5.0} for lab, _ in ranked]
            return "```json\n" + json.dumps({"winner": winner, "summary": f"{winner}胜出", "reasons": {
                "论点强度": "见日志", "攻防表现": "见日志", "逻辑硬伤": "见日志"}, "rows": rows, "note": ""},
                ensure_ascii=False) + "\n```"
        if "庭审式辩论的裁判" in system:  # trial judge
            blocks = re.findall(r"### 第 (\d+) 轮 · (正方|反方)\n(.*?)(?=\n### 第|\Z)", user, re.S)
            order: list[str] = []
            marks = {}
            for _r, side, text in blocks:
                key = "pro" if side == "正方" else "con"
                if key not in order:
                    order.append(key)
                marks.setdefault(key, []).extend(float(x) for x in re.findall(r"力度=([0-9.]+)", text))
            ranked = [(k, sum(marks.get(k, [0.0])) / max(len(marks.get(k, [])), 1)) for k in order] or \
                [("pro", 1.0), ("con", 1.0)]
            winner = pick(judges.get(model, default_judge), ranked, model + user, ranked[0][0], "pro")
            rounds = sorted({int(r) for r, _s, _t in blocks}) or [1]
            return json.dumps({"per_round": [{"round": r, "comment": f"第{r}轮交锋"} for r in rounds],
                               "winner": winner, "summary": f"{winner} wins", "reasons": "力度更强"},
                              ensure_ascii=False)
        if "庭审式辩论中担任" in system:  # trial speaker
            side = "正方" if "担任正方" in system else "反方"
            return f"{side}陈词：命题{'成立' if side == '正方' else '不成立'}，理由如下。力度={strength_of(model):.4f}。" \
                + "论证展开。" * 10
        m = re.search(r"你是(辩手.)", system)
        if m:  # topic debater
            r = re.search(r"第 (\d+) 轮", user)
            round_no = int(r.group(1)) if r else 1
            st = re.search(r"立场是：\n```data\n(.*?)\n```", system, re.S)
            env = {"stance": json.loads(st.group(1)) if st else "", "no_new_points": round_no >= 2,
                   "arguments": [{"id": f"A{round_no}", "point": f"{m.group(1)}第{round_no}轮论点",
                                  "reasoning": f"力度={strength_of(model):.4f}", "evidence": ""}],
                   "rebuttals": []}
            return "```json\n" + json.dumps(env, ensure_ascii=False) + "\n```"
        return "好的。"

    def script(body: dict):
        if faults is not None:
            fault = faults(body)
            if fault is not None:
                return fault
        reply = answer(body)
        return Reply(text=reply, delay=delay) if delay else reply
    return script


def batch_debates(archive, batch_id: str) -> "Any":
    """The archived debates of one batch with their cell keys (a DataFrame)."""
    df = archive.query(
        "SELECT id, protocol, topic, status, stop_reason, labels, models, rounds_done AS rounds, batch_id, "
        "json_extract_string(config, '$.batch_id') AS tag, created_at, finished_at FROM debates "
        "WHERE batch_id = ? ORDER BY created_at, id", [batch_id])
    df["cell"] = [split_tag(t)[1] for t in df["tag"]]
    return df.drop(columns=["tag"])


__all__ = ["BatchSpec", "BatchRunner", "BatchResult", "Cell", "CellResult", "SpecError", "Deployment", "batch_debates",
           "build_router", "cell_key", "config_for", "existing_cells", "expand", "load_spec", "parse_spec", "run_batch",
           "simulated_model", "split_tag"]
