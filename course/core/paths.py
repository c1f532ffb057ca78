"""Where the course keeps things: the cache for corpora and downloads, the build folder, and the
package's own data files (the probe sentences). It says where
things are; :mod:`course.core.io` writes files there, whole or not at all.

Used from a checkout (the Makefile's editable install), the cache and the build folder live inside
it (``data/cache/`` and ``build/``). Installed from a wheel, with no checkout around the package,
the cache goes to the user's cache folder (``$XDG_CACHE_HOME/word-vectors-course``, by default
``~/.cache/word-vectors-course``) and the build folder to ``build/`` in the working folder. The
environment variables ``COURSE_CACHE`` and ``COURSE_BUILD`` move them anywhere. The data files
travel inside the package (``course/data/``), so a wheel has them too.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import ProbeFileError

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # course/, above core/
CACHE_NAME = "word-vectors-course"  # the cache folder's name in the user's cache folder


def checkout() -> Path | None:
    """The checkout that holds this package (the folder above it has a ``pyproject.toml``), or None
    where the package is installed on its own (from a wheel, into site-packages)."""
    candidate = PACKAGE_DIR.parent
    return candidate if (candidate / "pyproject.toml").is_file() else None


def project_root() -> Path:
    """The checkout that holds this package, else the working folder."""
    return checkout() or Path.cwd()


def cache_dir() -> Path:
    """Cache for downloads and preprocessed corpora: ``COURSE_CACHE`` if set, else ``data/cache`` in
    the checkout, else (an installed package) ``$XDG_CACHE_HOME/word-vectors-course`` or
    ``~/.cache/word-vectors-course``."""
    if os.environ.get("COURSE_CACHE"):
        return Path(os.environ["COURSE_CACHE"])
    root = checkout()
    if root is not None:
        return root / "data" / "cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / CACHE_NAME


def build_dir() -> Path:
    """Where the course writes what it builds: ``COURSE_BUILD`` if set, else ``build`` in the
    checkout, or in the working folder where the package is installed without one."""
    return Path(os.environ.get("COURSE_BUILD") or project_root() / "build")


def models_dir(profile: str | None = None) -> Path:
    """Where trained models and vectors are saved: ``build/models`` for the full profile and
    ``build/models/smoke`` for the smoke one, so that a quick test run never replaces real models."""
    from .settings import resolve_profile

    base = build_dir() / "models"
    return base / "smoke" if resolve_profile(profile) == "smoke" else base


def data_dir() -> Path:
    """The package's own small data files (the probe sentences): ``course/data``, shipped inside the
    package, so the same in a checkout and in an installed wheel. Read it; write elsewhere."""
    return PACKAGE_DIR / "data"


def probe_file(name: str) -> Path:
    """A probe file shipped with the package, by its name: ``probe_file("en_polysemy.tsv")`` is
    ``course/data/probes/en_polysemy.tsv`` wherever the package lives.

    Raises:
        ProbeFileError: no shipped probe file has that name (the message lists those there are).
    """
    path = data_dir() / "probes" / name
    if Path(name).name != name or not path.is_file():
        shipped = ", ".join(p.name for p in probe_files()) or "none"
        raise ProbeFileError(f"{name}: no such probe file ships with the course (there are: {shipped})")
    return path


def probe_files() -> list[Path]:
    """The probe files shipped with the package (``course/data/probes/*.tsv``), by name."""
    return sorted((data_dir() / "probes").glob("*.tsv"))
