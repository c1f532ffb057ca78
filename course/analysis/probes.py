"""Sense probes: what ELMo's layers know about a word's sense.

Sense probes read a probe file (the course's are ``course/data/probes/*.tsv``, shipped inside the
package and found by name with :func:`course.core.paths.probe_file`; the format is below), embed every
sentence, and take the target word's vector from each layer. Two figures per layer:

- ``knn_accuracy``: leave-one-out 1-nearest-neighbour sense accuracy: each occurrence takes the
  sense of its most similar (cosine) other occurrence. When several are equally near, the
  figure counts the share of them with the right sense (what breaking the tie at random would
  score on average), so one vector for every occurrence scores exactly chance.
- ``separation``: the mean cosine similarity of two occurrences with the same sense minus that
  of two with different senses (0 when the vectors know nothing of the sense).

Always beside two controls, and a third when static word vectors are given: the static vector of
the word, the same biLM untrained, and the bag of context. The static control is the biLM's own
layer 0 (its char-CNN vector of the word): like any static vector (word2vec, GloVe) it is one
vector for every occurrence, so its figures are those of any static vector: chance accuracy and a
separation of 0. The untrained control is the biLM with the random weights it started from (same
seed): what the architecture alone gives, before training. The bag-of-context control is the mean
of the static vectors (skip-gram, say) of the *other* words of the sentence: what the words around
the target tell without any model of their order.

Probe file format: UTF-8, tab-separated, a header line ``word<TAB>sense<TAB>sentence``, then one
sentence per line; or, with a fourth column, ``word<TAB>sense<TAB>sentence<TAB>split``, where the
split is ``dev`` (for choosing anything: a layer, a setting) or ``test`` (for reporting). The split
is part of the file, so that the same file always gives the same parts (:func:`draw_splits` draws
one at random, per word and sense, with a seed). Sentences are whitespace-tokenised (Chinese
already segmented into words) and written as the training corpus is (``wiki-en`` is lower case,
without punctuation); the target word occurs exactly once as a token. Every word needs at least
two senses, and every sense at least two sentences, in the whole file and in a split that is read
on its own. Lines that start with ``#`` are comments.

The POS probe, a linear classifier per layer beside the most-frequent-tag baseline, is
:mod:`course.analysis.pos_probe`.
"""

from __future__ import annotations

import os
import zlib
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..core.errors import ProbeFileError, SettingError
from ..core.io import atomic_path
from ..core.paths import probe_file, probe_files

HEADER = ("word", "sense", "sentence")
SPLIT_HEADER = (*HEADER, "split")
SPLITS = ("dev", "test")
TIE = 1e-6  # cosines closer than this to the best count as equally near


@dataclass(frozen=True)
class ProbeSentence:
    """One line of a probe file: ``tokens[position] == word``, used in sense ``sense``; ``split`` is
    ``"dev"``, ``"test"``, or None in a file without a split column."""

    word: str
    sense: str
    tokens: tuple[str, ...]
    position: int
    line: int
    split: str | None = None


