"""``make run``: the app's server (``streamlit run app.py`` with the same options), with the modules every
first page needs imported before the server listens.

On a 2-core machine pandas alone takes over a second to import and the workbench's own modules most of
another; ``streamlit run`` imports them inside the first visitor's page, which then took 5 s to show the home
page (bench/app_bench.py).  Here they are imported first, while the server starts, so the first page pays only
for its own work.  ``python -m webapp.serve [streamlit run options]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app.py"


def preload() -> None:
    """The imports the first render of any page needs (pandas through the archive, the views, the pack reader,
    the protocols' specs), plotly for the pages with plotly charts (Outcome's scores, the Archive's ratings,
    Coverage), and altair for the Archive's Charts tab."""
    import logging

    import pandas  # noqa: F401

    # st.cache_data checks its options when a page module defines a cached function; before the server runs it
    # says, once per function, that it has no runtime yet: true and harmless here (the calls use the runtime's)
    quiet = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        import webapp.ui  # noqa: F401
        import webapp.views  # noqa: F401
    finally:
        quiet.setLevel(level)
    from debate_core.protocols import registry

    registry.specs()  # each protocol's module (Setup's choices, the Archive's filters)
    # plotly.express, and the figure classes a first chart loads (plotly imports its graph objects and their
    # validators lazily: some 200 modules, most of a second the first time; the Archive's first chart waited
    # for them, issue 25)
    import plotly.express as px

    px.bar(x=[0], y=[0])
    # altair, for the Archive's charts (Vega-Lite: webapp.views.archive_charts); its first chart builds and
    # validates a specification, which loads the schema once
    import altair as alt
    import pandas as pd

    alt.Chart(pd.DataFrame({"x": [0]})).mark_bar().encode(x="x:Q").to_dict()


def main(argv: list[str] | None = None) -> None:
    from streamlit.web import cli

    preload()
    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    cli.main()


if __name__ == "__main__":
    main()
