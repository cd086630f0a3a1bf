"""Protocols other than the master debate plug in here."""

from __future__ import annotations


def start(config, recorder, *, probe: bool = True):
    from ..api import InputError

    raise InputError(f"protocol {config.protocol!r} is not available in this build")