def read_probes(path: str | os.PathLike, split: str | None = None) -> list[ProbeSentence]:
    """Read and check a probe file, all of it or one split.

    Args:
        path: the probe file; a bare file name that is no file here, such as ``"en_polysemy.tsv"``,
            names one the course ships (:func:`course.core.paths.probe_file`).
        split: ``"dev"`` or ``"test"`` for the sentences of that split only (the file needs a split
            column), None for every sentence.

    Raises:
        ProbeFileError: a missing or non-UTF-8 file, a wrong header, a line without its three (or,
            with a split column, four) tab-separated fields, a sentence where the target word is
            missing or occurs twice, a split other than dev or test, a word with one sense only, a
            sense with one sentence only (in the file, or in the split asked for), or a split asked
            of a file without a split column. The message names the file and, where there is one,
            the line.
        SettingError: ``split`` is not None, ``"dev"`` or ``"test"``.
    """
    if split not in (None, *SPLITS):
        raise SettingError(f"the split must be dev or test (or none, for every sentence), got {split!r}")
    path = _probe_path(path)
    lines = _probe_lines(path)
    header = tuple(field.strip().lower() for field in lines[0].split("\t")) if lines else ()
    if header not in (HEADER, SPLIT_HEADER):
        raise ProbeFileError(f"{path}: line 1 must be the header 'word<TAB>sense<TAB>sentence', "
                             "or 'word<TAB>sense<TAB>sentence<TAB>split'")
    has_split = header == SPLIT_HEADER
    if split is not None and not has_split:
        raise ProbeFileError(f"{path}: has no split column, so it has no {split} part; add a fourth column "
                             "'split' (dev or test) to the header and every line, or read the whole file")
    probes = [_probe_line(path, number, line, has_split) for number, line in enumerate(lines[1:], start=2)
              if line.strip() and not line.lstrip().startswith("#")]
    if not probes:
        raise ProbeFileError(f"{path}: has a header but no sentences")
    _check_senses(path, probes)
    if split is None:
        return probes
    chosen = [probe for probe in probes if probe.split == split]
    for word, senses in _senses(probes).items():
        in_split = _senses(chosen).get(word, Counter())
        for sense in senses:
            if in_split[sense] < 2:
                raise ProbeFileError(f"{path}: the {split} split has {in_split[sense]} sentence(s) of the word "
                                     f"{word!r} in sense {sense!r}; mark at least two of its lines {split}")
    return chosen


def _probe_path(path: str | os.PathLike) -> Path:
    """``path``, or, where it is a bare file name and no such file is here, the shipped probe file of
    that name."""
    path = Path(path)
    if not path.exists() and len(path.parts) == 1 and path.name in {p.name for p in probe_files()}:
        return probe_file(path.name)
    return path


def _probe_lines(path: Path) -> list[str]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        shipped = ", ".join(p.name for p in probe_files())
        raise ProbeFileError(f"{path}: no such probe file (the course ships {shipped}: give one of those names, "
                             "or a path)") from None
    except IsADirectoryError:
        raise ProbeFileError(f"{path}: is a folder; give a probe file (word<TAB>sense<TAB>sentence)") from None
    except UnicodeDecodeError as exc:
        raise ProbeFileError(f"{path}: not UTF-8 (byte offset {exc.start}); save it as UTF-8") from None
    return text.splitlines()


def _probe_line(path: Path, number: int, line: str, has_split: bool) -> ProbeSentence:
    fields = [field.strip() for field in line.split("\t")]
    where = f"{path}, line {number}"
    need, names = ("four", "word, sense, sentence and split") if has_split else ("three", "word, sense and sentence")
    if len(fields) != (4 if has_split else 3) or not all(fields):
        raise ProbeFileError(f"{where}: need {need} tab-separated fields, {names}, got {len(fields)} "
                             "(are the tabs spaces?)")
    word, sense, sentence = fields[:3]
    split = fields[3] if has_split else None
    if has_split and split not in SPLITS:
        raise ProbeFileError(f"{where}: the word {word!r} in sense {sense!r} has the split {split!r}; "
                             "the split must be dev or test")
    tokens = tuple(sentence.split())
    count = tokens.count(word)
    if count == 0:
        raise ProbeFileError(f"{where}: the sentence does not contain the word {word!r} as a token of its own")
    if count > 1:
        raise ProbeFileError(f"{where}: the word {word!r} occurs {count} times; it must occur once, "
                             "so that the probe knows which occurrence to look at")
    return ProbeSentence(word, sense, tokens, tokens.index(word), number, split)


def _check_senses(path: Path, probes: list[ProbeSentence]) -> None:
    for word, senses in _senses(probes).items():
        if len(senses) < 2:
            raise ProbeFileError(f"{path}: the word {word!r} has one sense only ({next(iter(senses))!r}); "
                                 "a sense probe needs sentences of at least two senses")
        for sense, count in senses.items():
            if count < 2:
                raise ProbeFileError(f"{path}: the word {word!r} has one sentence only for sense {sense!r}; "
                                     "give at least two per sense")


def _senses(probes) -> dict[str, Counter]:
    senses: dict[str, Counter] = {}
    for probe in probes:
        senses.setdefault(probe.word, Counter())[probe.sense] += 1
    return senses


