"""A process for the text-index concurrency test: ``writer NAME`` saves 60 debates in bulk
writes of 3 (each may index what waits), ``reader STOPFILE`` searches until STOPFILE exists.

Small index constants make the writers build and merge many runs.  Run as
``python -m tests.text_index_worker ARCHIVE writer|reader ARG`` from the repo root.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import debate_core.archive.text_index as ti
from debate_core.archive import open_archive
from debate_core.models import Debate, DebateConfig, Speech

ti.RUN_MIN, ti.GROUP, ti.CHUNK, ti.FANOUT = 8, 2, 16, 2
WORD = "共同词"


def main(path: str, role: str, arg: str) -> int:
    arc = open_archive(path)
    if role == "writer":
        for b in range(20):
            arc.save_many([Debate(id=f"{arg}-{b}-{i}", protocol="topic", topic="t", config=DebateConfig(topic="t"),
                                  rounds=[Speech(round=r, speaker="甲", role="立论", text=f"{arg}第{b}批第{i}场第{r}轮 {WORD}")
                                          for r in (1, 2, 3)]) for i in range(3)])
        return 0
    searches, last = 0, 0
    while not Path(arg).exists():
        found = arc.search_speeches(WORD)
        if found is None or len(found) < last:  # a failed search, or debates that went missing
            print(f"bad search: {found!r} after {last}", flush=True)
            return 1
        last, searches = len(found), searches + 1
        time.sleep(0.01)
    print(f"searches {searches}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
