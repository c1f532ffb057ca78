"""Intrinsic evaluation of word vectors held in a gensim ``KeyedVectors``.

- Analogies ("a is to b as c is to ?") on the Google set: 3CosAdd (the vector offset
  b - a + c, as gensim and word2vec.c score it) and 3CosMul (Levy and Goldberg, 2014), reported per
  section, for the semantic and syntactic halves and in total, with coverage; on the whole set or on
  the questions a corpus supports (every word seen at least ``min_count`` times).
- Word-pair similarity on WordSim-353 and SimLex-999: Spearman and Pearson correlation between
  human scores and cosine similarity, and the share of pairs with an unknown word.
- Chinese vectors on Chinese benchmarks shipped in ``course/data/benchmarks/``: the analogies of
  CA8 (Li et al., 2018: 10,177 morphological and 7,636 semantic questions) and the word pairs of
  wordsim-240 and wordsim-297. :func:`evaluate_all` picks the benchmarks of the vectors' language
  (:func:`language_of`).
- Nearest neighbours and similarity matrices for looking at a few words.

The rules follow gensim's ``evaluate_word_analogies`` and ``evaluate_word_pairs`` exactly (search
among the ``restrict_vocab`` most frequent words, compare case-insensitively, skip questions with
an unknown word), so the figures are comparable with published gensim figures; the work is done
as one matrix product per batch of questions instead of one search per question.

CA8's own evaluator (``evaluation/ana_eval_dense.py`` in Embedding/Chinese-Word-Vectors) follows other
conventions, and its figures differ from these where they matter:

- it asks every question whose a, b and c have vectors; one whose answer d has none counts as
  wrong, where gensim's rule (and this module's) skips it;
- it searches all the vectors it read, not the ``restrict_vocab`` most frequent;
- its 3CosMul divides by cos'(x, a) + 0.01, not + 1e-6;
- it compares words exactly (Chinese has no case to fold).

With every answer in the vocabulary and the search over all of it, the two give the same 3CosAdd
accuracy (``tests/test_evaluate_zh.py`` runs CA8's evaluator beside this module on the same vectors).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

from ..core.errors import EvaluationFileError, SettingError, WordNotInVocabularyError

BENCHMARK_FILES = {
    "google-analogies": "questions-words.txt",
    "wordsim353": "wordsim353.tsv",
    "simlex999": "simlex999.txt",
}
SHIPPED_FILES = {  # named benchmarks shipped in course/data/benchmarks/ (see its README for sources and licences)
    "ca8-morphological": "ca8/morphological.txt",
    "ca8-semantic": "ca8/semantic.txt",
    "wordsim240": "wordsim-zh/wordsim240.txt",
    "wordsim297": "wordsim-zh/wordsim297.txt",
}
CA8_PARTS = ("ca8-morphological", "ca8-semantic")  # "ca8" is both; their sections read "morphological/A", ...
SIMILARITY_BENCHMARKS = ("wordsim353", "simlex999")
BENCHMARKS = {  # language -> (analogies, similarity sets)
    "en": ("google-analogies", SIMILARITY_BENCHMARKS),
    "zh": ("ca8", ("wordsim240", "wordsim297")),
}
SIMILARITY_LABELS = {"wordsim353": "WordSim-353", "simlex999": "SimLex-999", "wordsim240": "wordsim-240",
                     "wordsim297": "wordsim-297"}
METHODS = ("3cosadd", "3cosmul")
COSMUL_EPSILON = 1e-6  # keeps 3CosMul's division finite, as in gensim's most_similar_cosmul

Question = tuple[str, str, str, str]  # a b c d: a is to b as c is to d
AnalogySource = str | os.PathLike | Mapping[str, Sequence[Question]]  # a benchmark, a file, section -> questions


def benchmark_path(name_or_path: str | os.PathLike) -> Path:
    """Path of a named benchmark (``google-analogies``, ``wordsim353``, ``simlex999``, and the Chinese
    ``ca8-morphological``, ``ca8-semantic``, ``wordsim240``, ``wordsim297``) or of a file."""
    name = str(name_or_path)
    if name in BENCHMARK_FILES:
        from gensim.test.utils import datapath

        return Path(datapath(BENCHMARK_FILES[name]))
    if name in SHIPPED_FILES:
        from ..core.paths import data_dir

        return data_dir() / "benchmarks" / SHIPPED_FILES[name]
    path = Path(name)
    if not path.is_file():
        named = [*BENCHMARK_FILES, "ca8", *SHIPPED_FILES]
        raise EvaluationFileError(f"{name}: no such evaluation file (named ones: {', '.join(named)})")
    return path


def language_of(kv, sample: int = 2_000) -> str:
    """``"zh"`` where most of the first ``sample`` words of ``kv`` hold a Chinese character, else ``"en"``."""
    words = kv.index_to_key[:sample]
    chinese = sum(any("\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" for ch in str(word))
                  for word in words)
    return "zh" if words and chinese / len(words) > 0.5 else "en"


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise EvaluationFileError(f"{path}: not UTF-8 text (offset {exc.start})") from None


# --------------------------------------------------------------------------------- vocabulary view


@dataclass
class _SearchSpace:
    """The words analogies and similarities may use: the first ``restrict_vocab`` of the vectors.

    ``lookup`` maps a (possibly upper-cased) word to the index of its most frequent spelling;
    ``group[i]`` is that index for every word ``i``, so two spellings of one word share a group.
    """

    unit: np.ndarray  # (R, d) float32 unit vectors
    lookup: dict[str, int]
    group: np.ndarray  # (R,) int64
    fold: bool

    @classmethod
    def of(cls, kv, restrict_vocab: int, case_insensitive: bool) -> _SearchSpace:
        keys = kv.index_to_key[:restrict_vocab]
        lookup: dict[str, int] = {}
        group = np.empty(len(keys), dtype=np.int64)
        for i, key in enumerate(keys):
            folded = key.upper() if case_insensitive else key
            group[i] = lookup.setdefault(folded, i)
        kv.fill_norms()
        vectors = kv.vectors[: len(keys)]
        norms = kv.norms[: len(keys), np.newaxis]
        unit = vectors / np.where(norms > 0, norms, 1)  # an all-zero vector stays zero
        return cls(unit.astype(np.float32, copy=False), lookup, group, case_insensitive)

    def index(self, word: str) -> int | None:
        return self.lookup.get(word.upper() if self.fold else word)


# ------------------------------------------------------------------------------------- analogies


@dataclass
class AnalogySection:
    """One section of an analogy test: questions answered correctly, answered, and skipped."""

    name: str
    correct: int = 0
    answered: int = 0
    skipped: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0

    @property
    def coverage(self) -> float:
        questions = self.answered + self.skipped
        return self.answered / questions if questions else 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "accuracy": self.accuracy, "coverage": self.coverage}


@dataclass
class AnalogyResult:
    """Analogy accuracy per section and for the semantic, syntactic and whole sets.

    ``predictions`` holds, per question in file order, the predicted word (None when skipped).
    """

    method: str
    sections: list[AnalogySection]
    semantic: AnalogySection
    syntactic: AnalogySection
    total: AnalogySection
    predictions: list[str | None] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        return {"method": self.method, "semantic": self.semantic.to_dict(),
                "syntactic": self.syntactic.to_dict(), "total": self.total.to_dict(),
                "sections": [section.to_dict() for section in self.sections]}


def read_analogies(path: str | os.PathLike = "google-analogies") -> list[tuple[str, list[Question]]]:
    """Read an analogy file: ``: section`` headers, then lines of four words ``a b c expected``.

    ``"ca8"`` reads both halves of CA8; its sections (and those of ``ca8-morphological`` and
    ``ca8-semantic``) are named ``morphological/A``, ``semantic/geography``, ...: the morphological
    half stands where the Google set's syntactic half does.

    Raises:
        EvaluationFileError: a missing file, a question before the first header, or a line
            without exactly four words (the message gives the file and line number).
    """
    if str(path) == "ca8":
        return [section for part in CA8_PARTS for section in read_analogies(part)]
    name, path = path, benchmark_path(path)
    sections: list[tuple[str, list[Question]]] = []
    for number, line in enumerate(_read_lines(path), start=1):
        if line.startswith(":"):
            sections.append((line.lstrip(": ").strip(), []))
            continue
        words = line.split()
        if not words:
            continue
        if not sections:
            raise EvaluationFileError(f"{path}:{number}: a question before the first ': section' header")
        if len(words) != 4:
            raise EvaluationFileError(f"{path}:{number}: expected four words 'a b c d', got {line.strip()!r}")
        sections[-1][1].append(tuple(words))
    if not any(questions for _, questions in sections):
        raise EvaluationFileError(f"{path}: holds no analogy questions")
    if str(name) in CA8_PARTS:
        half = str(name).removeprefix("ca8-")
        sections = [(f"{half}/{section}", questions) for section, questions in sections]
    return sections


def _is_syntactic(section: str) -> bool:
    return section.startswith(("gram", "morphological/"))


def _analogy_sections(source: AnalogySource) -> list[tuple[str, Sequence[Question]]]:
    """The ``(section, questions)`` of a named benchmark, a file, or a mapping section -> questions."""
    if isinstance(source, Mapping):
        return list(source.items())
    return read_analogies(source)


@dataclass
class SupportedAnalogies:
    """The analogy questions a corpus supports: each of their four words is seen ``min_count`` times.

    ``questions`` maps every section of the test, in file order, to the questions it keeps (a list of
    ``(a, b, c, d)``, possibly empty); pass it to :func:`evaluate_analogies` or :func:`evaluate_all`
    in place of a file. ``asked`` and ``kept`` count each section's questions before and after the rule.
    """

    min_count: int
    questions: dict[str, list[Question]]
    asked: dict[str, int]
    kept: dict[str, int]

    @property
    def total_asked(self) -> int:
        return sum(self.asked.values())

    @property
    def total_kept(self) -> int:
        return sum(self.kept.values())


def _word_counts(counts) -> dict[str, int]:
    """How often each word was seen, from a mapping word -> count, a :class:`~course.text.vocab.Vocabulary`
    (``words`` and ``counts``) or a :class:`~course.text.corpus.Corpus` (``types`` and ``counts()``)."""
    if isinstance(counts, Mapping):
        return {str(word): int(count) for word, count in counts.items()}
    if hasattr(counts, "words") and hasattr(counts, "counts"):  # a Vocabulary
        return dict(zip(counts.words, np.asarray(counts.counts).tolist(), strict=True))
    if hasattr(counts, "types") and callable(getattr(counts, "counts", None)):  # a Corpus
        return dict(zip(counts.types, counts.counts().tolist(), strict=True))
    raise TypeError(f"word counts must be a mapping, a Vocabulary or a Corpus, not {type(counts).__name__}")


def supported_analogies(counts, path: AnalogySource = "google-analogies", min_count: int = 50,
                        case_insensitive: bool = True) -> SupportedAnalogies:
    """Keep the analogy questions whose four words are each seen at least ``min_count`` times.

    The rule is about the corpus, not about any model: a word seen only a few times gets a vector
    fitted to a few contexts, and a question about it tests those contexts more than the method.

    Args:
        counts: the corpus's word counts: a mapping word -> count, a ``Vocabulary`` or a ``Corpus``
            (words missing from it count 0).
        path: the questions, as :func:`evaluate_analogies` takes them (a benchmark name, a file, or
            a mapping section -> questions).
        min_count: the least number of times each of the four words must be seen.
        case_insensitive: compare words as the evaluation does, ignoring case; a word's count is then
            that of its most frequent spelling (the one whose vector the evaluation uses).

    Raises:
        SettingError: ``min_count`` below 1.
        EvaluationFileError: as :func:`read_analogies`.
    """
    if min_count < 1:
        raise SettingError(f"min_count must be at least 1, got {min_count}")
    seen: dict[str, int] = {}
    for word, count in _word_counts(counts).items():
        key = word.upper() if case_insensitive else word
        seen[key] = max(seen.get(key, 0), count)

    def supported(question: Question) -> bool:
        return all(seen.get(word.upper() if case_insensitive else word, 0) >= min_count for word in question)

    questions, asked, kept = {}, {}, {}
    for name, section in _analogy_sections(path):
        questions[name] = [tuple(question) for question in section if supported(question)]
        asked[name], kept[name] = len(section), len(questions[name])
    return SupportedAnalogies(min_count, questions, asked, kept)


def evaluate_analogies(kv, path: AnalogySource = "google-analogies", method: str = "3cosadd",
                       restrict_vocab: int = 300_000, case_insensitive: bool = True,
                       batch_size: int | None = None) -> AnalogyResult:
    """Answer every analogy question with ``method`` and count the correct answers.

    ``path`` is a benchmark name, an analogy file, or a mapping section -> questions (such as
    :func:`supported_analogies`'s ``questions``).

    For a question (a, b, c, d) the answer is the word x, among the ``restrict_vocab`` most frequent
    and other than a, b and c, that maximises

    - 3CosAdd: cos(x, b - a + c) with unit vectors (the same ranking as cos(x,b) - cos(x,a) + cos(x,c));
    - 3CosMul: cos'(x,b) cos'(x,c) / (cos'(x,a) + 1e-6) with cos' = (1 + cos) / 2.

    Questions with a word outside the searched vocabulary are skipped and counted. With 3CosAdd
    the counts equal gensim's ``KeyedVectors.evaluate_word_analogies``.
    """
    if method not in METHODS:
        raise EvaluationFileError(f"unknown analogy method {method!r}: use one of {', '.join(METHODS)}")
    sections_in = _analogy_sections(path)
    space = _SearchSpace.of(kv, restrict_vocab, case_insensitive)
    rows, section_of = [], []
    sections = [AnalogySection(name) for name, _ in sections_in]
    predictions: list[str | None] = []
    for number, (_, questions) in enumerate(sections_in):
        for question in questions:
            ids = [space.index(word) for word in question]
            predictions.append(None)
            if None in ids:
                sections[number].skipped += 1
                continue
            rows.append(ids)
            section_of.append((number, len(predictions) - 1))
    if rows:
        answered = np.asarray(rows, dtype=np.int64)
        predicted = _answer(space, answered[:, :3], method, batch_size)
        correct = space.group[predicted] == answered[:, 3]
        for (number, position), guess, right in zip(section_of, predicted, correct, strict=False):
            sections[number].answered += 1
            sections[number].correct += int(right)
            predictions[position] = kv.index_to_key[guess]
    return AnalogyResult(method, sections, _sum("semantic", [s for s in sections if not _is_syntactic(s.name)]),
                         _sum("syntactic", [s for s in sections if _is_syntactic(s.name)]),
                         _sum("total", sections), predictions)


def _sum(name: str, sections: Sequence[AnalogySection]) -> AnalogySection:
    return AnalogySection(name, sum(s.correct for s in sections), sum(s.answered for s in sections),
                          sum(s.skipped for s in sections))


def _answer(space: _SearchSpace, abc: np.ndarray, method: str, batch_size: int | None) -> np.ndarray:
    """``(n,)`` predicted word index for each ``(n, 3)`` row of question indices (a, b, c).

    One matrix product per batch of questions, then the top five candidates per question
    (torch's multi-threaded matmul and top-k, on the CPU).
    """
    import torch

    unit = torch.from_numpy(space.unit)
    group = torch.from_numpy(space.group)
    size = len(unit)
    batch_size = batch_size or max(1, min(2048, (1 << 26) // max(1, size)))
    top = min(5, size)
    predicted = np.empty(len(abc), dtype=np.int64)
    with torch.inference_mode():
        for start in range(0, len(abc), batch_size):
            batch = torch.from_numpy(abc[start:start + batch_size])
            a, b, c = unit[batch[:, 0]], unit[batch[:, 1]], unit[batch[:, 2]]
            if method == "3cosadd":
                target = torch.nn.functional.normalize(b + c - a, dim=1)
                scores = target @ unit.T  # (batch, R)
            else:
                cosines = (torch.cat([a, b, c]) @ unit.T).add_(1).mul_(0.5)  # (3 batch, R), in [0, 1]
                cos_a, cos_b, cos_c = cosines.split(len(batch))
                scores = cos_b.mul_(cos_c).div_(cos_a.add_(COSMUL_EPSILON))
            scores.scatter_(1, batch, float("-inf"))  # never answer with a question word
            best = scores.topk(top, dim=1).indices  # (batch, 5), best first
            # gensim takes the first of the top five that is no spelling variant of a, b or c.
            variant = (group[best].unsqueeze(2) == group[batch].unsqueeze(1)).any(dim=2)
            first_ok = torch.where(variant.all(dim=1), top - 1, (~variant).int().argmax(dim=1))
            predicted[start:start + len(batch)] = best[torch.arange(len(batch)), first_ok].numpy()
    return predicted


# ------------------------------------------------------------------------------------ similarity


@dataclass
class SimilarityResult:
    """Correlation between human similarity scores and cosine similarity over the known pairs."""

    benchmark: str
    spearman: float
    pearson: float
    pairs: int
    skipped: int

    @property
    def oov_ratio(self) -> float:
        """Share of pairs skipped for an unknown word, in percent (gensim's ``oov_ratio``)."""
        return 100.0 * self.skipped / (self.pairs + self.skipped) if self.pairs + self.skipped else 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "oov_ratio": self.oov_ratio}


def read_word_pairs(path: str | os.PathLike = "wordsim353") -> list[tuple[str, str, float]]:
    """Read a word-pair file: ``word1<TAB>word2<TAB>score`` lines (``#`` starts a comment line;
    pairs separated by spaces are read too).

    Raises:
        EvaluationFileError: a missing file or a line that is not two words and a number.
    """
    path = benchmark_path(path)
    pairs = []
    for number, line in enumerate(_read_lines(path), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        try:
            first, second, score = fields
            pairs.append((first, second, float(score)))
        except ValueError:
            raise EvaluationFileError(
                f"{path}:{number}: expected 'word1<TAB>word2<TAB>score', got {line.strip()!r}") from None
    if not pairs:
        raise EvaluationFileError(f"{path}: holds no word pairs")
    return pairs


def evaluate_similarity(kv, path: str | os.PathLike = "wordsim353", restrict_vocab: int = 300_000,
                        case_insensitive: bool = True) -> SimilarityResult:
    """Spearman and Pearson correlation of cosine similarity with the human scores in ``path``.

    Pairs with a word outside the ``restrict_vocab`` most frequent are skipped and counted.
    The figures equal gensim's ``KeyedVectors.evaluate_word_pairs``.
    """
    pairs = read_word_pairs(path)
    space = _SearchSpace.of(kv, restrict_vocab, case_insensitive)
    known = [(space.index(a), space.index(b), score) for a, b, score in pairs]
    known = [(i, j, score) for i, j, score in known if i is not None and j is not None]
    name = _benchmark_name(path)
    if len(known) < 2:
        return SimilarityResult(name, float("nan"), float("nan"), len(known), len(pairs) - len(known))
    first, second, gold = (np.asarray(column) for column in zip(*known, strict=False))
    model = _pair_cosines(kv, first, second)
    return SimilarityResult(name, float(stats.spearmanr(gold, model)[0]), float(stats.pearsonr(gold, model)[0]),
                            len(known), len(pairs) - len(known))


def _pair_cosines(kv, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``(n,)`` float32 cosine of each pair of word indices.

    Computed pair by pair with gensim's own rounding (a float64 norm, a float32 dot product), so
    that the correlations match gensim's to the last digit; a benchmark has at most a few thousand
    pairs, so this is no hot path.
    """
    from gensim.matutils import unitvec

    unit = {int(i): unitvec(kv.vectors[i]) for i in np.union1d(first, second)}
    cosines = [np.dot(unit[int(i)], unit[int(j)]) for i, j in zip(first, second, strict=True)]
    return np.asarray(cosines, dtype=np.float32)


# ------------------------------------------------------------------------------------ everything


def evaluate_all(kv, restrict_vocab: int = 300_000, methods: Sequence[str] = METHODS,
                 analogies: AnalogySource | None = None,
                 similarity: Sequence[str | os.PathLike] | None = None, language: str | None = None) -> dict:
    """Every benchmark at once, as plain data: analogies per method and each similarity set.

    ``analogies`` and ``similarity`` take benchmark names or paths of files in the same formats;
    ``analogies`` also takes a mapping section -> questions (see :func:`supported_analogies`). Left
    out, they are those of ``language`` (:data:`BENCHMARKS`: Google's analogies, WordSim-353 and
    SimLex-999 for ``"en"``; CA8, wordsim-240 and wordsim-297 for ``"zh"``), by default the language
    of the vectors (:func:`language_of`).
    """
    language = language or language_of(kv)
    if language not in BENCHMARKS:
        raise SettingError(f"language must be one of {', '.join(BENCHMARKS)}, got {language!r}")
    analogies = BENCHMARKS[language][0] if analogies is None else analogies
    similarity = BENCHMARKS[language][1] if similarity is None else similarity
    return {
        "vectors": {"words": len(kv.index_to_key), "dimensions": int(kv.vector_size),
                    "restrict_vocab": restrict_vocab, "language": language},
        "analogies": {method: evaluate_analogies(kv, analogies, method=method,
                                                 restrict_vocab=restrict_vocab).to_dict()
                      for method in methods},
        "similarity": {_benchmark_name(name): evaluate_similarity(kv, name, restrict_vocab=restrict_vocab).to_dict()
                       for name in similarity},
    }


def _benchmark_name(name_or_path: str | os.PathLike) -> str:
    named = str(name_or_path) in BENCHMARK_FILES or str(name_or_path) in SHIPPED_FILES
    return str(name_or_path) if named else Path(name_or_path).name


def summary_row(results: dict, method: str = "3cosadd") -> dict:
    """One flat row of headline figures from :func:`evaluate_all`, for a comparison table."""
    analogies = results["analogies"][method]
    return {
        "analogy semantic": analogies["semantic"]["accuracy"],
        "analogy syntactic": analogies["syntactic"]["accuracy"],
        "analogy total": analogies["total"]["accuracy"],
        "analogy coverage": analogies["total"]["coverage"],
        **{SIMILARITY_LABELS.get(name, name): figures["spearman"] for name, figures in results["similarity"].items()},
    }


def format_report(results: dict) -> str:
    """The figures of :func:`evaluate_all` as a plain-text table."""
    lines = [f"{results['vectors']['words']:,} words x {results['vectors']['dimensions']} dimensions "
             f"(analogy search over the {results['vectors']['restrict_vocab']:,} most frequent)", ""]
    methods = list(results["analogies"])
    header = f"{'analogies':<28}" + "".join(f"{m:>18}" for m in methods)
    lines += [header, "-" * len(header)]
    for part in ("semantic", "syntactic", "total"):
        label = "morphological" if part == "syntactic" and results["vectors"].get("language") == "zh" else part
        cells = []
        for m in methods:
            s = results["analogies"][m][part]
            cells.append(f"{100 * s['accuracy']:6.2f}% {s['correct']:>5}/{s['answered']:<5}")
        lines.append(f"{label:<28}" + "".join(f"{c:>18}" for c in cells))
    total = results["analogies"][methods[0]]["total"]
    lines.append(f"{'coverage':<28}{100 * total['coverage']:>17.1f}%  "
                 f"({total['skipped']:,} questions skipped for unknown words)")
    lines += ["", f"{'word similarity':<28}{'Spearman':>10}{'Pearson':>10}{'pairs':>8}{'OOV':>8}"]
    lines.append("-" * 64)
    for name, s in results["similarity"].items():
        lines.append(f"{name:<28}{s['spearman']:>10.4f}{s['pearson']:>10.4f}{s['pairs']:>8}{s['oov_ratio']:>7.1f}%")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- looking at words


def _require(kv, word: str) -> None:
    if word not in kv.key_to_index:
        raise WordNotInVocabularyError(f"{word!r} is not in the vectors' vocabulary ({len(kv.index_to_key):,} words)")


def neighbours(kv, word: str, topn: int = 10, restrict_vocab: int | None = None) -> list[tuple[str, float]]:
    """The ``topn`` words nearest to ``word`` by cosine similarity, with their similarity."""
    _require(kv, word)
    return [(key, float(score)) for key, score in kv.most_similar(word, topn=topn, restrict_vocab=restrict_vocab)]


def similarity_matrix(kv, words: Sequence[str]) -> np.ndarray:
    """``(n, n)`` cosine similarities between ``words``."""
    for word in words:
        _require(kv, word)
    vectors = np.stack([kv.get_vector(word, norm=True) for word in words])
    return vectors @ vectors.T
