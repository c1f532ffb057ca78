"""The run profile: ``full`` (for people and benchmarks) or ``smoke`` (seconds, for tests and CI).

A notebook's first code cell is a papermill parameter cell, ``PROFILE = None``; papermill
overrides it, and otherwise :func:`resolve_profile` falls back to the environment variable
``COURSE_PROFILE`` and then to ``full``.
"""

from __future__ import annotations

import os
from typing import TypeVar

from .errors import SettingError

PROFILES = ("full", "smoke")
T = TypeVar("T")


def resolve_profile(profile: str | None = None) -> str:
    """``profile`` if given, else ``$COURSE_PROFILE``, else ``"full"``; checked against :data:`PROFILES`."""
    value = (profile or os.environ.get("COURSE_PROFILE") or "full").strip().lower()
    if value not in PROFILES:
        raise SettingError(f"unknown profile {value!r}: use one of {', '.join(PROFILES)} (COURSE_PROFILE or PROFILE=)")
    return value


def by_profile(profile: str, *, full: T, smoke: T) -> T:
    """Pick the value for ``profile``: ``by_profile(p, full=20, smoke=1)``."""
    return smoke if resolve_profile(profile) == "smoke" else full
