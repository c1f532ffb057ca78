"""Measuring every claim on the models a build saved: loading the biLMs, Transformers and vectors,
counting Kneser-Ney models on each biLM's own split, the sense probes with their untrained, static and
bag-of-context controls, the POS probe per layer, and the rows notebooks 09-11 saved. A model or file
that is missing or cannot be read gives a row that says so, and how to make it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..core.errors import CourseError, ModelFileError
from ..core.paths import data_dir, models_dir, project_root
from ..core.settings import by_profile, resolve_profile
from ..shared.corpus import SMOKE_SENTENCES, course_corpus
from .experiments import fine_tuning_gain_claim, transfer_claims, transformer_claims, ulmfit_claims
from .row import (
    BAG_OF_WORDS,
    BOTH_SIDES,
    CONTEXTUAL,
    FAILS,
    FEW_LABELS,
    FINE_TUNING,
    FINE_TUNING_GAIN,
    HOLDS,
    LANGUAGE_MODEL,
    LAYERS,
    LM_FINE_TUNING,
    POS_BASELINE,
    PRETRAINED_LM,
    SENSES,
    STATIC,
    TARGET_DOMAIN,
    TRANSFORMER_SENSES,
    TRANSFORMER_SPEED,
    Claim,
    Phrase,
    _by_layer,
    not_measured,
)
from .rules import (
    DIRECTIONS,
    LM_NOTEBOOK,
    _peak,
    language_model_claim,
    layer_claim,
    pos_baseline_claim,
    sense_claim,
    static_vector_claim,
)
from .scores import _word_mean, bootstrap_spread, chance_scores, sense_scores

UNTRAINED_SEEDS = (1, 2, 3, 4, 5)


# What a build saves into models_dir(profile) (notebooks 01-04, 06 and 07/08).
BUILD_FILES = ("count-svd-wiki-en.txt", "skipgram-neg-wiki-en.txt", "cbow-hs-wiki-en.txt", "glove-wiki-en.txt",
               "elmo-cpu-wiki-en.pt", "elmo-cpu-peoples-daily-zh.pt")
CORPORA = {"wiki-en": ("en", "06"), "peoples-daily-zh": ("zh", "07 or 08")}  # probe file prefix, notebook saving it

NER_CURVE = "ner-curve-peoples-daily-zh.json"  # what notebook 09 saves into models_dir(profile)
ULMFIT_CURVE = "ulmfit-curve-reviews-zh.json"  # what notebook 10 saves into models_dir(profile)
TRANSFORMER_RESULTS = "transformers-wiki-en.json"  # what notebook 11 saves into models_dir(profile)
TRANSFORMERS = {"gpt": "GPT", "bert": "BERT"}  # model file prefix -> name in the rows (notebook 11)


def _shown(path: Path) -> str:
    """``path`` relative to the project when it is inside it."""
    try:
        return str(path.relative_to(project_root()))
    except ValueError:
        return str(path)


def _remedy(profile: str) -> str:
    return "run make course" + (" PROFILE=smoke" if profile == "smoke" else "")


def training_corpus(corpus_name: str, profile: str):
    """The corpus a build's biLM of ``corpus_name`` was trained on: the whole corpus in the full
    profile, its first 300 sentences in the smoke one (notebooks 06-08)."""
    return course_corpus(corpus_name, profile)


def _untrained(model, seed: int):
    """The model's network with fresh random weights drawn with ``seed`` (same vocabularies)."""
    from ..elmo import Elmo

    if not isinstance(model, Elmo):  # a Transformer draws its own
        return model.untrained(seed)
    return Elmo(replace(model.config, seed=seed), model.words, model.characters, device=str(model.device))


