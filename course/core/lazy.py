"""Names a package imports on first use, for packages whose modules load torch (seconds) while their
settings do not: the command line reads the settings to build its options without loading torch."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_attributes(package: str, modules: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package``: ``modules`` maps each name to the submodule
    (``"model"``) that defines it; the submodule is imported when the name is first asked for."""

    def __getattr__(name: str):
        if name in modules:
            return getattr(importlib.import_module(f".{modules[name]}", package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
