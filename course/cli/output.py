"""What the commands write, and the outputs they claim before any work: JSON to a file or standard output,
aligned tables, and refusals of a file that cannot be written, a folder given for a file, or ``--resume``
without ``--checkpoint``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..core.io import atomic_path, claim_output


def write_json(payload, destination: str) -> None:
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    if destination == "-":
        print(text)
        return
    with atomic_path(destination) as temporary:
        temporary.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {destination}", file=sys.stderr)


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("%"))
        return True
    except ValueError:
        return False


def table(rows: list[tuple[str, ...]]) -> str:
    """Rows of strings as aligned columns (numbers to the right), the first row as the header."""
    columns = range(len(rows[0]))
    widths = [max(len(row[i]) for row in rows) for i in columns]
    numeric = [all(_is_number(row[i]) or row[i] in ("yes", "no") for row in rows[1:]) for i in columns]
    lines = []
    for number, row in enumerate(rows):
        cells = [cell.rjust(width) if right else cell.ljust(width)
                 for cell, width, right in zip(row, widths, numeric, strict=True)]
        lines.append("  ".join(cells).rstrip())
        if number == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)


def format_value(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def check_json_out(destination: str | None) -> None:
    """Refuse, before any work, a ``--json`` file that cannot be written (``-`` is standard output)."""
    if destination and destination != "-":
        claim_output(destination, "JSON")


def check_checkpoint(args) -> None:
    """Refuse, before any work, ``--resume`` without ``--checkpoint`` and a checkpoint that cannot be written."""
    from ..core.errors import SettingError

    if args.resume and not args.checkpoint:
        raise SettingError("--resume needs --checkpoint FILE: the checkpoint to continue from")
    if args.checkpoint:
        claim_output(args.checkpoint, "checkpoint")


def vectors_out(path: str) -> Path:
    """``--out`` of a vectors trainer as a path, refused before training if it names a folder."""
    from ..core.errors import SettingError

    out = Path(path)
    if out.is_dir():
        raise SettingError(f"--out {out} is a folder: give a file name for the vectors")
    return claim_output(out, "vectors")


def model_out(args) -> Path:
    """``--out`` of a network trainer, refused before any work if it cannot be written."""
    from ..core import distributed
    from ..core.errors import SettingError

    out = Path(args.out)
    if out.is_dir():
        raise SettingError(f"--out {out} is a folder: give a file name for the model")
    if distributed.from_env().writer:  # under torchrun only rank 0 writes
        claim_output(out, "model")
        check_checkpoint(args)
    elif args.resume and not args.checkpoint:
        check_checkpoint(args)
    return out
