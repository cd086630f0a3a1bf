"""What the archive's mixins use of each other (:class:`~debate_core.archive.Archive` joins them).

Only declarations for the type checker: at run time :class:`ArchiveParts` is an empty base, and
every method named here is the one :class:`~debate_core.archive.connection.Connection` or
:class:`~debate_core.archive.reads.Reads` defines.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    import pandas as pd


class ArchiveParts:
    """The attributes and methods one mixin of the archive reaches in another."""

    path: Path
    lock_timeout: float

    if TYPE_CHECKING:

        def _session(
            self, write: bool = False, checkpoint: bool = False
        ) -> AbstractContextManager[duckdb.DuckDBPyConnection]: ...

        def query(self, sql: str, params: list | None = None) -> pd.DataFrame: ...

        def _writer_cols(self) -> dict[str, Any]: ...

        def mark_interrupted(self) -> list[str]: ...

        def _catch_up_search_index(self, limit: int | None = None) -> None: ...
