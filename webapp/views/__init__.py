"""View models for the Streamlit workbench, one module per page: everything a page shows,
computed here; the pages only lay it out.

* :mod:`~webapp.views.common` — what several pages share: speeches, a debate's language,
  safe Markdown (untrusted text through :mod:`debate_core.render.safe`: ``safe_markdown``,
  ``safe_inline``, ``safe_code``, ``safe_format``; ``plot_text`` / ``plot_frame`` for plotly
  names), packs, recent debates, errors;
* :mod:`~webapp.views.setup`, :mod:`~webapp.views.live`, :mod:`~webapp.views.outcome`,
  :mod:`~webapp.views.archive` (its Charts tab: :mod:`~webapp.views.archive_charts`),
  :mod:`~webapp.views.coverage` — one page each;
* :mod:`~webapp.views.chrome` — the app's own words about a debate (roles, rule names, check
  badges and findings, citation marks, stop reasons, warnings, the seed's fixed lines) in the
  reader's language, whatever the debate's; :mod:`~webapp.views.codes` — what the library states as
  codes and values (a finding's details, a model failure's cause) said in the reader's language;
* :mod:`~webapp.views.ledger` — the Outcome page's argument map;
  :mod:`~webapp.views.research` — the Archive page's judges and matchups.

Where a view differs by protocol it asks the protocol's spec
(:func:`debate_core.protocols.registry.get`), never its name.  Nothing here imports
streamlit, and plotly / litellm are imported only inside the functions that need them, so
the home page stays light.  The names below are re-exported so pages write ``views.x``.
"""

from debate_core.protocols.base import ASK_MASTERS, ASK_PACK, ASK_STANCES, ASK_WORKSPACE
from debate_core.render.master import status_zh

from webapp.views.archive import (SIDE_NAMES, SIDES, SQL_EXAMPLE, SQL_HELP, STATUSES, WINNER_NAMES,
                                  WINNERS, ImportPathError, ImportReport, UploadError, archive_marker, count_debates, filter_options, find_debates, import_local,
                                  import_uploads, ratings_figure, ratings_tables, run_sql, stage_uploads)
from webapp.views.common import (COLUMN_LABELS, CitationView, SpeechView, column_label, debates_frame, explain, is_chinese, load_pack,
                                 pack_summary, plot_frame, plot_text, recent_debates, safe_code, safe_format,
                                 safe_inline, safe_markdown, speaker_sources, speech_view, speech_views,
                                 status_text)
from webapp.views.chrome import (DISCLAIMER, NO_WINNER_NOTE, OBSERVATION_HEADING, OBSERVATION_KEYS, app_stop_reason, app_warning, badge,
                                 finding_said, finding_state, mark_label, note_text, protocol_text, role_text,
                                 rule_text, side_text, stance_text, stop_reason_text, warning_text, who_text,
                                 name_text, own_stances)
from webapp.views.archive_charts import CHART_GROUPS, archive_figures, chart_spec
from webapp.views.codes import Said, cause_text, details_text
from webapp.views.coverage import CoverageView, coverage_heatmap, coverage_view
from webapp.views.ledger import LedgerView, argument_map, ledger_view
from webapp.views.live import LiveView, live_view, next_turn, rounds_done
from webapp.views.outcome import (Download, OutcomeView, checks_table, downloads, export_bytes, judge_panel,
                                  outcome_view, scores_figure, twin_debate, winner_text)
from webapp.views.research import (BIAS_COLUMNS, DROPPED_COLUMNS, RATING_COLUMNS, agreement_caption,
                                   agreement_heatmap, dropped_table, margin_distribution_figure, margin_heatmap,
                                   research_tables, side_bias_figure)
from webapp.views.setup import (AMMO_HELP, COVERAGE_HELP, OFFLINE_LABEL, PACK_HELP, AmmoView, ModelField, RoleFields, ammo_view, build_config,
                                debate_language_label, debate_languages, engine_summary, master_label, master_options, model_fields, model_problem,
                                needs_model_message, pair_reason, protocol_specs, rounds_help, rounds_range,
                                split_lines, stance_seats, suggest_pair, topic_lang,
                                language_refused)

__all__ = [
    "ASK_MASTERS", "ASK_PACK", "ASK_STANCES", "ASK_WORKSPACE",
    "AmmoView", "CHART_GROUPS", "COLUMN_LABELS", "column_label", "CitationView", "CoverageView", "Download", "LiveView", "ModelField",
    "OFFLINE_LABEL", "AMMO_HELP", "COVERAGE_HELP", "PACK_HELP", "OutcomeView", "RoleFields", "SQL_EXAMPLE", "SQL_HELP", "STATUSES", "SpeechView",
    "UploadError", "ammo_view", "archive_figures", "build_config", "chart_spec", "checks_table", "coverage_heatmap",
    "coverage_view", "debate_language_label", "debate_languages", "debates_frame", "downloads", "engine_summary",
    "explain", "export_bytes", "filter_options",
    "find_debates", "import_uploads", "is_chinese", "live_view", "load_pack", "master_label", "master_options",
    "model_fields", "model_problem", "needs_model_message", "next_turn", "outcome_view", "pack_summary",
    "pair_reason", "plot_frame", "plot_text", "protocol_specs", "ratings_figure", "ratings_tables", "recent_debates",
    "rounds_done", "rounds_help", "rounds_range", "run_sql", "safe_code", "safe_format", "safe_inline", "safe_markdown", "scores_figure", "speaker_sources", "speech_view",
    "speech_views", "split_lines", "stage_uploads", "stance_seats", "status_text", "status_zh", "suggest_pair",
    "topic_lang", "language_refused",
    "winner_text",
    # the app's words about a debate, in the reader's language (webapp.views.chrome)
    "DISCLAIMER", "NO_WINNER_NOTE", "OBSERVATION_HEADING", "OBSERVATION_KEYS", "badge", "finding_said",
    "finding_state", "mark_label", "note_text", "protocol_text", "role_text", "rule_text", "side_text",
    "stance_text", "stop_reason_text", "warning_text", "who_text", "twin_debate", "name_text", "own_stances",
    # what the library states as codes (findings' details, failure causes), in the reader's language
    "Said", "cause_text", "details_text", "app_warning", "app_stop_reason",
    # the argument map (Outcome), the judge panel, filters and imports, judges and matchups (Archive)
    "BIAS_COLUMNS", "DROPPED_COLUMNS", "RATING_COLUMNS", "SIDE_NAMES", "SIDES", "WINNER_NAMES", "WINNERS",
    "ImportPathError", "ImportReport", "LedgerView", "agreement_caption", "agreement_heatmap", "archive_marker",
    "argument_map", "count_debates", "dropped_table", "import_local", "judge_panel", "ledger_view",
    "margin_distribution_figure", "margin_heatmap", "research_tables", "side_bias_figure",
]