def probe_splits(path: str | os.PathLike) -> dict[str, dict[str, dict[str, int]]]:
    """How many sentences each word has per sense and split: ``{word: {sense: {"dev": n, "test": m}}}``
    (``{"all": n}`` for a file without a split column), words and senses in file order."""
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for probe in read_probes(path):
        per_split = counts.setdefault(probe.word, {}).setdefault(probe.sense, {})
        if probe.split is None:
            per_split["all"] = per_split.get("all", 0) + 1
        else:
            for name in SPLITS:
                per_split[name] = per_split.get(name, 0) + (probe.split == name)
    return counts


def draw_splits(probes: list[ProbeSentence], dev_per_sense: int, seed: int = 0) -> list[ProbeSentence]:
    """The probes with a split each: ``dev_per_sense`` sentences of every word and sense drawn at
    random for ``dev``, the rest ``test``.

    Each word and sense is drawn on its own, from ``seed`` and the word and sense, so that the same
    sentences give the same split, and adding a word to a file leaves the other words' splits as
    they were. Draw the split once, before any model is probed, and keep it in the file
    (:func:`write_probes`).

    Raises:
        SettingError: a sense with fewer than ``dev_per_sense + 2`` sentences, or ``dev_per_sense < 2``.
    """
    if dev_per_sense < 2:
        raise SettingError(f"dev_per_sense must be at least 2 (a sense needs two sentences), got {dev_per_sense}")
    groups: dict[tuple[str, str], list[int]] = {}
    for i, probe in enumerate(probes):
        groups.setdefault((probe.word, probe.sense), []).append(i)
    splits = ["test"] * len(probes)
    for (word, sense), rows in groups.items():
        if len(rows) < dev_per_sense + 2:
            raise SettingError(f"the word {word!r} has {len(rows)} sentences in sense {sense!r}: too few for "
                               f"{dev_per_sense} dev sentences and at least two test sentences")
        rng = np.random.default_rng([seed, zlib.crc32(f"{word}\t{sense}".encode())])
        for k in rng.choice(len(rows), dev_per_sense, replace=False):
            splits[rows[k]] = "dev"
    return [replace(probe, split=split) for probe, split in zip(probes, splits, strict=True)]


def write_probes(path: str | os.PathLike, probes: list[ProbeSentence], comments: tuple[str, ...] = ()) -> Path:
    """Write ``probes`` as a probe file (with the split column when they have splits), atomically;
    ``comments`` go after the header as ``#`` lines."""
    with_split = all(probe.split is not None for probe in probes)
    lines = ["\t".join(SPLIT_HEADER if with_split else HEADER), *(f"# {comment}" for comment in comments)]
    for probe in probes:
        fields = [probe.word, probe.sense, " ".join(probe.tokens)] + ([probe.split] if with_split else [])
        lines.append("\t".join(fields))
    target = Path(path)
    with atomic_path(target) as temporary:
        temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


# --------------------------------------------------------------------------------- the figures


def cosine_matrix(vectors: np.ndarray) -> np.ndarray:
    """``(n, D)`` -> ``(n, n)`` cosine similarities."""
    vectors = np.asarray(vectors, dtype=np.float64)
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return unit @ unit.T


def sense_probe(vectors: np.ndarray, senses) -> dict:
    """Leave-one-out 1-NN sense accuracy and within-minus-across-sense mean cosine.

    Args:
        vectors: ``(n, D)``, one vector per occurrence of the word.
        senses: ``n`` sense labels.

    Returns:
        ``{"knn_accuracy": float, "separation": float}``.
    """
    senses = np.asarray(senses)
    similarity = cosine_matrix(vectors)
    n = len(senses)
    same = senses[:, None] == senses[None, :]
    others = ~np.eye(n, dtype=bool)
    masked = np.where(others, similarity, -np.inf)
    nearest = masked >= masked.max(axis=1, keepdims=True) - TIE  # (n, n): the tied nearest of each
    knn = float(((nearest & same).sum(1) / nearest.sum(1)).mean())
    within = similarity[same & others].mean()
    across = similarity[~same].mean()
    return {"knn_accuracy": knn, "separation": float(within - across)}


