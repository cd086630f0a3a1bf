"""What every protocol declares: its spec, and the runner interface the run path drives.

A protocol is one module of this package that defines ``SPEC``, a :class:`ProtocolSpec`.
The spec says what the protocol is (its roles, its limits, what Setup must ask), how a
debate of it is started and continued, and how it renders.  The CLI, the app, batch, the
exporters and the run path read the spec; they do not branch on the protocol's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from debate_core.models import Debate, DebateConfig, Speech


class Runner(Protocol):
    """Runs (or continues) one debate from its first unfinished round."""

    def run(
        self,
        debate: Debate,
        *,
        on_token: Callable[[str], None] | None = None,
        on_speech: Callable[[Speech], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        only_one: bool = False,
    ) -> Debate: ...


@dataclass(frozen=True)
class Role:
    """One kind of participant whose model Setup asks for."""

    key: str  # debaters / judge / checker / speakers
    label: str  # the field's label in Setup (Chinese, like every protocol's text)
    field: str  # the DebateConfig field the answer goes into: model, judge_model or check_model
    help: str = ""
    many: bool = False  # a comma-separated list (one model per debater, rotated)
    required: bool = True  # False: empty means "off" (check_model) or "same as the debaters" (judge)


# Setup fields beyond topic, rounds and the roles' models.
ASK_PACK = "pack"  # a persona pack folder
ASK_MASTERS = "masters"  # two masters of the pack (or the seed's routing)
ASK_WORKSPACE = "workspace"  # a read-only folder for the research tools
ASK_STANCES = "stances"  # the stances to argue (or none: the model splits the topic)


@dataclass(frozen=True)
class ProtocolSpec:
    name: str  # the stored protocol name: master / topic / trial
    title: str  # the name people see
    summary: str  # one line for Setup and the CLI's help
    roles: tuple[Role, ...]
    min_rounds: int
    max_rounds: int
    default_rounds: int | None  # None: the pack or the protocol decides
    asks: tuple[str, ...] = ()
    judged: bool = False  # ends in a judge's verdict (winners, judge audits, ratings)
    panel: bool = False  # its debates come with a panel of judges' decisions (imported): shown as a verdict
    offline: bool = False  # runs on the embedded offline engine with no model configured
    languages: tuple[str, ...] = ("zh", "en")  # the debate languages it speaks (debate_core.lang)
    # start(config, recorder, *, probe, gateway_options) -> (runner, debate): validates, creates the record
    start: Callable[..., tuple[Runner, Debate]] = field(default=None, repr=False)  # type: ignore[assignment]
    # runner_for(debate, recorder, *, gateway_options, pack_path) -> runner: continues a stored record
    runner_for: Callable[..., Runner] = field(default=None, repr=False)  # type: ignore[assignment]
    # render(debate) -> the protocol's own Markdown framework
    render: Callable[[Debate], str] = field(default=None, repr=False)  # type: ignore[assignment]
    # check(config) raises InputError for a config this protocol refuses (before anything is created)
    check: Callable[[DebateConfig], None] = field(default=lambda config: None, repr=False)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    # judged protocols: rejudge(debate, gateway_options) -> the debate with a fresh verdict (judge audits)
    rejudge: Callable[..., Debate] | None = field(default=None, repr=False)
    anonymous_labels: bool = False  # labels carry no meaning: a judge audit may swap them (relabel)
    judge_reads_participants: bool = False  # the judge meets sides in participant order (else in speech order)
    first_labels: tuple[str, ...] = ()  # the side presented first, in each language (presentation-bias figures)
    # wrap_up(debate, archive=…, export=…) -> the seed's closing text after an export, or None
    wrap_up: Callable[..., str] | None = field(default=None, repr=False)
    # wrap_up_lines(debate, lang=…, archive=…) -> the same for a reader in lang (render.judged.WrapUp: the
    # library's words in lang, the debate's own apart), or None
    wrap_up_lines: Callable[..., Any] | None = field(default=None, repr=False)
    cuts_speeches: bool = False  # each speech is cut at config.max_speech_length
    rounds_note: str = ""  # why max_rounds is what it is (said when a batch spec asks for more)
    # What the app (webapp/) shows; its own text is English, a debate's is the protocol's.
    app_title: str = ""  # the protocol's name in Setup
    app_summary: str = ""  # one line under it
    # a model field's (label, help) in Setup, by role key, or by seat for a many-model role
    app_fields: dict[str, tuple[str, str]] = field(default_factory=dict, repr=False)
    seats: tuple[str, ...] = ()  # the participant labels a many-model role fills, in order (a field each)
    # seat_names(lang) -> the seats as a debate in that language labels them (else ``seats``)
    seat_names: Callable[[str], tuple[str, ...]] | None = field(default=None, repr=False)
    # asks stances: stance_seats(stances, lang) -> {seat name: the stance its debater argues}, as the protocol assigns
    # them
    stance_seats: Callable[..., dict[str, str]] | None = field(default=None, repr=False)
    app_in_chinese: bool = False  # the app shows its debates in Chinese throughout (the seed's headings, labels)
    outcome_heading: str = ""  # the heading of its closing section when it ends without a verdict
    export_formats: tuple[str, ...] = ("md", "json", "ipynb")  # the downloads the app offers
    # rounds_done(debate) -> rounds fully played, by the protocol's own rule
    rounds_done: Callable[[Debate], int] = field(default=None, repr=False)  # type: ignore[assignment]
    # turn(debate, round) -> who speaks in that round, as the Live page names it
    turn: Callable[[Debate, int], str] = field(default=None, repr=False)  # type: ignore[assignment]

    def role(self, key: str) -> Role | None:
        return next((r for r in self.roles if r.key == key), None)

    def asks_for(self, what: str) -> bool:
        return what in self.asks

    def fields(self) -> tuple[str, ...]:
        """The DebateConfig model fields this protocol uses (Setup keeps the others empty)."""
        return tuple(dict.fromkeys(r.field for r in self.roles))


def check_lang(spec_name: str, languages: tuple[str, ...], config: DebateConfig) -> None:
    """Refuse a debate language the protocol does not speak, in one line naming the value.

    A protocol that speaks only Chinese also refuses a topic with no Chinese in it (``--lang zh``
    on it would still put an English topic into every Chinese speech)."""
    from debate_core.errors import InputError
    from debate_core.lang import has_cjk, resolve

    if languages == ("zh",) and not has_cjk(config.topic):
        raise InputError(
            f"topic: {config.topic!r} is not Chinese — a {spec_name} debate speaks only Chinese "
            f"(its persona packs are Chinese); write the topic in Chinese"
        )
    lang = resolve(config.topic, config.lang)
    if lang not in languages:
        raise InputError(
            f"lang: {lang!r} — a {spec_name} debate speaks only {', '.join(languages)}"
            + (" (its persona packs are Chinese)" if languages == ("zh",) else "")
        )


def check_no_checker(protocol: str) -> Callable[[DebateConfig], None]:
    """A ``check`` that refuses ``check_model`` (the model audit reads master speeches only)."""
    from debate_core.errors import InputError

    def check(config: DebateConfig) -> None:
        if (config.check_model or "").strip():
            raise InputError(f"check_model applies to master debates only, not to the {protocol} protocol")

    return check
