"""Where the course keeps things: the cache for corpora and downloads, and the build folder.

Both live inside the project checkout (``data/cache/`` and ``build/``) when the package is used
from one, and can be moved with the environment variables ``COURSE_CACHE`` and ``COURSE_BUILD``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def project_root() -> Path:
    """The checkout that holds this package (it has a ``pyproject.toml``), else the working folder."""
    candidate = PACKAGE_DIR.parent
    if (candidate / "pyproject.toml").is_file():
        return candidate
    return Path.cwd()


def cache_dir() -> Path:
    """Cache for downloads and preprocessed corpora (``data/cache`` unless ``COURSE_CACHE`` is set)."""
    return Path(os.environ.get("COURSE_CACHE") or project_root() / "data" / "cache")


def build_dir() -> Path:
    """Where the course writes what it builds (``build`` unless ``COURSE_BUILD`` is set)."""
    return Path(os.environ.get("COURSE_BUILD") or project_root() / "build")


def models_dir(profile: str | None = None) -> Path:
    """Where trained models and vectors are saved: ``build/models`` for the full profile and
    ``build/models/smoke`` for the smoke one, so that a quick test run never replaces real models."""
    from .settings import resolve_profile

    base = build_dir() / "models"
    return base / "smoke" if resolve_profile(profile) == "smoke" else base


def data_dir() -> Path:
    """The project's own small data files (probe sentences): ``data``."""
    return project_root() / "data"


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it to ``path``, on error delete it.

    Whatever is written through it appears at ``path`` whole or not at all.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=suffix + ".part")
    os.close(handle)
    temporary = Path(temporary)
    try:
        yield temporary
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