def _language_model_row(corpus_name: str, model, profile: str, say) -> Claim:
    from ..counts.ngram import KneserNeyLM
    from ..elmo.training import vocabularies
    from ..lm import split_heldout

    claim, notebook = f"{LANGUAGE_MODEL} ({corpus_name})", LM_NOTEBOOK.get(corpus_name, "06")
    if not model.state.heldout:
        return not_measured(claim, notebook, f"the {corpus_name} biLM has no held-out perplexity")
    corpus = training_corpus(corpus_name, profile)
    train_numbers, heldout_numbers = split_heldout(corpus, model.config)
    if vocabularies(corpus, train_numbers, model.config)[0].words != model.words.words:
        where = by_profile(profile, full="the whole corpus", smoke=f"its first {SMOKE_SENTENCES} sentences")
        return not_measured(claim, notebook, f"the {corpus_name} biLM's vocabulary is not that of {where}: it was "
                                         "trained on other sentences, so there is no split to count n-grams on")
    say(f"Kneser-Ney bigram and trigram models on {corpus_name} ...")
    train = [corpus[int(i)] for i in train_numbers]
    heldout = [corpus[int(i)] for i in heldout_numbers]
    vocabulary = [word for word in model.words.words if word not in model.words.specials]
    kneser_ney = {(order, d): KneserNeyLM(train, order=order, vocabulary=vocabulary, direction=d).perplexity(heldout)
                  for order in (2, 3) for d in DIRECTIONS}
    return language_model_claim(corpus_name, model.state.kept, kneser_ney)


def _sense_measurement(model, probes, bag_vectors) -> dict:
    """Per-occurrence sense scores on ``probes``: every layer, the top layer untrained per seed,
    the bag of context (or None), the chance level, and layer 0's separation."""
    from ..analysis.probes import bag_of_context_vectors, sense_probe, target_vectors

    words = np.asarray([probe.word for probe in probes])
    senses = np.asarray([probe.sense for probe in probes])
    groups = [np.flatnonzero(words == word) for word in dict.fromkeys(words.tolist())]

    def scores(vectors: np.ndarray) -> np.ndarray:
        out = np.zeros(len(probes))
        for rows in groups:
            out[rows] = sense_scores(vectors[rows], senses[rows])
        return out

    layers = target_vectors(model, probes)
    top = layers.shape[0] - 1
    untrained = np.stack([scores(target_vectors(_untrained(model, seed), probes)[top]) for seed in UNTRAINED_SEEDS])
    chance = np.zeros(len(probes))
    for rows in groups:
        chance[rows] = chance_scores(senses[rows])
    separation = np.mean([sense_probe(layers[0][rows], senses[rows])["separation"] for rows in groups])
    return {"words": words, "senses": senses, "layers": np.stack([scores(layer) for layer in layers]),
            "untrained": untrained, "chance": chance, "separation": float(separation),
            "bag": scores(bag_of_context_vectors(probes, bag_vectors)) if bag_vectors is not None else None}


def _transformer_sense_row(name: str, measured: dict, elmo_layers: np.ndarray | None, probe_file: Path,
                           bag_source: str, missing: str) -> Claim:
    """Claim 3's rule on a Transformer of notebook 11, with its layers beside the biLM's."""
    row = _sense_row("wiki-en", measured, probe_file, bag_source, missing)
    words = measured["words"]
    bilm = "" if elmo_layers is None else Phrase("claims the bilm by layer", layers=_by_layer(
        [_word_mean(s, words) for s in elmo_layers]))
    return replace(row, claim=f"{TRANSFORMER_SENSES} ({name}, wiki-en)", notebook="11",
                   measurement=Phrase("claims by layer", measurement=row.measurement, bilm=bilm,
                                      layers=_by_layer([_word_mean(s, words) for s in measured["layers"]])))


def _sense_row(corpus_name: str, measured: dict, probe_file: Path, bag_source: str, missing: str) -> Claim:
    words, layers = measured["words"], measured["layers"]
    top = layers[-1]
    controls = {"untrained": measured["untrained"].mean(axis=0), "static": layers[0]}
    if measured["bag"] is not None:
        controls["bag"] = measured["bag"]
    strongest = max(controls, key=lambda name: _word_mean(controls[name], words))
    spread = bootstrap_spread(top - controls[strongest], strata=words)
    return sense_claim(corpus_name, _word_mean(top, words),
                       [_word_mean(scores, words) for scores in measured["untrained"]], _word_mean(layers[0], words),
                       _word_mean(measured["bag"], words) if measured["bag"] is not None else None, spread,
                       test_set=Phrase("claims sense test set", file=probe_file.name, words=len(set(words.tolist())),
                                       sentences=len(words), layer=len(layers) - 1),
                       bag_source=bag_source, missing=missing)