def target_vectors(model, probes: list[ProbeSentence]) -> np.ndarray:
    """``(L + 1, n, 2 d)``: every layer's vector of the target word in each probe sentence."""
    embedded = model.embed([probe.tokens for probe in probes])
    return np.stack([layers[:, probe.position] for layers, probe in zip(embedded, probes, strict=True)], axis=1)


def bag_of_context_vectors(probes: list[ProbeSentence], keyed_vectors) -> np.ndarray:
    """``(n, d)``: for each probe sentence, the mean of the static vectors of its *other* words.

    The target word itself is left out (its static vector is the same in every sentence and would
    only add one common direction); words that ``keyed_vectors`` (a gensim ``KeyedVectors``) lacks
    are skipped, and a sentence with no known word besides the target gets zeros.
    """
    vectors = np.zeros((len(probes), keyed_vectors.vector_size))
    for i, probe in enumerate(probes):
        known = [token for k, token in enumerate(probe.tokens) if k != probe.position and token in keyed_vectors]
        if known:
            vectors[i] = np.mean([keyed_vectors[token] for token in known], axis=0)
    return vectors


def occurrence_labels(probes: list[ProbeSentence], window: int = 4, separator: str = " ") -> list[str]:
    """One label per probe sentence, for a map of the occurrences: ``"word · sense · …context…"``.

    The context is the target word with up to ``window`` words either side, joined by
    ``separator`` (``""`` for Chinese); ``…`` marks where the sentence goes on. Labels are unique:
    where two would be equal, each of them ends with its line in the probe file (``· line N``).
    """
    if window < 0:
        raise SettingError(f"the window must be 0 or more words either side, got {window}")
    labels = []
    for probe in probes:
        start, end = max(0, probe.position - window), min(len(probe.tokens), probe.position + window + 1)
        context = separator.join(probe.tokens[start:end])
        labels.append(f"{probe.word} · {probe.sense} · {'…' if start > 0 else ''}{context}"
                      f"{'…' if end < len(probe.tokens) else ''}")
    repeated = {label for label, count in Counter(labels).items() if count > 1}
    return [f"{label} · line {probe.line}" if label in repeated else label
            for label, probe in zip(labels, probes, strict=True)]


def probe_model(model, probes: list[ProbeSentence], untrained=None, context_vectors=None) -> list[dict]:
    """The sense probe of every target word, per layer, beside the controls.

    Args:
        model: a trained :class:`~course.elmo.model.Elmo`.
        probes: from :func:`read_probes`.
        untrained: the untrained control (default ``model.untrained()``).
        context_vectors: static word vectors (a gensim ``KeyedVectors``, skip-gram's for instance)
            for the bag-of-context control (:func:`bag_of_context_vectors`); None leaves it out.

    Returns:
        A list over target words (in file order) of ``{"word", "senses": {sense: count},
        "layers": [{"layer": j, "trained": {...}, "untrained": {...}}], "static": {...}}``, and
        ``"bag_of_context": {...}`` with ``context_vectors``, each ``{...}`` being
        ``{"knn_accuracy", "separation"}``.
    """
    untrained = untrained if untrained is not None else model.untrained()
    trained_vectors = target_vectors(model, probes)
    untrained_vectors = target_vectors(untrained, probes)
    bags = bag_of_context_vectors(probes, context_vectors) if context_vectors is not None else None
    results = []
    for word, senses in _senses(probes).items():
        rows = [i for i, probe in enumerate(probes) if probe.word == word]
        labels = [probes[i].sense for i in rows]
        static = np.repeat(model.token_vectors([word]), len(rows), axis=0)
        result = {
            "word": word,
            "senses": dict(senses),
            "layers": [{"layer": j, "trained": sense_probe(trained_vectors[j, rows], labels),
                        "untrained": sense_probe(untrained_vectors[j, rows], labels)}
                       for j in range(trained_vectors.shape[0])],
            "static": sense_probe(static, labels),
        }
        if bags is not None:
            result["bag_of_context"] = sense_probe(bags[rows], labels)
        results.append(result)
    return results


