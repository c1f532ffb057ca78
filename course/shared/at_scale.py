"""The models published at scale, beside the course's own: what the notebooks' at-scale sections and the
claims table's "at scale" column load, from the cache :mod:`course.pretrained` fills.

- :func:`elmo_at_scale`: the largest fetched ELMo (``original-5.5b``, then ``original``, ``medium``,
  ``small``), or the one ``COURSE_AT_SCALE_ELMO`` names (a catalogue name, or the path of a biLM file);
- :func:`vectors_at_scale`: the fetched static vectors of a language (GloVe 6B and word2vec GoogleNews
  for English, fastText's for Chinese).

Where none is fetched, each prints one line saying which command fetches it and how large it is
(:func:`not_fetched`), and returns nothing, so a notebook runs on as before.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..core.edition import text
from ..pretrained import CATALOGUE, cached

ELMO_ORDER = ("original-5.5b", "original", "medium", "small")  # the largest fetched one is used
STATIC = {"en": ("glove-6b-100", "glove-6b-300", "word2vec-google-news"), "zh": ("fasttext-zh",)}
VARIABLE = "COURSE_AT_SCALE_ELMO"


def not_fetched(name: str) -> str:
    """``not measured: run `python -m course pretrained get NAME` (its size)``, in the edition's words."""
    return text("at scale not fetched", command=f"python -m course pretrained get {name}", size=CATALOGUE[name].size)


def elmo_at_scale_path() -> tuple[str, Path] | None:
    """``(name, file)`` of the ELMo at scale, or None where none is fetched.

    Raises:
        SettingError: ``COURSE_AT_SCALE_ELMO`` names neither a catalogue ELMo nor a file.
    """
    from ..core.errors import SettingError

    named = os.environ.get(VARIABLE, "").strip()
    if named:
        if named in CATALOGUE and CATALOGUE[named].kind == "elmo":
            path = cached(named)
            return (named, path) if path is not None else None
        if Path(named).expanduser().is_file():
            return Path(named).stem, Path(named).expanduser()
        raise SettingError(f"{VARIABLE}={named} names neither an ELMo of the catalogue ({', '.join(ELMO_ORDER)}) nor "
                           "a file: fetch one with python -m course pretrained get NAME")
    for name in ELMO_ORDER:
        path = cached(name)
        if path is not None:
            return name, path
    return None


def elmo_at_scale(device: str = "auto", quiet: bool = False):
    """``(name, Elmo)`` of the ELMo at scale, or None (and, unless ``quiet``, one line on how to fetch
    the small one)."""
    from ..elmo import Elmo

    found = elmo_at_scale_path()
    if found is None:
        if not quiet:
            print(not_fetched(os.environ.get(VARIABLE, "").strip() or "small"), file=sys.stdout)
        return None
    name, path = found
    return name, Elmo.load(path, device=device)


def vectors_at_scale(language: str, quiet: bool = False) -> dict:
    """``{name: KeyedVectors}`` of the fetched static vectors of ``language`` (``"en"`` or ``"zh"``);
    for each not fetched, unless ``quiet``, one line on how to fetch it."""
    from ..analysis.vectors import load_vectors

    found = {}
    for name in STATIC[language]:
        path = cached(name)
        if path is None:
            if not quiet:
                print(not_fetched(name))
            continue
        found[name] = load_vectors(path)
    return found
