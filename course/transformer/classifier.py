"""Fine-tuning a pretrained course Transformer on labelled texts: GPT's input transformation and
BERT's ``[CLS]`` (Radford et al., 2018, section 3.3; Devlin et al., 2019, sections 3 and 4).

The pretrained network is copied (the model given is never changed); each text of n words (cut to
``max_tokens``, unseen words as ``<unk>``, as the pretrained model reads them) is wrapped as its
paper does, and a linear head reads one position's top state h (the last block's output, under the
pretrained final layer norm LN):

GPT-style, for a causal model, the *input transformation*:

    <start> w_1 .. w_n <extract>                                       (n + 2 positions)

``<start>`` and ``<extract>`` are two new rows appended to the pretrained table,
E' = [E; e_start; e_extract] of ``(V + 2, d)``, drawn from N(0, 0.02^2); the V pretrained rows are
unchanged at step 0. In a causal model only the last position has read the whole text, so the head
reads h^m, the top state at ``<extract>``:

    P(y | x) = softmax(Dropout(LN(h^m)) W_y + b_y),                    W_y (d, C), b_y (C,)
    L_3 = L_2 + lambda L_1,    L_2 = -log P(y | x),    lambda = ``lm_weight`` (0.5 in the paper)
    L_1 = -(1 / n) sum_{t=0}^{n-1} log p(w_{t+1} | <start> w_1 .. w_t)

L_1, the auxiliary language-model loss, is the pretrained model's own objective on the task's text,
with its tied softmax over the V words (LN(h_t) E^T + b).

BERT-style, for a masked model: ``[CLS] w_1 .. w_n [SEP]``, each position's input the sum

    x_t = E[w_t] + P[t] + S[s_t],           S (2, d): the segment table, s_t = 0 (segment A)

``[CLS]`` and ``[SEP]`` are the pretrained ``<bos>`` and ``<eos>``: the course's BERT read every
sentence between them, at these places. It was pretrained on single sentences, without segments or
next-sentence prediction (:mod:`~course.transformer.bert_input`), so S is new here and starts at
zero, leaving the pretrained input unchanged at step 0; a single text is one segment, A, so only
S[0] trains (a second segment, B, is for pairs of texts). A BERT pretrained on pairs
(:mod:`~course.transformer.next_sentence`) brings its own S. The head reads the top state at
``[CLS]``, with no pooler (BERT's tanh pooler was trained by next-sentence prediction, which the
course's BERT never had; the same head for every BERT keeps them comparable):

    P(y | x) = softmax(Dropout(LN(h_[CLS])) W_y + b_y),               L = -log P(y | x)

BERT fine-tunes on the task's loss alone, so ``lm_weight`` is not used for a masked model.

A *pair* of texts (A, B), given as a 2-tuple of word lists, is wrapped as each paper wraps one for a
pair task, each text cut to fit the position table:

- GPT, for similarity (section 3.3): the two orders, each with a delimiter (a third new row,
  ``<delim>``), run through the network apart, and the two top states at ``<extract>`` added
  before the head, since "same or not" does not depend on the order:

      <start> A <delim> B <extract>   and   <start> B <delim> A <extract>,     h = h^m_AB + h^m_BA

  with the auxiliary LM loss over the words of both sequences;
- BERT: ``[CLS] A [SEP] B [SEP]``, s_t = 0 from ``[CLS]`` to the first ``[SEP]`` and 1 after it. A
  network pretrained with segments and next-sentence prediction
  (:mod:`~course.transformer.next_sentence`) brings its S; for the others S starts at zero, and
  S[1] learns during fine-tuning what marks the second text.

Training (:func:`fine_tune`): AdamW (weight decay on the weight matrices only), the learning rate
rising linearly over the first ``warmup_share`` of the steps and then falling linearly to 0 (as both
papers), gradients clipped to norm ``clip_norm``, batches of ``batch_size`` texts of similar length
drawn from (seed, epoch). The dev error is measured after ``evaluations`` epochs evenly spread (the
last included); the weights of the best measurement are kept and training stops after ``patience``
measurements without a better one (:func:`course.supervised.fit`, the loop of the tagger and ULMFiT's
classifier; ties keep the earlier epoch), so the epoch is chosen on dev, never on test.

:func:`fine_tune_runs` fine-tunes one classifier per model, number of labelled reviews and seed, the
runs side by side on the CPU's cores (:func:`course.core.parallel.run_jobs`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import torch
from torch import nn

from ..core.devices import resolve_device
from ..core.errors import SettingError
from ..core.fields import (
    BATCH,
    EPOCHS,
    EVALUATIONS,
    PATIENCE,
    RATE,
    SEED,
    SHARE,
    THREADS,
    Range,
    check_settings,
    choose_preset,
    setting,
)
from ..core.parallel import run_jobs
from ..lm.precision import autocast
from ..lm.threads import cpu_threads
from ..supervised import LoopConfig, evaluation_epochs, fit, pooled_batches
from .model import Transformer
from .perplexity import precision_dtype

# The pretrained vocabulary must hold at least this share of the labelled texts' words. Of the reviews' words the
# course's People's Daily Transformers hold 78%, their smoke versions 38%, the English wiki-en ones 1.7%.
MIN_COVERAGE = 0.25
STYLES = {"causal": "GPT", "masked": "BERT"}


@dataclass(frozen=True)
class FineTuneConfig:
    """The settings of fine-tuning a pretrained Transformer with a classifier head."""

    lm_weight: float = setting(0.5, "GPT-style: lambda, the weight of the auxiliary language-model loss (0: "
                                    "none); a masked model fine-tunes on the task's loss alone", range=Range(0, 100))
    max_tokens: int = setting(100, "a text is cut to its first max_tokens words (and to the position table)",
                              range=Range(1, 100_000))
    dropout: float = setting(0.1, "dropout on the head's input (the network keeps its own)", range=SHARE)
    epochs: int = setting(10, "passes over the labelled texts", range=EPOCHS)
    evaluations: int = setting(5, "dev evaluations over the run, evenly spread, the last epoch's included; the "
                                  "best one's weights are kept", range=EVALUATIONS)
    batch_size: int = setting(16, "texts per step", range=BATCH)
    lr: float = setting(5e-4, "AdamW's largest learning rate, after the warm-up (chosen on dev reviews)", range=RATE)
    warmup_share: float = 0.1  # of all steps, the rate rising linearly from 0; then falling linearly to 0
    weight_decay: float = 0.01
    clip_norm: float = 1.0
    patience: int = setting(0, "stop after this many dev evaluations without a better error (0: never)", range=PATIENCE)
    seed: int = setting(1, "draws the new rows, the head, the batches and dropout", range=SEED)
    threads: int = setting(1, "CPU threads for torch", range=THREADS)
    device: str = setting("auto", "auto (CUDA if present), cpu or cuda")
    preset: str = field(default="custom", compare=False)

    def __post_init__(self):
        check_settings(self)
        checks = [
            (self.lm_weight >= 0, f"lm_weight (lambda) must not be negative, got {self.lm_weight}"),
            (self.max_tokens >= 1, f"max_tokens must be at least 1, got {self.max_tokens}"),
            (0 <= self.dropout < 1, f"dropout must be in [0, 1), got {self.dropout}"),
            (self.epochs >= 1, f"epochs must be at least 1, got {self.epochs}"),
            (self.evaluations >= 1, f"evaluations must be at least 1, got {self.evaluations}"),
            (self.batch_size >= 1, f"batch_size must be at least 1, got {self.batch_size}"),
            (self.lr > 0, f"lr must be positive, got {self.lr}"),
            (0 <= self.warmup_share < 1, f"warmup_share must be in [0, 1), got {self.warmup_share}"),
            (self.weight_decay >= 0, f"weight_decay must not be negative, got {self.weight_decay}"),
            (self.clip_norm > 0, f"clip_norm must be positive, got {self.clip_norm}"),
            (self.patience >= 0, f"patience must not be negative, got {self.patience}"),
            (self.threads >= 1, f"threads must be at least 1, got {self.threads}"),
        ]
        for ok, message in checks:
            if not ok:
                raise SettingError(message)

    def to_dict(self) -> dict:
        return asdict(self)


PRESETS: dict[str, FineTuneConfig] = {
    "cpu": FineTuneConfig(preset="cpu"),  # the course's cpu Transformers on a 2-core CPU
    "smoke": FineTuneConfig(epochs=2, max_tokens=30, preset="smoke"),  # tests the mechanics in seconds
}


def preset(name: str, **overrides) -> FineTuneConfig:
    """The preset ``name`` (``"cpu"`` or ``"smoke"``) with any field replaced by ``overrides``.

    Raises:
        SettingError: an unknown preset or field, or a value that makes no sense.
    """
    return choose_preset(PRESETS, name, overrides, "fine-tuning")


def word_coverage(model: Transformer, texts: Sequence[Sequence[str]]) -> float:
    """The share of the words of ``texts`` that ``model``'s vocabulary holds (the rest are ``<unk>`` to it)."""
    known = model.words.word_to_id
    words = [word for text in texts for word in text]
    return sum(word in known for word in words) / max(len(words), 1)