def probe_summary(results: list[dict]) -> dict:
    """The mean over words of the 1-NN accuracy: per layer, trained and untrained, and the controls.

    Returns:
        ``{"words": [...], "layers": [{"layer": j, "trained": a, "untrained": b}], "static": c,
        "bag_of_context": d or None}`` (plain floats; ``bag_of_context`` is None unless every word
        has that control).
    """
    if not results:
        raise ValueError("no probe results to summarise")

    def mean(values) -> float:
        return float(np.mean(list(values)))

    layers = [entry["layer"] for entry in results[0]["layers"]]
    with_context = all("bag_of_context" in result for result in results)
    return {
        "words": [result["word"] for result in results],
        "layers": [{"layer": layer,
                    "trained": mean(r["layers"][j]["trained"]["knn_accuracy"] for r in results),
                    "untrained": mean(r["layers"][j]["untrained"]["knn_accuracy"] for r in results)}
                   for j, layer in enumerate(layers)],
        "static": mean(r["static"]["knn_accuracy"] for r in results),
        "bag_of_context": mean(r["bag_of_context"]["knn_accuracy"] for r in results) if with_context else None,
    }


def format_probe_table(results: list[dict]) -> str:
    """The probe results as a plain-text table: one row per word and layer, then a row per control
    (the static vector, and the bag of context when the results have it)."""
    header = ("word", "vectors", "layer", "1-NN trained", "1-NN untrained", "sep. trained", "sep. untrained")
    rows = [header]
    for result in results:
        senses = ", ".join(f"{sense} {count}" for sense, count in result["senses"].items())
        for entry in result["layers"]:
            trained, untrained = entry["trained"], entry["untrained"]
            rows.append((result["word"], "ELMo", str(entry["layer"]), f"{trained['knn_accuracy']:.3f}",
                         f"{untrained['knn_accuracy']:.3f}", f"{trained['separation']:+.3f}",
                         f"{untrained['separation']:+.3f}"))
        for key, name in (("static", "static"), ("bag_of_context", "bag of context")):
            if key in result:
                control = result[key]
                rows.append((result["word"], name, "-", f"{control['knn_accuracy']:.3f}", "-",
                             f"{control['separation']:+.3f}", "-"))
        rows.append((f"  ({senses})", "", "", "", "", "", ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) if i >= 2 else cell.ljust(w) for i, (cell, w) in
                       enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ------------------------------------------------------------------------- nearest contexts


def nearest_contexts(model, tokens, position: int, corpus, layer: int = 2, k: int = 5,
                     max_occurrences: int = 2_000, seed: int = 1) -> list[dict]:
    """The corpus sentences whose occurrence of the same word is nearest to one occurrence.

    Like the paper's table for "play": embed ``tokens``, take layer ``layer`` of the word at
    ``position``, and rank every occurrence of that word in ``corpus`` (at most
    ``max_occurrences``, drawn at random with ``seed`` when there are more) by cosine similarity.

    Returns:
        Up to ``k`` dicts, nearest first: ``{"similarity", "sentence" (tokens), "position",
        "index" (the sentence's number in the corpus)}``.
    """
    tokens = list(tokens)
    word = tokens[position]
    try:
        type_id = corpus.types.index(word)
    except ValueError:
        return []
    where = np.flatnonzero(corpus.token_ids == type_id)
    if len(where) > max_occurrences:
        where = np.sort(np.random.default_rng(seed).choice(where, max_occurrences, replace=False))
    sentence_numbers = np.searchsorted(corpus.offsets, where, side="right") - 1
    positions = where - corpus.offsets[sentence_numbers]
    unique_numbers, first = np.unique(sentence_numbers, return_inverse=True)
    sentences = [corpus[int(i)] for i in unique_numbers]
    embedded = model.embed([tokens, *sentences])
    query = embedded[0][layer, position]
    candidates = np.stack([embedded[1 + first[i]][layer, positions[i]] for i in range(len(where))])
    similarity = cosine_matrix(np.vstack([query, candidates]))[0, 1:]
    best = np.argsort(-similarity, kind="stable")[:k]
    return [{"similarity": float(similarity[i]), "sentence": sentences[first[i]], "position": int(positions[i]),
             "index": int(sentence_numbers[i])} for i in best]
