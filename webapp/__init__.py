"""The Streamlit workbench's own code (the app side of the library).

* :mod:`webapp.views` — view models, one module per page: everything a page shows,
  computed from the library (no streamlit there);
* :mod:`webapp.ui` — streamlit building blocks the pages share (the archive and the job
  manager of this process, the error guard, the speech cards, the page paths).

app.py and pages/ import only these two; the library (debate_core) never imports the app.
"""