def _skipgram_static(kv, probes) -> dict | None:
    """Claim 2's figures for skip-gram vectors on ``probes`` (words the vectors lack are left out)."""
    from ..analysis.probes import sense_probe

    figures = []
    for word in dict.fromkeys(probe.word for probe in probes):
        if word in kv:
            senses = [probe.sense for probe in probes if probe.word == word]
            figures.append({**sense_probe(np.repeat(kv[word][None], len(senses), axis=0), senses),
                            "chance": float(chance_scores(senses).mean())})
    return {key: float(np.mean([f[key] for f in figures])) for key in figures[0]} if figures else None


def _pos_scores(model, corpus, num_sentences: int, test_share: float = 0.2, seed: int = 1,
                max_iter: int = 300) -> dict:
    """:func:`course.analysis.pos_probe.pos_probe`'s per-token results for the trained biLM alone.

    Returns:
        ``{"layers": (L + 1, tokens) bool, "most_frequent_tag": (tokens,) bool, "sizes": (test
        sentences,) tokens in each}`` over the test tokens, sentence by sentence.
    """
    from ..analysis.pos_probe import pos_probe

    tokens = pos_probe(model, corpus, num_sentences, test_share, seed, untrained=False, max_iter=max_iter,
                       per_token=True)["per_token"]
    return {"layers": tokens["trained"], "most_frequent_tag": np.asarray(tokens["most_frequent_tag"], dtype=bool),
            "sizes": tokens["sizes"]}


