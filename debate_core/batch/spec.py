"""The batch spec: what a batch runs, parsed from YAML / JSON or a mapping and validated.

Unknown keys are refused (a typo would silently change the grid); every error is one
:class:`SpecError` line that names the key.  Which keys a protocol takes comes from its
:class:`~debate_core.protocols.base.ProtocolSpec` (Setup's asks, roles, round limits).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from debate_core.errors import InputError
from debate_core.protocols import registry
from debate_core.protocols.base import ASK_MASTERS, ASK_PACK, ASK_STANCES

BATCH_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ENV_REF = "os.environ/"  # litellm's way of naming an environment variable instead of writing its value
REDIS_KEYS = ("redis_url", "redis_host", "redis_port", "redis_password", "redis_db")
REDIS_SCHEMES = ("redis", "rediss", "unix")
LIMITED_RETRIES = 8  # with rpm/tpm limits: 1+2+4+8+16+30+30+30 s of backoff outlasts a one-minute window
AUDIT_VARIANTS = ("original", "relabel", "reorder")
MAX_PROCESSES = 64  # worker processes a batch may ask for


class SpecError(InputError):
    """A batch spec that cannot run; the message says which key is wrong."""


class TopicItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    topic: str
    stances: list[str] = Field(default_factory=list)
    pairs: list[str | list[str]] | None = None


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


class RayOptions(BaseModel):
    """How a batch runs on Ray (``--ray``): CPUs per debate task, extra variables for the workers."""

    model_config = ConfigDict(extra="forbid")

    num_cpus: float = Field(default=1.0, gt=0, le=64)
    env_vars: list[str] = Field(default_factory=list)

    @field_validator("env_vars")
    @classmethod
    def _env_names(cls, v: list[str]) -> list[str]:
        for name in v:
            if not isinstance(name, str) or not ENV_NAME_RE.match(name):
                raise ValueError(
                    f"{name!r} is not an environment variable name (list names; values come from "
                    "the driver's environment)"
                )
        return v


def env_ref(value: Any) -> str | None:
    """``NAME`` for a value written ``os.environ/NAME``, else None."""
    if isinstance(value, str) and value.startswith(ENV_REF):
        return value[len(ENV_REF) :]
    return None


def _masked_url(url: str) -> str:
    """A Redis URL with its password (if any) replaced by ``***``."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def _check_redis(router: dict[str, Any]) -> None:
    """The ``redis_*`` keys of ``router``: a URL or a host (and port), a password only by reference."""
    from urllib.parse import urlsplit

    given = [k for k in REDIS_KEYS if router.get(k) is not None]
    for key in given:
        value = router[key]
        name = env_ref(value)
        if name is not None:
            if not ENV_NAME_RE.match(name):
                raise ValueError(f"{key} {value!r}: write os.environ/NAME with a variable name")
            continue
        if key == "redis_password":
            raise ValueError(
                "redis_password: write os.environ/NAME, the variable that holds it; a password is "
                "never written in a spec"
            )
        if key == "redis_url":
            if not isinstance(value, str) or urlsplit(value).scheme not in REDIS_SCHEMES:
                raise ValueError(
                    f"redis_url {value!r}: a Redis URL (redis://host:port/db, rediss://..., "
                    "unix://...) or os.environ/NAME"
                )
            if urlsplit(value).password is not None:
                raise ValueError(
                    f"redis_url {_masked_url(value)!r}: holds a password; put the URL in an "
                    "environment variable and write os.environ/NAME"
                )
        elif key == "redis_host":
            if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value):
                raise ValueError(f"redis_host {value!r}: a host name or address, or os.environ/NAME")
        else:  # redis_port, redis_db
            low, high = (1, 65535) if key == "redis_port" else (0, 1_000_000)
            ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
            if not ok:
                what = "a port number 1-65535" if key == "redis_port" else "a database number (0, 1, ...)"
                raise ValueError(f"{key} {value!r}: {what}, or os.environ/NAME")
    if "redis_url" in given and "redis_host" in given:
        raise ValueError("redis_url and redis_host: name Redis once, by URL or by host and port")
    if given and "redis_url" not in given and "redis_host" not in given:
        raise ValueError(f"{given[0]}: name the Redis with redis_host (and redis_port) or redis_url")
    if "redis_url" in given and "redis_port" in given:
        raise ValueError("redis_port: the port goes in redis_url")


