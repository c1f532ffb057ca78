"""The course's claims, each measured in the course's own runs: does it hold here?

The course teaches claims from the Chinese introductions to word vectors and ELMo it started
from, and from the ELMo paper (Peters et al., 2018). Each claim is a :class:`Claim` row: what was
measured, against which controls, by how much it won (the margin), how much that margin moves
when the test data are drawn again (the spread), and a verdict:

- ``holds``: the claim's condition is met and the margin is larger than the spread;
- ``does not hold here``: measured, and the condition fails or the margin is not larger than
  the spread;
- ``not measured: <reason>``: a model or file it needs is missing (the reason names it and says
  how to make it).

The rules, claim by claim:

1. *A neural language model beats counting* (notebook 06), for each corpus with a saved biLM:
   the held-out perplexity in each direction of the weights the biLM kept (``state.kept``: the
   best epoch's; the last measurement for a model saved before it kept its best) against
   interpolated Kneser-Ney bigram and trigram models (:class:`course.counts.ngram.KneserNeyLM`) counted
   on the biLM's own training sentences, over its vocabulary, and measured on its held-out
   sentences. Holds when both directions are below both n-gram models. Margin: the smaller
   relative gain of the two directions, ``1 - biLM / best n-gram``. No spread: one trained model
   on one held-out set of tens of thousands of predictions. The ratio to the bigram is shown
   beside the course's target of at most 0.75.
2. *A static vector gives one vector per word type: it cannot tell senses apart* (07): the biLM's
   layer 0 (the target word's vector as the network gives it in each test sentence) and the
   skip-gram vector, on the probe files' test split. Holds when the mean 1-NN sense accuracy over
   words is chance and the separation 0, both to 1e-5 (rounding). Chance: when every other
   occurrence is equally near, an occurrence of a sense that has ``n_s`` of the word's ``n``
   occurrences scores ``(n_s - 1) / (n - 1)``. Margin: the largest deviation from chance or 0.
3. *Contextual vectors separate word senses beyond every control* (07), per language: the top
   layer's mean 1-NN sense accuracy over the words of the probe file's test split, against the
   untrained network (the same vocabularies, weights drawn with seeds 1-5; their mean), the
   static vector (layer 0) and the bag of context (the mean of the static vectors of the
   sentence's other words: skip-gram's where a build saved them, else, for Chinese, the biLM's
   own layer-0 vectors). Margin: the top layer minus the strongest control. Holds when the margin
   is larger than the spread (below).
4. *Syntax is learned low, senses high* (08), on the Chinese biLM: the layer where a linear POS
   probe (logistic regression per layer, trained on People's Daily sentences, tested on others)
   scores best against the layer where the Chinese sense probe does. Holds when the POS probe
   peaks at a lower layer than the sense probe, and each peak is above that probe's next-best
   layer by more than its spread. The margin and spread shown are those of the peak that clears
   its spread by less. Beside it, *a linear probe on the biLM's vectors tags parts of speech
   better than the most-frequent-tag baseline*: margin, the best layer minus the baseline
   (each word's most frequent tag in the training sentences).

5. The transfer claims (09), from the learning curve notebook 09 saves
   (``ner-curve-peoples-daily-zh.json``: entity F1 on the test sentences of People's Daily's
   named entities, per input, number of labelled sentences and seed). Differences are paired by
   seed (the same labelled sentences), and their spread is half their range over the seeds.
   *Pretrained vectors help most when labels are few*: for each pretrained input (word2vec,
   GloVe, ELMo features), its gain over learned embeddings at the fewest labels minus its gain at
   the most; margin, the smallest of these. *Contextual features beat static ones*: ELMo features
   minus the better of word2vec and GloVe, at every count; margin, the smallest. *Fine-tuning the
   biLM beats using its layers as features*: fine-tuned minus features, at the counts where both
   ran; margin, the smallest.
6. The ULMFiT claims (10), from the comparison notebook 10 saves (``ulmfit-curve-reviews-zh.json``:
   test error on the reviews' test split per variant, number of labelled reviews and seed), paired
   by seed as in 5, a gain being the control's error minus ULMFiT's. *A pretrained language model
   lets a classifier learn from few labels*: ULMFiT (all three stages) against the same network
   trained from scratch, at the fewest labels. *Fine-tuning the language model on the target
   domain adds to general pretraining*: ULMFiT against stages 1+3 (no stage 2), at the fewest
   labels. *Fine-tuning the language model beats using its layers as features*: ULMFiT against
   ELMo's frozen layers under the same head, at every count; margin, the smallest. *With few
   labels, ULMFiT beats a bag-of-words classifier*: against a logistic regression on word counts,
   at the fewest labels.
7. The Transformer claims (11), on wiki-en. *A Transformer trains faster per token than an LSTM at
   equal size*: from the training steps notebook 11 times and saves (``transformers-wiki-en.json``),
   the Transformer's tokens/s over the biLM's, repeat by repeat, per sentence length, judged on the
   two networks' bodies on one thread (the char-CNN and LSTMs against the Transformer blocks: what
   the claim is about, recurrence against attention), the whole LMs, whose softmaxes differ, shown
   beside; margin, the smallest ratio less 1; spread, the largest half range of the ratios over the
   repeats. *A masked LM sees both sides at once*: accuracy@5 on the same blanked held-out words,
   BERT against the stronger of GPT (the left side) and CBOW (a bag of both sides); spread, the
   bootstrap over the blanks. *A Transformer's top layer separates word senses beyond every
   control* (GPT, BERT): claim 3's rule and figures on the saved ``gpt-wiki-en.pt`` and
   ``bert-wiki-en.pt``, with each layer's accuracy beside ELMo's for the pattern.

The spread. The probes are measured on small test sets, so a margin counts only when it is larger
than what drawing the test set again would move it by: a paired bootstrap (1,000 resamples,
seed 0) of the difference between the two figures compared, the test sentences drawn with
replacement (within each word for the sense probe; whole sentences with all their tokens for the
POS probe); the spread is half the width of the central 95% interval. For the sense claim the
spread is the larger of that and the range (max - min) of the untrained control over the seeds,
so that the margin must also exceed what another random initialisation gives. A probe claim given
no spread is not measured.

:func:`measure_claims` reads the models a build saved in :func:`course.core.paths.models_dir` and
measures every row; the ``*_claim`` functions make one row from figures a notebook already has.

The package, one job a module:

- :mod:`~course.claims.row`: :class:`Claim`, the verdicts and each claim's sentence;
- :mod:`~course.claims.rules`: claims 1-4, from a notebook's or a build's probe figures;
- :mod:`~course.claims.experiments`: claims 5-7, from the rows notebooks 09-11 save;
- :mod:`~course.claims.scores`: per-occurrence sense scores, chance and the bootstrap spread;
- :mod:`~course.claims.measurements`: :func:`measure_claims`, loading a build's models and measuring;
- :mod:`~course.claims.report`: the table as text, Markdown, HTML and JSON.
"""

