"""Run at start-up by a Python whose PYTHONPATH holds this folder (tests only): see tests/slow_round.py."""

from tests.slow_round import install_from_env

install_from_env()