def env_references(spec: BatchSpec) -> list[str]:
    """The variable names the spec refers to as ``os.environ/NAME`` (deployments' keys, the router's Redis)."""
    names: list[str] = []

    def walk(value: Any) -> None:
        name = env_ref(value)
        if name and name not in names:
            names.append(name)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk([d.model_dump(mode="json") for d in spec.deployments])
    walk(spec.router)
    return names


def _names(wanted) -> str:
    """The protocols whose spec satisfies ``wanted``, for messages: ``topic`` or ``topic, trial``."""
    return ", ".join(s.name for s in registry.specs() if wanted(s))


class BatchSpec(BaseModel):
    """What a batch runs.  Unknown keys are refused (a typo would silently change the grid)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    batch_id: str | None = Field(default=None, alias="name")
    protocol: str = "master"
    topics: list[str | TopicItem]
    pairs: str | list[str | list[str]] | None = None
    stances: list[list[str]] | dict[str, list[str]] | None = None
    models: list[str | list[str]] = Field(default_factory=list)
    tournament: bool = False
    judge_models: list[str] = Field(default_factory=list)
    repeats: int = Field(default=1, ge=1, le=1000)
    swap: bool = False
    concurrency: int = Field(default=4, ge=1, le=256)
    rounds: int | None = Field(default=None, ge=1, le=20)
    pack: str | None = None
    api_base: str | None = None
    temperature: float = 0.7
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=20)
    check_retries: int = Field(default=2, ge=0, le=10)
    workspace: str | None = None
    max_speech_length: int = 2000
    lang: Literal["zh", "en"] | None = None  # every debate's language; None: each follows its topic
    deployments: list[Deployment] = Field(default_factory=list)
    fallbacks: list[dict[str, list[str]]] = Field(default_factory=list)
    router: dict[str, Any] = Field(default_factory=dict)
    gateway: dict[str, Any] = Field(default_factory=dict)
    audit: bool = False
    audit_variants: list[str] = Field(default_factory=lambda: list(AUDIT_VARIANTS))
    resume: bool = True
    commit: Literal["auto", "speech", "debate"] = "auto"
    processes: int | None = Field(default=None, ge=1, le=MAX_PROCESSES)  # None: auto (one per core when wide)
    ray: RayOptions = Field(default_factory=RayOptions)

    @field_validator("batch_id")
    @classmethod
    def _batch_id(cls, v: str | None) -> str | None:
        if v is not None and not BATCH_ID_RE.match(v):
            raise ValueError("use letters, digits, '_', '.' or '-' (at most 64), starting with a letter or digit")
        return v

    @field_validator("protocol")
    @classmethod
    def _protocol(cls, v: str) -> str:
        if v not in registry.names():
            raise ValueError(f"unknown protocol {v!r} (known: {', '.join(registry.names())})")
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
    def _rounds(cls, v: int | None, info: ValidationInfo) -> int | None:
        protocol = info.data.get("protocol")
        if v is None or protocol is None:
            return v
        spec = registry.get(protocol)
        if spec.asks_for(ASK_PACK):
            return v  # the pack sets the range; each debate checks it when it starts
        if v > spec.max_rounds:
            note = f" ({spec.rounds_note})" if spec.rounds_note else ""
            raise ValueError(f"{v} is too many: a {spec.name} debate runs at most {spec.max_rounds} rounds{note}")
        if v < spec.min_rounds:
            raise ValueError(f"{v} is too few: a {spec.name} debate runs at least {spec.min_rounds} rounds")
        return v

    @field_validator("processes", mode="before")
    @classmethod
    def _processes(cls, v: Any) -> Any:
        if v == "auto":
            return None
        if isinstance(v, bool) or (v is not None and not isinstance(v, int)):
            raise ValueError(f"{v!r}: a number of worker processes (1 = everything in this process) or auto")
        return v

    @field_validator("gateway")
    @classmethod
    def _gateway(cls, v: dict[str, Any]) -> dict[str, Any]:
        allowed = {"backoff", "max_backoff", "max_tokens"}
        bad = sorted(set(v) - allowed)
        if bad:
            raise ValueError(f"unknown gateway option(s) {', '.join(bad)} (allowed: {', '.join(sorted(allowed))})")
        return v

    @field_validator("router")
    @classmethod
    def _router(cls, v: dict[str, Any]) -> dict[str, Any]:
        _check_redis(v)
        return v

    @property
    def redis(self) -> bool:
        """Whether the router's rpm / tpm counters live in a shared Redis."""
        return any(self.router.get(k) is not None for k in ("redis_url", "redis_host"))

    @model_validator(mode="after")
    def _protocol_keys(self) -> BatchSpec:
        spec = registry.get(self.protocol)
        with_masters = _names(lambda s: s.asks_for(ASK_MASTERS))
        with_stances = _names(lambda s: s.asks_for(ASK_STANCES))
        if spec.asks_for(ASK_MASTERS):
            if self.stances:
                raise ValueError(f"'stances' is for {with_stances} debates; {with_masters} debates take 'pairs'")
        elif self.pairs:
            raise ValueError(f"'pairs' is for {with_masters} debates; {with_stances} debates take 'stances'")
        if self.tournament and not spec.judged:
            raise ValueError(f"'tournament' pairs up models for judged protocols ({', '.join(registry.judged())})")
        if not spec.offline and not self.models and not os.environ.get("DEBATE_MODEL"):
            raise ValueError(f"a {self.protocol} batch needs 'models' (or $DEBATE_MODEL)")
        if self.tournament and any(not isinstance(m, str) for m in self.models):
            raise ValueError("with 'tournament: true' list plain model strings; lineups are formed from them")
        if self.tournament and len(self.models) < 2:
            raise ValueError("'tournament: true' needs at least two models")
        if self.lang and self.lang not in spec.languages:
            raise ValueError(f"lang {self.lang!r}: a {self.protocol} debate speaks only {', '.join(spec.languages)}")
        if self.redis and not self.deployments:
            key = "redis_url" if self.router.get("redis_url") is not None else "redis_host"
            raise ValueError(f"router.{key}: Redis shares the rpm/tpm counters of 'deployments'; list them")
        why = processes_refused(self, self.processes)
        if why:
            raise ValueError(why)
        bad = [v for v in self.audit_variants if v not in AUDIT_VARIANTS]
        if bad:
            raise ValueError(f"unknown audit variant(s) {', '.join(bad)} ({', '.join(AUDIT_VARIANTS)})")
        return self


