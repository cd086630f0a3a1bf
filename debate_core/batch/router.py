"""A batch's shared model routing: one ``litellm.Router`` over the spec's deployments
(rpm / tpm per deployment, fallbacks, routing strategy), its rpm / tpm counters kept in a
shared Redis when the spec names one (so every process and machine running the batch
counts against the same limits), and quieting litellm's event-loop noise when debates
call models from many threads at once."""

from __future__ import annotations

import logging
import os
from typing import Any

from debate_core.batch.spec import REDIS_KEYS, BatchSpec, SpecError, _masked_url, env_ref

REDIS_PING_TIMEOUT = 3.0  # seconds; litellm itself would wait and then run without Redis, silently


def router_models(spec: BatchSpec) -> set[str]:
    """Every model name the batch calls (debaters and judges), offline excluded."""
    names: set[str] = set()
    for m in spec.models:
        names.update([m] if isinstance(m, str) else m)
    names.update(spec.judge_models)
    names.discard("offline")
    return names


def redis_settings(spec: BatchSpec) -> dict[str, Any]:
    """The router's ``redis_*`` arguments with ``os.environ/NAME`` references read from the environment.

    A referenced variable that is not set is a :class:`SpecError` naming it.
    """
    out: dict[str, Any] = {}
    for key in REDIS_KEYS:
        value = spec.router.get(key)
        if value is None:
            continue
        name = env_ref(value)
        if name is not None:
            value = os.environ.get(name, "").strip()
            if not value:
                raise SpecError(f"batch spec: router: {key}: os.environ/{name} is not set in the environment")
            if key in ("redis_port", "redis_db"):
                if not value.isdigit():
                    raise SpecError(f"batch spec: router: {key}: ${name} is {value!r}, not a number")
                value = int(value)
        out[key] = value
    if "redis_host" in out:
        out.setdefault("redis_port", 6379)
    if out.get("redis_url") and out.get("redis_password"):
        out["redis_url"] = _with_password(str(out["redis_url"]), str(out.pop("redis_password")))
    return out


def _with_password(url: str, password: str) -> str:
    """``url`` carrying ``password``: litellm connects by URL alone and drops a separate password."""
    from urllib.parse import quote, urlsplit

    parts = urlsplit(url)
    if parts.password is not None:
        raise SpecError(
            "batch spec: router: redis_password: the URL in redis_url already holds a password; give it once"
        )
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{parts.username or ''}:{quote(password, safe='')}@{host}").geturl()


def redis_where(settings: dict[str, Any]) -> str:
    """Where the Redis is, for messages: the URL (password masked) or host:port."""
    if settings.get("redis_url"):
        return _masked_url(str(settings["redis_url"]))
    return f"{settings.get('redis_host')}:{settings.get('redis_port')}"


def check_redis(settings: dict[str, Any]) -> None:
    """Ping the Redis before any call: litellm would otherwise wait, then count in memory per process."""
    try:
        import redis
    except ImportError:
        raise SpecError(
            "batch spec: router: a shared Redis needs the redis client: "
            "pip install -r requirements-ray.txt (or pip install redis)"
        ) from None
    opts: dict[str, Any] = dict(socket_connect_timeout=REDIS_PING_TIMEOUT, socket_timeout=REDIS_PING_TIMEOUT)
    try:
        if settings.get("redis_url"):
            extra = {"db": settings["redis_db"]} if settings.get("redis_db") is not None else {}
            client = redis.Redis.from_url(settings["redis_url"], **extra, **opts)
        else:
            client = redis.Redis(
                host=settings["redis_host"],
                port=int(settings["redis_port"]),
                password=settings.get("redis_password"),
                db=int(settings.get("redis_db") or 0),
                **opts,
            )
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001 - any failure to reach it is said in one line
        text = (str(exc).strip() or type(exc).__name__).splitlines()[0][:200]
        raise SpecError(f"batch spec: router: cannot reach Redis at {redis_where(settings)}: {text}") from None


def check_router_settings(spec: BatchSpec) -> dict[str, Any]:
    """What :func:`build_router` checks before it builds anything: every ``os.environ/NAME`` the
    deployments name is set, and the Redis (if any) answers; returns the router's Redis settings.
    It starts nothing of litellm's: a batch that forks worker processes checks this before the fork
    and builds its router after it (a router on Redis starts litellm's native client, whose threads
    do not survive ``fork``)."""
    for d in spec.deployments:
        for key, value in d.litellm_params.items():
            name = env_ref(value)
            if name and not os.environ.get(name):
                raise SpecError(
                    f"batch spec: deployments: {d.model_name}: {key}: os.environ/{name} is not set in the environment"
                )
    redis = redis_settings(spec)
    if redis:
        check_redis(redis)  # before litellm is imported: a wrong Redis is said at once
    return redis