def check_language(model: Transformer, texts: Sequence[Sequence[str]]) -> float:
    """Refuse a model pretrained on another language: one whose vocabulary holds less than
    :data:`MIN_COVERAGE` of the words of ``texts``. Returns the coverage.

    Raises:
        SettingError: one line with the coverage and what to do.
    """
    share = word_coverage(model, texts)
    if share < MIN_COVERAGE:
        raise SettingError(f"the pretrained model knows {share:.1%} of the words of these texts (at least "
                           f"{MIN_COVERAGE:.0%} needed): it was pretrained on another language or corpus; pretrain "
                           f"it on text like these, e.g. course_transformer('peoples-daily-zh', ...) for Chinese")
    return share


class TransformerClassifier(nn.Module):
    """A copy of a pretrained Transformer with its input wrapped as its paper does and a linear head
    on one position (see the module's docstring).

    Args:
        model: the pretrained :class:`~course.transformer.model.Transformer` (causal: GPT-style; masked:
            BERT-style); it is copied, never changed.
        classes: C, how many labels.
        config: the settings (``seed`` draws the new rows and the head, ``max_tokens`` cuts the texts).

    Attributes (after :func:`fine_tune`): ``history`` (per epoch: ``epoch``, the mean task ``loss`` and
    ``lm_loss``, ``dev_error``, None where dev was not measured), ``best_epoch``, ``epochs`` (run) and
    ``seconds`` (in training steps, evaluations not counted).
    """

    def __init__(self, model: Transformer, classes: int = 2, config: FineTuneConfig = FineTuneConfig()):
        super().__init__()
        self.words, self.model_config, self.config = model.words, model.config, config
        self.style = STYLES[model.config.objective]
        self.vocab_size = len(model.words)
        self.max_tokens = min(config.max_tokens, model.config.max_words)
        self.network = copy.deepcopy(model.network).cpu()
        dim = model.config.dim
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(config.seed)
            if self.style == "GPT":
                pretrained = self.network.token_embedding.weight.detach()
                table = nn.Embedding(self.vocab_size + 3, dim)  # E' = [E; e_start; e_extract; e_delim]
                with torch.no_grad():
                    table.weight[:self.vocab_size] = pretrained
                    nn.init.normal_(table.weight[self.vocab_size:], std=0.02)
                self.network.token_embedding = table
                self.start_id, self.end_id = self.vocab_size, self.vocab_size + 1
                self.delimiter_id = self.vocab_size + 2
            else:
                self.start_id, self.end_id = model.words.bos_id, model.words.eos_id  # [CLS], [SEP]
                self.delimiter_id = self.end_id  # [SEP] between A and B
                self.network.add_segments()  # S: segments A and B, zeros unless pretrained with pairs
            self.dropout = nn.Dropout(config.dropout)
            self.head = nn.Linear(dim, classes)  # W_y, b_y
            nn.init.normal_(self.head.weight, std=0.02)
            nn.init.zeros_(self.head.bias)
        self.to(model.device)

    @property
    def device(self) -> torch.device:
        return self.head.weight.device

    @property
    def segment_embedding(self) -> nn.Embedding | None:
        """S ``(2, d)``, BERT's segment table (None for GPT)."""
        return self.network.segment_embedding

    @property
    def start_token(self) -> str:
        return "<start>" if self.style == "GPT" else "[CLS]"

    @property
    def end_token(self) -> str:
        return "<extract>" if self.style == "GPT" else "[SEP]"

    def _cut(self, text, pair: bool) -> np.ndarray:
        """A text's ids, cut to ``max_tokens`` words, and for one of a pair to half the position table."""
        limit = min(self.max_tokens, (self.model_config.max_words - 1) // 2) if pair else self.max_tokens
        return self.words.encode(list(text)[:limit])

    def sequences(self, texts) -> tuple[list[list[int]], list[list[int]]]:
        """The id sequences the network reads and their segments: one per single text
        (``start w_1 .. w_n end``), and per pair (a 2-tuple of word lists) BERT's one
        (``[CLS] A [SEP] B [SEP]``, segments 0 .. 0 1 .. 1) or GPT's two orders, all the first orders
        and then all the second ones (``<start> A <delim> B <extract>``, then B before A)."""
        pairs = [is_pair(text) for text in texts]
        if any(pairs) and not all(pairs):
            raise SettingError("give single texts or pairs of texts, not both in one batch")
        if not any(pairs):
            ids = [[self.start_id, *self._cut(text, False), self.end_id] for text in texts]
            return ids, [[0] * len(row) for row in ids]
        cut = [(self._cut(a, True), self._cut(b, True)) for a, b in texts]
        if self.style == "BERT":
            ids = [[self.start_id, *a, self.delimiter_id, *b, self.end_id] for a, b in cut]
            return ids, [[0] * (len(a) + 2) + [1] * (len(b) + 1) for a, b in cut]
        ids = [[self.start_id, *first, self.delimiter_id, *second, self.end_id]
               for order in (0, 1) for first, second in (pair if order == 0 else pair[::-1] for pair in cut)]
        return ids, [[0] * len(row) for row in ids]

    def inputs(self, texts) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(ids, mask, segments)``, each ``(R, T)``, of :meth:`sequences` padded to the longest
        (R = B, or 2B for GPT's pairs); ``mask`` is True at real positions."""
        sequences, segments = self.sequences(texts)
        width = max(len(row) for row in sequences)
        ids = np.full((len(sequences), width), self.words.pad_id, dtype=np.int64)
        mask = np.zeros((len(sequences), width), dtype=bool)
        segment_ids = np.zeros((len(sequences), width), dtype=np.int64)
        for row, (sequence, segment) in enumerate(zip(sequences, segments, strict=True)):
            ids[row, :len(sequence)], segment_ids[row, :len(sequence)] = sequence, segment
            mask[row, :len(sequence)] = True
        return tuple(torch.from_numpy(a).to(self.device) for a in (ids, mask, segment_ids))

    def top_states(self, ids: torch.Tensor, mask: torch.Tensor, segments: torch.Tensor | None = None) -> torch.Tensor:
        """``(R, T)`` ids, mask and segments -> ``(R, T, d)`` top states: the blocks over
        x_t = E'[id_t] + P[t] (+ S[s_t] for BERT), as the pretrained network computes them, its
        causal mask included for GPT."""
        return self.network(ids, mask, segments=segments).layers[-1]

    def read_positions(self, mask: torch.Tensor) -> torch.Tensor:
        """``(B,)`` the position the head reads: ``<extract>`` (the last real one) for GPT, ``[CLS]`` (0) for BERT."""
        return mask.sum(1) - 1 if self.style == "GPT" else torch.zeros(mask.shape[0], dtype=torch.long,
                                                                        device=mask.device)

    def logits_and_lm_loss(self, texts: Sequence[Sequence[str]]) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (B, C), L_1)``: the head's scores, and for GPT the auxiliary LM loss L_1, the mean
        -log p(w_{t+1} | <start> w_1 .. w_t) over the texts' words (0 for BERT). ``texts``: lists of
        words, or 2-tuples of them (pairs)."""
        ids, mask, segments = self.inputs(texts)
        top = self.top_states(ids, mask, segments)  # (R, T, d)
        normed = self.network.final_norm(top)
        read = normed[torch.arange(len(ids), device=ids.device), self.read_positions(mask)]  # (R, d)
        if len(read) == 2 * len(texts):  # GPT's two orders of each pair: h = h^m_AB + h^m_BA
            read = read[:len(texts)] + read[len(texts):]
        logits = self.head(self.dropout(read)).float()
        if self.style != "GPT":
            return logits, logits.new_zeros(())
        targets = ids[:, 1:]
        predicted = mask[:, 1:] & (targets != self.end_id) & (targets != self.delimiter_id)  # the words only
        if not predicted.any():
            return logits, logits.new_zeros(())
        # the pretrained softmax over its V words (not <start> and <extract>, the rows added after them)
        return logits, -self.network.target_log_probabilities(top[:, :-1][predicted], targets[predicted]).mean()

    def forward(self, texts: Sequence[Sequence[str]]) -> torch.Tensor:
        """Lists of words (or pairs of them) -> ``(B, C)`` logits."""
        return self.logits_and_lm_loss(texts)[0]

    def loss(self, texts: Sequence[Sequence[str]], labels: Sequence[int],
             lm_weight: float | None = None) -> torch.Tensor:
        """L_3 = L_2 + lambda L_1 (GPT) or L_2 (BERT), means over the batch; ``lm_weight``: lambda
        (default ``config.lm_weight``)."""
        weight = self.config.lm_weight if lm_weight is None else lm_weight
        if weight < 0:
            raise SettingError(f"lm_weight (lambda) must not be negative, got {weight}")
        logits, lm_loss = self.logits_and_lm_loss(texts)
        task = nn.functional.cross_entropy(logits, torch.as_tensor(list(labels), device=logits.device))
        return task + weight * lm_loss if self.style == "GPT" else task

    @torch.no_grad()
    def predict(self, texts: Sequence[Sequence[str]], batch_size: int = 64) -> np.ndarray:
        """The most likely label of each text (int array), in eval mode (then back to the mode it was in)."""
        texts = [as_text(t) for t in texts]
        was_training = self.training
        self.eval()
        out = np.zeros(len(texts), dtype=np.int64)
        order = np.argsort([text_length(t) for t in texts], kind="stable")
        try:
            with autocast(self.device, precision_dtype(self.model_config, self.device)):
                for start in range(0, len(order), batch_size):
                    rows = order[start:start + batch_size]
                    out[rows] = self([texts[i] for i in rows]).argmax(-1).cpu().numpy()
        finally:
            self.train(was_training)
        return out

    def error_rate(self, texts: Sequence[Sequence[str]], labels: Sequence[int]) -> float:
        """The share of ``texts`` whose label it gets wrong."""
        return float(np.mean(self.predict(texts) != np.asarray(list(labels))))


def is_pair(text) -> bool:
    """Whether ``text`` is a pair of texts (a 2-tuple of word lists), not a list of words."""
    return isinstance(text, tuple) and len(text) == 2 and all(not isinstance(part, str) for part in text)


def as_text(text):
    """A list of words, or a pair of lists of words (a :class:`~course.tasks.pairs.SentencePair`'s two
    sentences, or any 2-tuple of word lists)."""
    if hasattr(text, "first") and hasattr(text, "second"):
        return (list(text.first), list(text.second))
    return (list(text[0]), list(text[1])) if is_pair(text) else list(text)


def text_length(text) -> int:
    """Words of a text, or of both texts of a pair."""
    return len(text[0]) + len(text[1]) if is_pair(text) else len(text)


def learning_rate(config: FineTuneConfig, step: int, total_steps: int) -> float:
    """lr_t = lr (t + 1) / W for t < W = max(1, warmup_share T), then lr (T - t) / (T - W): linear to 0."""
    warmup = max(1, round(config.warmup_share * total_steps))
    if step < warmup:
        return config.lr * (step + 1) / warmup
    return config.lr * max(0.0, (total_steps - step) / max(1, total_steps - warmup))


def fine_tune(model: Transformer, texts: Sequence[Sequence[str]], labels: Sequence[int],
              dev_texts: Sequence[Sequence[str]], dev_labels: Sequence[int],
              config: FineTuneConfig = FineTuneConfig(), classes: int | None = None,
              progress: bool = False) -> TransformerClassifier:
    """Fine-tune ``model`` (a copy of it) with a classifier head on labelled texts, keeping its best
    epoch on the dev texts.

    Args:
        model: the pretrained Transformer: causal (GPT-style input transformation, head on
            ``<extract>``, auxiliary LM loss weighted ``config.lm_weight``) or masked (BERT-style,
            head on ``[CLS]``).
        texts, labels: lists of words and their labels 0 .. C - 1.
        dev_texts, dev_labels: where the epoch is chosen.
        classes: C (default: the largest label + 1, at least 2).

    Returns:
        The :class:`TransformerClassifier` with the best epoch's weights, in eval mode.

    Raises:
        SettingError: no texts or no dev texts, labels that do not match the texts, or a model whose
            vocabulary holds less than :data:`MIN_COVERAGE` of the texts' words (another language).
    """
    texts, dev_texts = [as_text(t) for t in texts], [as_text(t) for t in dev_texts]
    labels, dev_labels = np.asarray(list(labels), dtype=np.int64), np.asarray(list(dev_labels), dtype=np.int64)
    if not texts or not dev_texts:
        raise SettingError("fine-tuning needs labelled texts and dev texts to choose the epoch on")
    if len(labels) != len(texts) or len(dev_labels) != len(dev_texts):
        raise SettingError(f"{len(texts)} texts with {len(labels)} labels and {len(dev_texts)} dev texts with "
                           f"{len(dev_labels)} labels: give one label per text")
    classes = classes or max(2, int(max(labels.max(), dev_labels.max())) + 1)
    if labels.min() < 0 or max(labels.max(), dev_labels.max()) >= classes:
        raise SettingError(f"labels must be 0 .. {classes - 1}")
    check_language(model, [words for text in texts for words in (text if is_pair(text) else [text])])
    device = resolve_device(config.device)
    dtype = precision_dtype(model.config, device)
    classifier = TransformerClassifier(model, classes, config).to(device)
    decay = [p for p in classifier.parameters() if p.dim() >= 2]
    rest = [p for p in classifier.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                                   {"params": rest, "weight_decay": 0.0}], lr=config.lr)
    lengths = np.array([min(text_length(t), classifier.max_tokens) for t in texts])
    total_steps = config.epochs * math.ceil(len(texts) / config.batch_size)
    step = 0

    def train_epoch(epoch: int) -> dict:
        nonlocal step
        classifier.train()
        torch.manual_seed(config.seed * 1_000 + epoch)
        losses, lm_losses = [], []
        for rows in pooled_batches(lengths, config.batch_size, np.random.default_rng([config.seed, epoch])):
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(config, step, total_steps)
            with autocast(device, dtype):
                logits, lm_loss = classifier.logits_and_lm_loss([texts[i] for i in rows])
            task = nn.functional.cross_entropy(logits, torch.from_numpy(labels[rows]).to(device))
            loss = task + config.lm_weight * lm_loss if classifier.style == "GPT" else task
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(classifier.parameters(), config.clip_norm)
            optimizer.step()
            losses.append(task.item())
            lm_losses.append(lm_loss.item())
            step += 1
        return {"loss": float(np.mean(losses)), "lm_loss": float(np.mean(lm_losses))}

    loop = LoopConfig(config.epochs, frozenset(evaluation_epochs(config.epochs, config.evaluations)), "error",
                      higher_is_better=False, patience=config.patience, every_epoch=True,
                      description=f"fine-tuning {classifier.style}",
                      advice=f"use a smaller lr (FineTuneConfig.lr, now {config.lr})")
    with cpu_threads(device, config.threads):
        state = fit(classifier, optimizer, train_epoch, lambda: classifier.error_rate(dev_texts, dev_labels), loop,
                    progress=progress)
    classifier.eval()
    classifier.history, classifier.best_epoch = state.history, state.best_epoch
    classifier.epochs, classifier.seconds = state.epoch, state.seconds
    return classifier


def fine_tune_runs(models: dict[str, Transformer], data, counts: Sequence[int | str], seeds: Sequence[int],
                   dev, test, config: FineTuneConfig = FineTuneConfig(), workers: int | None = None,
                   on_run: Callable[[dict], None] | None = None) -> list[dict]:
    """Fine-tune every model on every number of labelled reviews and seed, as notebook 10's classifiers are.

    Args:
        models: ``{name: pretrained Transformer}``; the name is the rows' ``variant``.
        data: the :class:`~course.tasks.reviews.ReviewData` (labelled reviews drawn from its train split,
            with ``seed``, the ones notebook 10 draws).
        dev, test: the reviews to choose the epoch on and to measure on.
        config: the settings (``seed`` is set per run).
        workers: runs at once, each in a process of its own (None: every core;
            :func:`course.core.parallel.run_jobs`); the rows are the same for any number.
        on_run: called with each row, in the order of the runs, as it is done.

    Returns:
        One dict per run, model by model, then count, then seed: ``variant``, ``labels``, ``seed``,
        ``error`` (test), ``dev_error`` (of the kept epoch), ``best_epoch``, ``epochs``, ``seconds``.
    """
    jobs = [(name, model, data, count, seed, dev, test, config)
            for name, model in models.items() for count in counts for seed in seeds]
    return run_jobs(fine_tune_run, jobs, workers, None if on_run is None else lambda _, row: on_run(row))


def fine_tune_run(name: str, model: Transformer, data, count: int | str, seed: int, dev, test,
                  config: FineTuneConfig = FineTuneConfig()) -> dict:
    """One run of :func:`fine_tune_runs`: ``count`` reviews drawn with ``seed``, ``model`` fine-tuned on them and
    measured (its row)."""
    train = data.training_reviews(count, seed=seed)
    classifier = fine_tune(model, [r.words for r in train], [r.label for r in train], [r.words for r in dev],
                           [r.label for r in dev], replace(config, seed=seed))
    return {"variant": name, "labels": len(train), "seed": seed,
            "error": classifier.error_rate([r.words for r in test], [r.label for r in test]),
            "dev_error": classifier.history[classifier.best_epoch - 1]["dev_error"],
            "best_epoch": classifier.best_epoch, "epochs": classifier.epochs, "seconds": classifier.seconds}


def pair_task_runs(models: dict[str, Transformer], data, seeds: Sequence[int],
                   config: FineTuneConfig = FineTuneConfig(),
                   workers: int | None = None, on_run: Callable[[dict], None] | None = None) -> list[dict]:
    """Fine-tune every model on the sentence-pair task with every seed (notebook 11's section 9c).

    Args:
        models: ``{name: pretrained Transformer}``; the name is the rows' ``variant``.
        data: a :class:`~course.tasks.pairs.PairData`: all of its train pairs, the epoch chosen on its dev
            pairs, the error measured on its test pairs.
        config: the settings (``seed`` is set per run); workers, on_run: as :func:`fine_tune_runs`'s.

    Returns:
        One dict per run, model by model, then seed: ``variant``, ``labels``, ``seed``, ``error`` (test),
        ``dev_error`` (of the kept epoch), ``best_epoch``, ``epochs``, ``seconds``.
    """
    jobs = [(name, model, data, seed, config) for name, model in models.items() for seed in seeds]
    return run_jobs(pair_task_run, jobs, workers, None if on_run is None else lambda _, row: on_run(row))


def pair_task_run(name: str, model: Transformer, data, seed: int, config: FineTuneConfig = FineTuneConfig()) -> dict:
    """One run of :func:`pair_task_runs` (its row)."""
    labels = [pair.label for pair in data.train]
    classifier = fine_tune(model, data.train, labels, data.dev, [pair.label for pair in data.dev],
                           replace(config, seed=seed))
    return {"variant": name, "labels": len(labels), "seed": seed,
            "error": classifier.error_rate(data.test, [pair.label for pair in data.test]),
            "dev_error": classifier.history[classifier.best_epoch - 1]["dev_error"],
            "best_epoch": classifier.best_epoch, "epochs": classifier.epochs, "seconds": classifier.seconds}
