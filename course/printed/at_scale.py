"""What the at-scale sections of notebooks 05, 07 and 08 print, beside the course's own models, and the
claims table's "at scale" column (:mod:`course.analysis.at_scale`)."""

PRINTED: dict[str, dict[str, str]] = {
    "at scale not fetched": {
        "en": "not measured: run `{command}` ({size})",
        "zh": "未测量：请先运行 `{command}`（{size}）"},
    "at scale": {"en": "at scale", "zh": "大规模模型"},
    "at scale no model": {"en": "-", "zh": "-"},
}