def processes_refused(spec: BatchSpec, processes: int | None, commit: str | None = None) -> str:
    """Why ``processes`` worker processes cannot run ``spec`` ("" when they can, or for 1 / auto).  Worker
    processes send their writes to the batch process's group writer, so they need group commits; and
    each builds its own router, whose rpm / tpm counts are its own unless the router keeps them in Redis."""
    if not processes or processes <= 1:
        return ""
    commit = commit or spec.commit
    if commit in ("speech", "debate"):
        return (
            f"processes {processes}: worker processes write through group commits (commit: auto); "
            f"with commit: {commit} a batch runs in one process"
        )
    if spec.deployments and not spec.redis:
        return (
            f"processes {processes}: each process would count the deployments' rpm / tpm on its own; name a "
            "Redis in 'router' to share the counts (docs/batch.md), or run the batch in one process"
        )
    return ""


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


def parse_spec(data: dict[str, Any], *, base_dir: Path | None = None, default_id: str | None = None) -> BatchSpec:
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
        d.litellm_params.get("rpm") or d.litellm_params.get("tpm") for d in spec.deployments
    ):
        updates["max_retries"] = LIMITED_RETRIES  # a call over a deployment's rpm/tpm waits out the window
    spec = spec.model_copy(update=updates)
    if spec.batch_id is None:
        spec = spec.model_copy(update={"batch_id": "batch-" + digest(spec_identity(spec), 10)})
    return spec


def _resolve_path(value: str, base_dir: Path | None) -> Path:
    p = Path(value).expanduser()
    if p.is_absolute():
        return p
    if base_dir is not None and (base_dir / p).exists():
        return (base_dir / p).resolve()
    return p.resolve()


def load_spec(source: str | Path | dict[str, Any] | BatchSpec) -> BatchSpec:
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
    keep = (
        "protocol",
        "topics",
        "pairs",
        "stances",
        "models",
        "tournament",
        "judge_models",
        "repeats",
        "swap",
        "rounds",
        "pack",
        "workspace",
        "max_speech_length",
    )
    data = spec.model_dump(mode="json", by_alias=False)
    ident = {k: data[k] for k in keep}
    if data.get("lang"):  # only when asked, so a spec written before languages keeps its batch id
        ident["lang"] = data["lang"]
    return ident


def digest(data: Any, n: int = 12) -> str:
    """A short stable hash of JSON-able ``data`` (batch ids, cell keys)."""
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()[:n]