from __future__ import annotations

from .experiments import (
    STATIC_INPUTS,
    ULMFIT,
    both_sides_claim,
    contextual_claim,
    few_labels_claim,
    fine_tuning_claim,
    fine_tuning_gain_claim,
    speed_claim,
    transfer_claims,
    transformer_claims,
    ulmfit_claims,
)
from .measurements import (
    BUILD_FILES,
    CORPORA,
    NER_CURVE,
    SMOKE_SENTENCES,
    TRANSFORMER_RESULTS,
    TRANSFORMERS,
    ULMFIT_CURVE,
    UNTRAINED_SEEDS,
    measure_claims,
    training_corpus,
)
from .measurements import _pos_scores as _pos_scores
from .measurements import _sense_measurement as _sense_measurement
from .measurements import _untrained as _untrained
from .report import HEADER, claim_text, claims_html, claims_json, claims_markdown, format_claims, verdict_text
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
    NOT_MEASURED,
    POS_BASELINE,
    PRETRAINED_LM,
    SENSES,
    STATIC,
    TARGET_DOMAIN,
    TRANSFORMER_SENSES,
    TRANSFORMER_SPEED,
    Claim,
    not_measured,
)
from .rules import (
    DIRECTIONS,
    LM_NOTEBOOK,
    TARGET_RATIO,
    TOLERANCE,
    language_model_claim,
    layer_claim,
    pos_baseline_claim,
    sense_claim,
    static_vector_claim,
)
from .scores import LEVEL, RESAMPLES, bootstrap_spread, chance_scores, sense_scores
from .scores import _word_mean as _word_mean

__all__ = ["BAG_OF_WORDS", "BOTH_SIDES", "BUILD_FILES", "CONTEXTUAL", "CORPORA", "Claim", "DIRECTIONS", "FAILS",
    "FEW_LABELS", "FINE_TUNING", "FINE_TUNING_GAIN", "HEADER", "HOLDS", "LANGUAGE_MODEL", "LAYERS", "LEVEL",
    "LM_FINE_TUNING", "LM_NOTEBOOK", "NER_CURVE", "NOT_MEASURED", "POS_BASELINE", "PRETRAINED_LM", "RESAMPLES",
    "SENSES", "SMOKE_SENTENCES", "STATIC", "STATIC_INPUTS", "TARGET_DOMAIN", "TARGET_RATIO", "TOLERANCE",
    "TRANSFORMERS", "TRANSFORMER_RESULTS", "TRANSFORMER_SENSES", "TRANSFORMER_SPEED", "ULMFIT", "ULMFIT_CURVE",
    "UNTRAINED_SEEDS", "bootstrap_spread", "both_sides_claim", "chance_scores", "claim_text", "claims_html",
    "claims_json", "claims_markdown", "contextual_claim", "few_labels_claim", "fine_tuning_claim",
    "fine_tuning_gain_claim", "format_claims", "language_model_claim", "layer_claim", "measure_claims",
    "not_measured", "pos_baseline_claim", "sense_claim", "sense_scores", "speed_claim", "static_vector_claim",
    "training_corpus", "transfer_claims", "transformer_claims", "ulmfit_claims", "verdict_text"]
