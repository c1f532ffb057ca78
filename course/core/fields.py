"""A setting's default and its one-line description in one place, the settings dataclass, and the
command-line options made from them.

A config dataclass declares each setting a user may change with :func:`setting`::

    dim: int = setting(100, "size of each word vector")

:func:`add_options` turns those fields into ``--dim`` options (their type, default, choices and
help from the field), and :func:`from_options` builds the config back from the parsed arguments,
so that ``python -m course train glove --help`` shows what the dataclass says and a default lives
nowhere else. Fields declared without :func:`setting` are not options.

Every numeric setting declares its :class:`Range`, and :func:`check_settings` (each config's
``__post_init__``) and the option's argparse type (:func:`bounded`) both refuse a value outside it
with the same one line, so a number no trainer can use stops before any work, whether it came
from the command line or from Python.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import numbers
import os
from collections.abc import Sequence

HELP = "help"
CHOICES = "choices"
RANGE = "range"
ROLE = "path_role"  # an argparse action's attribute: what a string argument is (see course.cli.arguments)
INPUT, OUTPUT, TEXT = "input", "output", "text"  # a path read, a path written, not a path
_TYPES = {"int": int, "float": float, "str": str, "bool": bool}


@dataclasses.dataclass(frozen=True)
class Range:
    """The values a number may take: from ``low`` to ``high``, each end included unless
    ``low_open`` (``high_open``) says it is not; a float must also be finite (no nan, no inf)."""

    low: float
    high: float
    low_open: bool = False
    high_open: bool = False
    note: str = ""  # why the high end is what it is, where that is not plain

    def text(self) -> str:
        """``"from 0 to 4,294,967,295"``, ``"above 0 and at most 10"``, ``"at least 0 and below 1"``."""
        def number(value) -> str:
            return f"{value:,}" if float(value).is_integer() and abs(value) >= 1_000 else f"{value:g}"

        low = f"above {number(self.low)}" if self.low_open else f"at least {number(self.low)}"
        high = f"below {number(self.high)}" if self.high_open else f"at most {number(self.high)}"
        text = f"from {number(self.low)} to {number(self.high)}" if not (self.low_open or self.high_open) else \
            f"{low} and {high}"
        return f"{text} ({self.note})" if self.note else text

    def problem(self, value, whole: bool = False) -> str | None:
        """What is wrong with ``value`` (``whole``: it must be an integer), or None."""
        integer = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if not integer and (isinstance(value, bool) or not isinstance(value, numbers.Real) or whole):
            return f"must be {'a whole number' if whole else 'a number'} {self.text()}, got {value!r}"
        if not integer and not math.isfinite(value):
            return f"must be a finite number {self.text()}, got {value}"
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        if above and below:
            return None
        return f"must be {self.text()}, got {value:,}" if integer else f"must be {self.text()}, got {value:g}"


def _cores() -> int:
    """The CPU cores this process may run on (at least 2, the threads the trainers default to)."""
    try:
        return max(2, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(2, os.cpu_count() or 1)


# The ranges the settings share; a cap that is not forced by the maths is stated, so that a number
# that would only exhaust memory or time (a window of a billion words) is refused at once.
SEED = Range(0, 2**32 - 1)  # what numpy's and torch's generators both take
RATE = Range(0, 10, low_open=True)  # learning rates: positive, finite, and far below any that trains
SHARE = Range(0, 1, high_open=True)  # dropout: a probability below 1
FRACTION = Range(0, 1, low_open=True, high_open=True)  # a share strictly between none and all
COUNT = Range(1, 2**31 - 1)  # word counts and vocabulary sizes
SIZE = Range(1, 10_000)  # layer sizes of the networks
VECTOR_SIZE = Range(1, 10**12)  # word vectors: what fits in memory is checked before training
EPOCHS = Range(1, 10_000)
BATCH = Range(1, 10_000_000)  # examples, entries or tokens per step
STEPS = Range(1, 10**9)  # steps between checkpoints or measurements
EVALUATIONS = Range(1, 1_000)  # dev measurements over a run
PATIENCE = Range(0, 10_000)  # measurements without a better score (0: never stop early)
WINDOW = Range(1, 100_000)  # words on each side of a centre word (what fits is checked against the corpus)
THREADS = Range(1, _cores(), note="the cores this machine gives the process")


def setting(default, help: str, choices: Sequence | None = None, range: Range | None = None):
    """A dataclass field with a default and a one-line description (``help``), its allowed values
    where they are few (``choices``), and for a number the :class:`Range` it must lie in."""
    metadata = {HELP: help}
    if choices is not None:
        metadata[CHOICES] = tuple(choices)
    if range is not None:
        metadata[RANGE] = range
    return dataclasses.field(default=default, metadata=metadata)


def bounded(kind: type, range: Range, name: str | None = None):
    """An argparse type that reads ``kind`` (int or float) and refuses a value outside ``range``
    with the message :meth:`Range.problem` gives (argparse then prints it in one line, exit 2).
    The range is kept as its attribute ``range``, so a test can find every option's bounds."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be {'a whole number' if kind is int else 'a number'} {range.text()}, got {text!r}") from None
        problem = range.problem(value, whole=kind is int)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value

    parse.__name__ = name or kind.__name__
    parse.range = range
    parse.kind = kind
    return parse


def check_settings(config) -> None:
    """Refuse a config whose numeric settings lie outside their :class:`Range` (None passes where
    the field allows it), in one line naming the field.

    Raises:
        SettingError: the first field out of range.
    """
    from .errors import SettingError

    for f in described(type(config)):
        value = getattr(config, f.name)
        if RANGE not in f.metadata or value is None:
            continue
        problem = f.metadata[RANGE].problem(value, whole=_value_type(f.type) is int)
        if problem:
            raise SettingError(f"{f.name} {problem}")


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
        if kind in (int, float) and RANGE not in f.metadata:
            raise TypeError(f"{config_class.__name__}.{f.name}: a numeric setting needs its range")
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
            value_type = bounded(kind, f.metadata[RANGE]) if RANGE in f.metadata else kind
            action = parser.add_argument(option_name(f.name), dest=f.name, type=value_type, default=default,
                                         choices=f.metadata.get(CHOICES), metavar=None if CHOICES in f.metadata
                                         else f.name.upper(), help=text)
            if kind is str:
                setattr(action, ROLE, TEXT)  # a setting is never a path


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