def build_router(spec: BatchSpec):
    """A ``litellm.Router`` over the spec's deployments, or None when it lists none.

    Models the batch uses that no deployment names are added as plain pass-through
    deployments (with the spec's ``api_base``), so every call shares one router.  When the
    spec's ``router`` names a Redis (``redis_url``, or ``redis_host`` / ``redis_port``, with
    ``redis_password`` only as ``os.environ/NAME``), it is pinged first and the router keeps
    its rpm / tpm counters there, shared by every router on the same Redis; that router comes
    wrapped in :class:`SharedLimits`.
    """
    if not spec.deployments:
        return None
    redis = check_router_settings(spec)
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
    for entry in model_list:
        lp = entry["litellm_params"]
        if (
            lp.get("api_base")
            and provider_of(lp["model"]) in ("openai", "hosted_vllm")
            and "api_key" not in lp
            and not os.environ.get("OPENAI_API_KEY")
        ):
            lp["api_key"] = "not-needed"
    limited = any(
        d["litellm_params"].get("rpm") or d["litellm_params"].get("tpm") or d.get("rpm") or d.get("tpm")
        for d in model_list
    )
    kwargs: dict[str, Any] = {"num_retries": 0}
    if limited:
        kwargs.update(routing_strategy="usage-based-routing-v2", enable_pre_call_checks=True)
    if spec.fallbacks:
        kwargs["fallbacks"] = spec.fallbacks
    kwargs.update({k: v for k, v in spec.router.items() if k not in REDIS_KEYS})
    kwargs.update(redis)

    async def make():
        # Built inside a short-lived event loop: a usage-based strategy schedules a background
        # (redis) sync task on the current loop, and asyncio.run cancels it cleanly at the end
        # instead of leaving a never-awaited coroutine behind.
        return Router(model_list=model_list, **kwargs)

    import asyncio
    from concurrent.futures import ThreadPoolExecutor as _Pool

    try:
        with _Pool(max_workers=1) as pool:
            router = pool.submit(asyncio.run, make()).result()
    except Exception as exc:  # noqa: BLE001 - a bad router config is a spec error, said in one line
        raise SpecError(
            f"batch spec: deployments/router: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        ) from None
    if redis:
        _NATIVE["started"] = True
        return SharedLimits(router)
    return router


_NATIVE = {"started": False}  # this process built a router on Redis: litellm's native client runs here


def native_client_started() -> bool:
    """Whether this process built a router on Redis, which starts litellm's native client: its threads
    do not survive ``fork``, so a batch run here afterwards forks no worker processes."""
    return _NATIVE["started"]


class SharedLimits:
    """A ``litellm.Router`` on a shared Redis whose async calls take its synchronous path, in a thread.

    litellm's synchronous rpm check is one atomic ``INCR`` in Redis, so every process on the
    same Redis counts against one limit.  Its async check counts in this process's memory and
    copies the counts to Redis from a background task, so processes calling at the same time
    would each pass the limit before seeing the others' calls (and a batch builds its router in
    a short-lived event loop, where that task does not survive).  Everything else is the router's.
    """

    def __init__(self, router: Any):
        self.router = router

    def completion(self, **kwargs: Any) -> Any:
        return self.router.completion(**kwargs)

    async def acompletion(self, **kwargs: Any) -> Any:
        import asyncio

        return await asyncio.to_thread(self.router.completion, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.router, name)


class _LoopNoise(logging.Filter):
    """Drops litellm's logging-worker complaints (``asyncio`` and ``LiteLLM`` loggers).

    litellm keeps one global logging worker bound to one event loop; debates running
    concurrently (each thread with its own loop) make it log errors about queues "bound
    to a different event loop".  They concern litellm's own (unused) success callbacks,
    not the debate, so a batch filters exactly those records.
    """

    NEEDLES = (
        "LoggingWorker",
        "bound to a different event loop",
        "cannot reuse already awaited coroutine",
        "periodic_sync_in_memory_spend",
    )

    def filter(self, record: logging.LogRecord) -> bool:
        blob = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            blob += repr(exc) + repr(exc.__context__)
        return not any(n in blob for n in self.NEEDLES)


def quiet_litellm_loop_noise() -> None:
    """Filter litellm's event-loop complaints out of the ``asyncio`` and ``LiteLLM`` logs."""
    import warnings

    for name in ("asyncio", "LiteLLM"):
        log = logging.getLogger(name)
        if not any(isinstance(f, _LoopNoise) for f in log.filters):
            log.addFilter(_LoopNoise())
    # the usage-based router leaves a background sync task in whichever loop first used it
    warnings.filterwarnings("ignore", message=r"coroutine 'BaseRoutingStrategy\.periodic_sync", category=RuntimeWarning)
