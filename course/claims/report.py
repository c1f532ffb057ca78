"""The claims table written out: plain text (notebooks and ``python -m course claims``), Markdown (the
README), HTML (``build/index.html``) and plain dictionaries (``--json``), each in an edition's words.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import asdict

from ..core.edition import CATALOGUE, text
from .row import FAILS, HOLDS, NOT_MEASURED, Claim, Phrase, said


def _cells(row: Claim) -> tuple[str, str]:
    margin = f"{row.margin:+.3f}" if row.margin is not None else "-"
    spread = f"{row.spread:.3f}" if row.spread is not None else "-"
    return margin, spread


def claim_text(name: str, edition: str | None = None) -> str:
    """A claim's sentence in ``edition`` (default the current one, :mod:`course.core.edition`); a suffix in
    parentheses (the corpus) is kept."""
    base, _, rest = name.partition(" (")
    if base not in CATALOGUE:
        return name
    return text(base, edition) + (f" ({rest}" if rest else "")


def verdict_text(verdict: str, edition: str | None = None) -> str:
    """A verdict in ``edition``: ``holds``, ``does not hold here`` or ``not measured: <reason>`` (a reason or
    figures the row holds as a :class:`~course.claims.row.Phrase` in the edition's words, others as measured)."""
    if isinstance(verdict, Phrase):
        return verdict.said(edition)
    if verdict.startswith(NOT_MEASURED):
        reason = verdict[len(NOT_MEASURED):].lstrip(": ")
        return text(NOT_MEASURED, edition) + (f": {reason}" if reason else "")
    for word in (HOLDS, FAILS):  # a verdict with its figures after it: "holds (ELMo small: ...)"
        if verdict == word or verdict.startswith(f"{word} ("):
            return text(word, edition) + verdict[len(word):]
    return verdict


def format_claims(rows: Sequence[Claim], edition: str | None = None) -> str:
    """The claims as plain text: a block per claim with its measurement, controls, margin,
    spread and verdict; the claims, headings and verdicts in ``edition``'s words."""
    lines = []
    for number, row in enumerate(rows, start=1):
        margin, spread = _cells(row)
        lines += [f"{number}. {claim_text(row.claim, edition)}  [{text('notebook', edition)} {row.notebook}]",
                  f"   {text('measurement', edition)}   {said(row.measurement, edition)}",
                  f"   {text('controls', edition)}    {said(row.controls, edition)}",
                  f"   {text('margin', edition)}     {margin}   {text('spread', edition)} {spread}",
                  f"   {text('verdict', edition)}    {verdict_text(row.verdict, edition)}",
                  f"   {text('at scale', edition)}   {verdict_text(row.at_scale, edition)}", ""]
    return "\n".join(lines).rstrip()


HEADER = ("claim", "notebook", "measurement", "controls", "margin", "spread", "verdict", "at scale")


def claims_markdown(rows: Sequence[Claim], edition: str | None = None) -> str:
    """The claims as a Markdown table (for the README), in ``edition``'s words."""
    def cell(value: str) -> str:
        return value.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(text(name, edition) for name in HEADER) + " |", "|---|---|---|---|---:|---:|---|---|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(value) for value in (claim_text(row.claim, edition), row.notebook,
                                                                   said(row.measurement, edition),
                                                                   said(row.controls, edition), *_cells(row),
                                                                   verdict_text(row.verdict, edition),
                                                                   verdict_text(row.at_scale, edition))) + " |")
    return "\n".join(lines)


def claims_html(rows: Sequence[Claim], edition: str | None = None) -> str:
    """The claims as an HTML table (for ``build/index.html``), in ``edition``'s words; each row's class
    is its verdict's first word (``holds``, ``does``, ``not``)."""
    head = "".join(f"<th>{text(name, edition)}</th>" for name in HEADER)
    body = []
    for row in rows:
        margin, spread = _cells(row)
        cells = [html.escape(value) for value in (claim_text(row.claim, edition), row.notebook,
                                                  said(row.measurement, edition), said(row.controls, edition))]
        body.append(f"<tr class='{row.verdict.split()[0].rstrip(':')}'>" + "".join(f"<td>{c}</td>" for c in cells)
                    + f"<td class='value'>{margin}</td><td class='value'>{spread}</td>"
                    f"<td>{html.escape(verdict_text(row.verdict, edition))}</td>"
                    f"<td>{html.escape(verdict_text(row.at_scale, edition))}</td></tr>")
    return f"<table class='claims'><tr>{head}</tr>{''.join(body)}</table>"


def claims_json(rows: Sequence[Claim]) -> list[dict]:
    """The rows as plain dictionaries (for ``--json`` and the build's ``summary.json``)."""
    return [asdict(row) for row in rows]
