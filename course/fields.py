"""A setting's default and its one-line description in one place, the settings dataclass, and the
command-line options made from them.

A config dataclass declares each setting a user may change with :func:`setting`::

    dim: int = setting(100, "size of each word vector")

:func:`add_options` turns those fields into ``--dim`` options (their type, default, choices and
help from the field), and :func:`from_options` builds the config back from the parsed arguments,
so that ``python -m course train glove --help`` shows what the dataclass says and a default lives
nowhere else. Fields declared without :func:`setting` are not options.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence

HELP = "help"
CHOICES = "choices"
_TYPES = {"int": int, "float": float, "str": str, "bool": bool}


def setting(default, help: str, choices: Sequence | None = None):
    """A dataclass field with a default and a one-line description (``help``), and its allowed
    values where they are few (``choices``)."""
    metadata = {HELP: help} if choices is None else {HELP: help, CHOICES: tuple(choices)}
    return dataclasses.field(default=default, metadata=metadata)


def described(config_class) -> list[dataclasses.Field]:
    """The fields of ``config_class`` declared with :func:`setting`, in order."""
    return [f for f in dataclasses.fields(config_class) if HELP in f.metadata]


def _value_type(annotation: str):
    """``int``, ``float``, ``str`` or ``bool`` for an annotation such as ``"int | None"``."""
    names = [part.strip() for part in str(annotation).split("|") if part.strip() != "None"]
    if len(names) != 1 or names[0] not in _TYPES:
        raise TypeError(f"a setting must be int, float, str or bool (or one of them | None), not {annotation}")
    return _TYPES[names[0]]


def option_name(field_name: str) -> str:
    """``"min_count"`` -> ``"--min-count"``."""
    return "--" + field_name.replace("_", "-")


def add_options(parser: argparse.ArgumentParser, config_class, skip: Sequence[str] = (), defaults=None,
                default_text: str | None = None) -> None:
    """Add an option for each described field of ``config_class`` not in ``skip``.

    Args:
        defaults: a config whose values are shown as the defaults (default: ``config_class()``).
        default_text: leave every option at None and say this in its help before the value of
            ``defaults`` (``"the preset's"``: "default: the preset's; 8 in cpu"): :func:`from_options`
            then keeps the base config's value.
    """
    shown = defaults if defaults is not None else config_class()
    for f in described(config_class):
        if f.name in skip:
            continue
        kind = _value_type(f.type)
        value = getattr(shown, f.name)
        default = None if default_text else value
        note = "none" if value is None else f"{value:,}" if type(value) is int else str(value)
        if default_text:
            note = f"{default_text}; {note}" + (f" in {shown.preset}" if getattr(shown, "preset", None) else "")
        text = f"{f.metadata[HELP]} (default: {note})".replace("%", "%%")  # argparse formats help with %
        if kind is bool:
            parser.add_argument(option_name(f.name), dest=f.name, action=argparse.BooleanOptionalAction,
                                default=default, help=text)
        else:
            parser.add_argument(option_name(f.name), dest=f.name, type=kind, default=default,
                                choices=f.metadata.get(CHOICES), metavar=None if CHOICES in f.metadata else
                                f.name.upper(), help=text)


def choose_preset(presets: dict, name: str, overrides: dict, what: str):
    """``presets[name]`` with the fields in ``overrides`` replaced; ``what`` names the model in the
    one-line error for an unknown preset or field (``"ELMo"``)."""
    from .errors import SettingError

    if name not in presets:
        raise SettingError(f"unknown {what} preset {name!r}: use one of {', '.join(presets)}")
    base = presets[name]
    unknown = set(overrides) - {f.name for f in dataclasses.fields(base)}
    if unknown:
        raise SettingError(f"unknown {what} setting(s) {', '.join(sorted(unknown))}: use the fields of "
                           f"{type(base).__name__}")
    return dataclasses.replace(base, **overrides)


def from_options(config_class, args: argparse.Namespace, base=None, **fixed):
    """The config of the parsed ``args``: ``base`` (default ``config_class()``) with every described
    field the user gave (not None) replaced, then ``fixed``."""
    base = base if base is not None else config_class()
    given = {f.name: getattr(args, f.name) for f in described(config_class)
             if getattr(args, f.name, None) is not None}
    return dataclasses.replace(base, **{**given, **fixed})