def _per_sentence(values: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Per-token values ``(tokens,)`` summed sentence by sentence ``(len(sizes),)``."""
    return np.add.reduceat(values.astype(float), np.concatenate([[0], np.cumsum(sizes)[:-1]]))


def _layer_rows(corpus_name: str, model, measured: dict | None, profile: str, say) -> list[Claim]:
    """Claim 4 and the POS baseline on the biLM of a tagged corpus."""
    from ..text.corpus import load_corpus

    say(f"POS probe per layer on {corpus_name} ...")
    pos = _pos_scores(model, load_corpus(corpus_name, progress=False),
                      num_sentences=by_profile(profile, full=1_500, smoke=100),
                      max_iter=by_profile(profile, full=300, smoke=100))
    sizes, correct = pos["sizes"], pos["layers"]
    pos_by_layer = correct.mean(axis=1).tolist()
    pos_best, pos_next, _ = _peak(pos_by_layer)
    mft = pos["most_frequent_tag"]
    baseline = pos_baseline_claim(corpus_name, pos_by_layer, float(mft.mean()),
                                  bootstrap_spread(_per_sentence(correct[pos_best].astype(float) - mft, sizes), sizes))
    if measured is None:
        return [not_measured(f"{LAYERS} ({corpus_name})", "08", Phrase("claims no chinese sense probe")), baseline]
    words, sense_layers = measured["words"], measured["layers"]
    sense_by_layer = [_word_mean(scores, words) for scores in sense_layers]
    sense_best, sense_next, _ = _peak(sense_by_layer)
    pos_difference = _per_sentence(correct[pos_best].astype(float) - correct[pos_next], sizes)
    return [layer_claim(corpus_name, pos_by_layer, sense_by_layer, bootstrap_spread(pos_difference, sizes),
                        bootstrap_spread(sense_layers[sense_best] - sense_layers[sense_next], strata=words)),
            baseline]


def _probe_file(language: str) -> Path | None:
    """The probe file of a language: ``course/data/probes/<language>_*.tsv`` (the first, by name)."""
    found = sorted((data_dir() / "probes").glob(f"{language}_*.tsv"))
    return found[0] if found else None


def _test_split(language: str):
    """``(probe file, its test split)``; raises ProbeFileError when there is none."""
    from ..analysis.probes import read_probes
    from ..core.errors import ProbeFileError

    path = _probe_file(language)
    if path is None:
        raise ProbeFileError(f"no probe file {data_dir() / 'probes'}/{language}_*.tsv")
    return path, read_probes(path, split="test")


def _bag_vectors(model, probes, language: str, skipgram, skipgram_path: Path, profile: str):
    """``(static vectors for the bag of context or None, whose they are, why there are none)``."""
    from ..analysis.vectors import keyed_vectors

    if skipgram is not None:
        return skipgram, "skip-gram", ""
    if language == "zh":  # no build saves Chinese skip-gram vectors: the biLM's own layer 0 stands in
        vocabulary = sorted({token for probe in probes for token in probe.tokens})
        return keyed_vectors(vocabulary, model.token_vectors(vocabulary)), Phrase("claims bilm layer-0 vectors"), ""
    if skipgram_path.is_file():
        return None, "skip-gram", Phrase("claims unreadable skip-gram", path=_shown(skipgram_path))
    return None, "skip-gram", Phrase("claims no skip-gram", path=_shown(skipgram_path),
                                     smoke=" PROFILE=smoke" if profile == "smoke" else "")


def _saved_vectors(path: Path):
    """The vectors a build saved at ``path``, or None when there are none or they cannot be read (the rows
    that need them say which)."""
    from ..analysis.vectors import load_vectors

    try:
        return load_vectors(path) if path.is_file() else None
    except CourseError:
        return None


def measure_claims(profile: str | None = None, device: str = "auto", progress: bool = False,
                   notebooks: Sequence[str] | None = None) -> list[Claim]:
    """Measure every claim on the models a build saved in ``models_dir(profile)``.

    Kneser-Ney models are counted again on each biLM's split (seconds), the sense probes run on
    the probe files' test split only, the untrained control with seeds 1-5, and the POS probe on
    1,500 People's Daily sentences (100 in the smoke profile), as notebook 08 does. A claim whose
    model or file is missing, or cannot be read, is a row that says so.

    Args:
        profile: ``"full"`` or ``"smoke"`` (default: ``$COURSE_PROFILE``, else full).
        device: where the biLMs run.
        progress: say on standard error what is being measured.
        notebooks: only the rows of these notebooks (``("07",)``: what notebook 07 prints), and
            only what they need is measured; default: all.

    Raises:
        SettingError: ``device`` names a GPU this machine does not have.
        ModelFileError: the folder holds none of the files a build saves (nothing was built).
    """
    from ..core.devices import resolve_device
    from ..elmo import Elmo
    from ..shared.bilm import course_elmo, given_file

    resolve_device(device)  # no CUDA: say so at once, not only when a model is loaded
    profile = resolve_profile(profile)
    folder = models_dir(profile)
    if not any((folder / name).is_file() for name in BUILD_FILES):
        raise ModelFileError(f"{_shown(folder)} holds no trained models: build the course first with make course"
                             f"{' PROFILE=smoke' if profile == 'smoke' else ''} (or python -m course build "
                             f"--profile {profile})")

    def wanted(notebook: str) -> bool:
        return notebooks is None or notebook in notebooks

    def say(message: str) -> None:
        if progress:
            print(f"claims: {message}", file=sys.stderr, flush=True)

    language_rows, sense_rows, static, measured, models, inputs = [], [], {}, {}, {}, {}
    for corpus_name, (language, notebook) in CORPORA.items():
        path = folder / f"elmo-cpu-{corpus_name}.pt"
        skipgram_path = folder / f"skipgram-neg-{corpus_name}.txt"
        measured[corpus_name] = None
        try:
            probe_file, probes = _test_split(language)
        except CourseError as exc:
            probe_file, probes, probe_error = None, None, str(exc)
        skipgram = _saved_vectors(skipgram_path)
        if skipgram is not None and probes is not None:
            figures = _skipgram_static(skipgram, probes)
            if figures is not None:
                static[Phrase("claims static skip-gram", corpus=corpus_name)] = figures
        own = None  # the build's biLM: the language model row compares it with counting on its own corpus
        try:
            given = given_file(corpus_name)  # a biLM of real size in its place, for the probes (COURSE_ELMO_EN/_ZH)
            if given is None or path.is_file():
                if not path.is_file():
                    raise ModelFileError(f"no {_shown(path)}: {_remedy(profile)} (notebook {notebook} saves it)")
                say(f"loading {_shown(path)} ...")
                own = Elmo.load(path, device=device)
            model = models[corpus_name] = own if given is None else course_elmo(corpus_name, profile, device=device)
        except CourseError as exc:
            language_rows.append(not_measured(f"{LANGUAGE_MODEL} ({corpus_name})", LM_NOTEBOOK[corpus_name], str(exc)))
            sense_rows.append(not_measured(f"{SENSES} ({corpus_name})", "07", str(exc)))
            continue
        try:
            if wanted(LM_NOTEBOOK[corpus_name]):
                language_rows.append(
                    _language_model_row(corpus_name, own, profile, say) if own is not None else
                    not_measured(f"{LANGUAGE_MODEL} ({corpus_name})", LM_NOTEBOOK[corpus_name],
                                 Phrase("claims given bilm", path=_shown(path), given=given)))
        except CourseError as exc:  # the corpus could not be read
            language_rows.append(not_measured(f"{LANGUAGE_MODEL} ({corpus_name})", LM_NOTEBOOK[corpus_name], str(exc)))
        if not (wanted("07") or (wanted("08") and corpus_name == "peoples-daily-zh")
                or (wanted("11") and corpus_name == "wiki-en")):
            continue
        if probes is None:
            sense_rows.append(not_measured(f"{SENSES} ({corpus_name})", "07", probe_error))
            continue
        say(f"sense probes on {probe_file.name} (test split), untrained with seeds {UNTRAINED_SEEDS[0]}-"
            f"{UNTRAINED_SEEDS[-1]} ...")
        bag, bag_source, missing = _bag_vectors(model, probes, language, skipgram, skipgram_path, profile)
        inputs[corpus_name] = (probe_file, probes, bag, bag_source, missing)
        result = measured[corpus_name] = _sense_measurement(model, probes, bag)
        static[Phrase("claims static bilm layer 0", corpus=corpus_name)] = {
            "knn_accuracy": _word_mean(result["layers"][0], result["words"]), "separation": result["separation"],
            "chance": _word_mean(result["chance"], result["words"])}
        sense_rows.append(_sense_row(corpus_name, result, probe_file, bag_source, missing))
    static_row = (static_vector_claim(static) if static else
                  not_measured(STATIC, "07", Phrase("claims nothing to probe")))
    tagged = "peoples-daily-zh"
    try:
        if not wanted("08"):
            layer_rows = []
        elif tagged not in models:  # why: the language model row of that corpus says it
            why = next(row.verdict for row in language_rows if row.claim.endswith(f"({tagged})"))
            reason = why.values["reason"] if isinstance(why, Phrase) and "reason" in why.values else \
                why.split(": ", 1)[1]
            layer_rows = [not_measured(f"{LAYERS} ({tagged})", "08", reason),
                          not_measured(f"{POS_BASELINE} ({tagged})", "08", reason)]
        else:
            layer_rows = _layer_rows(tagged, models[tagged], measured[tagged], profile, say)
    except CourseError as exc:
        layer_rows = [not_measured(f"{LAYERS} ({tagged})", "08", str(exc)),
                      not_measured(f"{POS_BASELINE} ({tagged})", "08", str(exc))]
    transfer_rows = (_saved_rows(folder, NER_CURVE, "09", (FEW_LABELS, CONTEXTUAL, FINE_TUNING), transfer_claims)
                     if wanted("09") else [])
    ulmfit_rows = (_saved_rows(folder, ULMFIT_CURVE, "10", (PRETRAINED_LM, TARGET_DOMAIN, LM_FINE_TUNING, BAG_OF_WORDS),
                               ulmfit_claims) if wanted("10") else [])
    transformer_rows = _transformer_rows(folder, profile, device, measured.get("wiki-en"), say) if wanted("11") else []
    rows = [*language_rows, static_row, *sense_rows, *layer_rows, *transfer_rows, *ulmfit_rows, *transformer_rows]
    rows = _at_scale(rows, inputs.get("wiki-en"), device, say)
    return [row for row in rows if notebooks is None or any(n in row.notebook for n in notebooks)]


def _at_scale(rows: list[Claim], english, device: str, say) -> list[Claim]:
    """The rows with their "at scale" column: the English sense claim measured again, by the same rule
    and on the same test sentences and controls, on the published ELMo where it is fetched
    (:func:`course.shared.at_scale.elmo_at_scale`); the other claims have no published model that
    fits them (a published ELMo has no softmax to compare with counting, and none reads Chinese)."""
    from ..pretrained import fetch_hint
    from ..shared.at_scale import elmo_at_scale, elmo_at_scale_path

    claim = f"{SENSES} (wiki-en)"
    if not any(row.claim == claim for row in rows):
        return rows
    if elmo_at_scale_path() is None:
        cell = Phrase("claims not measured because", reason=Phrase("claims run", command=fetch_hint("small")))
    elif english is None:
        cell = Phrase("claims not measured because", reason=Phrase("claims no english probes or bilm"))
    else:
        probe_file, probes, bag, bag_source, missing = english
        name, model = elmo_at_scale(device=device)
        say(f"sense probes on the published ELMo {name} ...")
        row = _sense_row("wiki-en", _sense_measurement(model, probes, bag), probe_file, bag_source, missing)
        margin = Phrase("claims margin part", margin=row.margin) if row.margin is not None else ""
        verdict = Phrase(row.verdict) if row.verdict in (HOLDS, FAILS) else row.verdict
        cell = Phrase("claims at scale cell", verdict=verdict, name=name, measurement=row.measurement, margin=margin)
    return [replace(row, at_scale=cell) if row.claim == claim else row for row in rows]


def _transformer_rows(folder: Path, profile: str, device: str, elmo_measured: dict | None, say) -> list[Claim]:
    """Notebook 11's rows: speed and both sides from its saved results, fine-tuning's gain from its and notebook
    09's taggers, the sense rule on its saved models."""
    import json

    from ..transformer import Transformer

    rows = _saved_rows(folder, TRANSFORMER_RESULTS, "11", (TRANSFORMER_SPEED, BOTH_SIDES), transformer_claims)
    try:
        files = [folder / name for name in (NER_CURVE, TRANSFORMER_RESULTS)]
        absent = [path for path in files if not path.is_file()]
        if absent:
            raise ModelFileError(f"no {_shown(absent[0])}: run notebook 11 (it saves BERT's taggers) and notebook 09 "
                                 "(the biLM's)")
        ner_rows, results = (json.loads(path.read_text(encoding="utf-8")) for path in files)
        rows.append(fine_tuning_gain_claim(ner_rows, results["ner"]))
    except CourseError as exc:
        rows.append(not_measured(FINE_TUNING_GAIN, "11", str(exc)))
    except (ValueError, KeyError, TypeError) as exc:
        rows.append(not_measured(FINE_TUNING_GAIN, "11", f"a saved file is damaged ({type(exc).__name__}): run "
                                                          "notebooks 09 and 11 again"))
    for prefix, name in TRANSFORMERS.items():
        claim, path = f"{TRANSFORMER_SENSES} ({name}, wiki-en)", folder / f"{prefix}-wiki-en.pt"
        try:
            if not path.is_file():
                raise ModelFileError(f"no {_shown(path)}: run notebook 11 (it trains and saves it)")
            probe_file, probes = _test_split("en")
            model = Transformer.load(path, device=device)
            say(f"sense probes of {_shown(path)}, untrained with seeds {UNTRAINED_SEEDS[0]}-{UNTRAINED_SEEDS[-1]} ...")
            skipgram_path = folder / "skipgram-neg-wiki-en.txt"
            skipgram = _saved_vectors(skipgram_path)
            bag, bag_source, missing = _bag_vectors(model, probes, "en", skipgram, skipgram_path, profile)
            measured = _sense_measurement(model, probes, bag)
            rows.append(_transformer_sense_row(name, measured, None if elmo_measured is None else
                                               elmo_measured["layers"], probe_file, bag_source, missing))
        except CourseError as exc:
            rows.append(not_measured(claim, "11", str(exc)))
    return rows


def _saved_rows(folder: Path, filename: str, notebook: str, claims: Sequence[str], measure) -> list[Claim]:
    """The rows a notebook's saved results give, or rows that say why there are none."""
    import json

    path = folder / filename
    if not path.is_file():
        reason = f"no {_shown(path)}: run notebook {notebook} (it saves its results there)"
        return [not_measured(claim, notebook, reason) for claim in claims]
    try:
        return measure(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as exc:
        reason = f"{_shown(path)} is damaged ({type(exc).__name__}): run notebook {notebook} again"
        return [not_measured(claim, notebook, reason) for claim in claims]
