"""Serial against parallel, measured: training tokens per second of ELMo's LSTM biLM and of a
Transformer of about the same number of weights, against sentence length.

An LSTM computes the state of word t from the state of word t - 1, so a sentence of T words takes
T steps one after the other, each a small matrix product over the batch's sentences. A Transformer
computes all T positions of a layer at once, in a few large matrix products, at the price of
attention's T x T scores. With a fixed number of tokens per batch (``batch_tokens``), longer
sentences mean fewer sentences per batch: the LSTM's per-step products shrink, the Transformer's
stay the same size and its attention grows.

:func:`training_throughput` times whole training steps (forward, backward, gradient clipping and
the optimizer's update) on random batches of sentences of exactly ``length`` words, the words drawn
from a Zipf law over the vocabulary (so a batch has as many distinct words as real text, which the
char-CNN of the LSTM model encodes once each):

- ``"lstm"``: the ``cpu`` ELMo preset's biLM (char-CNN, two layers of 512-cell LSTMs projected to
  128 per direction, the adaptive softmax), both directions, as :func:`course.elmo.train_elmo` runs it;
- ``"transformer"``: a causal Transformer (d_model 192, 4 heads, 4 blocks, d_ff 768, tied softmax)
  sized to about the biLM's weights on wiki-en's vocabulary of 8,874 words (3.4 and 3.6 million).

``size="tiny"`` swaps both for toy models of a few thousand weights, for tests.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

import numpy as np
import torch

from ..core.devices import resolve_device
from ..core.errors import SettingError
from ..elmo.config import preset as elmo_preset
from ..lm.precision import autocast
from ..lm.threads import cpu_threads
from .config import TransformerConfig
from .lm import TransformerLM

MODEL_KINDS = ("lstm", "transformer")
SIZES = ("cpu", "tiny")
VOCAB_SIZE = 8_874  # wiki-en's vocabulary (words seen 5 times in the training sentences, and the specials)
NUM_CHARACTERS = 100  # the char-CNN's alphabet: about what wiki-en has


def lstm_config(size: str = "cpu"):
    """The biLM's :class:`~course.elmo.config.ElmoConfig`: the ``cpu`` preset, or a toy for tests."""
    _check_size(size)
    if size == "tiny":
        return elmo_preset("cpu", char_dim=4, filters=((1, 4), (2, 4)), highway_layers=1, projection_dim=8,
                           lstm_dim=16, softmax="full", dropout=0.0, max_sentence_length=1_000)
    return elmo_preset("cpu", max_sentence_length=1_000)


def transformer_config(size: str = "cpu", max_length: int = 128) -> TransformerConfig:
    """The Transformer's settings: about the ``cpu`` biLM's weights on wiki-en, or a toy for tests;
    positions for sentences of up to ``max_length`` words."""
    _check_size(size)
    positions = max(3, max_length + 2)
    if size == "tiny":
        return TransformerConfig(dim=8, heads=2, layers=1, ff_dim=16, max_positions=positions, dropout=0.0)
    return TransformerConfig(dim=192, heads=4, layers=4, ff_dim=768, max_positions=positions, dropout=0.1)


def _check_size(size: str) -> None:
    if size not in SIZES:
        raise SettingError(f"size must be one of {', '.join(SIZES)}, got {size!r}")


def build_network(model_kind: str, size: str = "cpu", vocab_size: int = VOCAB_SIZE, max_length: int = 128,
                  seed: int = 1) -> torch.nn.Module:
    """The network of ``model_kind`` (``"lstm"`` or ``"transformer"``), its weights drawn from ``seed``."""
    if model_kind == "lstm":
        from ..elmo.bilm import BiLM

        return BiLM(lstm_config(size), NUM_CHARACTERS, vocab_size, seed=seed)
    if model_kind == "transformer":
        return TransformerLM(transformer_config(size, max_length), vocab_size, seed=seed)
    raise SettingError(f"model_kind must be one of {', '.join(MODEL_KINDS)}, got {model_kind!r}")


def parameter_count(model_kind: str, size: str = "cpu", vocab_size: int = VOCAB_SIZE) -> int:
    """Weights of that network (the Transformer's position table sized for 128 words)."""
    return sum(p.numel() for p in build_network(model_kind, size, vocab_size).parameters())


class _Batches:
    """Random batches of ``sentences`` sentences of ``length`` words each, words from a Zipf law."""

    def __init__(self, vocab_size: int, max_characters: int, seed: int):
        self.rng = np.random.default_rng(seed)
        self.vocab_size = vocab_size
        lengths = self.rng.integers(3, max_characters - 1, size=vocab_size + 2)  # begin/end marks included
        table = self.rng.integers(1, NUM_CHARACTERS, size=(vocab_size + 2, max_characters))
        table[np.arange(max_characters)[None, :] >= lengths[:, None]] = 0
        self.char_table = table  # a made-up spelling per word id (and <bos>, <eos>)

    def ids(self, sentences: int, length: int) -> np.ndarray:
        """``(B, length + 2)``: <bos> (id 2), Zipf-drawn words (ids 5 ..), <eos> (id 3)."""
        words = 5 + np.minimum(self.rng.zipf(1.2, size=(sentences, length)), self.vocab_size - 5) - 1
        return np.concatenate([np.full((sentences, 1), 2), words, np.full((sentences, 1), 3)], axis=1)

    def batch(self, model_kind: str, sentences: int, length: int, device: torch.device) -> tuple:
        ids = self.ids(sentences, length)
        mask = torch.ones(ids.shape, dtype=torch.bool, device=device)
        if model_kind == "transformer":
            return torch.from_numpy(ids).to(device), mask
        distinct, index = np.unique(ids, return_inverse=True)
        return (torch.from_numpy(self.char_table[distinct]).to(device), mask, torch.from_numpy(ids).to(device),
                torch.from_numpy(index.reshape(ids.shape)).to(device), sentences * (length + 1))


def _step(model_kind: str, network, optimizer, batch, device: torch.device, precision: str, softmax: bool) -> None:
    with autocast(device, torch.bfloat16 if precision == "bf16" else None):
        if model_kind == "transformer" and softmax:
            loss, _, _ = network.loss(*batch)
        elif model_kind == "transformer":  # the blocks alone: a stand-in loss on the top states
            loss = network(*batch).layers[-1].float().square().mean()
        elif softmax:
            char_ids, mask, targets, index, predictions = batch
            loss, _, _ = network.loss(char_ids, mask, targets, index, predictions)
        else:  # the char-CNN and the LSTMs alone
            char_ids, mask, _, index, _ = batch
            states = network(char_ids, mask, index)
            loss = states.forward[-1].float().square().mean() + states.backward[-1].float().square().mean()
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(network.parameters(), 1.0)
    optimizer.step()


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def training_throughput(model_kind: str | Sequence[str], lengths=(8, 16, 32, 64, 128), batch_tokens: int = 2_000,
                        repeats: int = 3, device: str = "cpu", threads: int = 1, size: str = "cpu",
                        vocab_size: int = VOCAB_SIZE, precision: str = "fp32", warmup: int = 1,
                        seed: int = 1, softmax: bool = True) -> list[dict]:
    """Time training steps of one kind of network, or of several in turn, at each sentence length.

    Several kinds (``("lstm", "transformer")``) are timed in pairs: at each length and repeat one step of
    each, back to back, the first of the pair alternating from repeat to repeat, so that a change in the
    machine's speed (another job, the clock) touches both networks alike and each repeat's ratio compares
    steps taken seconds apart. Each kind draws the same batches and starting weights as when timed alone.

    Args:
        model_kind: ``"lstm"`` (ELMo's biLM) or ``"transformer"``, or a sequence of them.
        lengths: words per sentence (every sentence of a batch has exactly that many, plus
            ``<bos>`` and ``<eos>``).
        batch_tokens: words per batch: ``max(1, batch_tokens // length)`` sentences.
        repeats: timed steps per length (each one a fresh batch), after ``warmup`` untimed ones.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"``; threads: CPU threads for torch during the run.
        size: ``"cpu"`` (the sizes above) or ``"tiny"`` (toys, for tests).
        vocab_size: words of the softmax; precision: ``"fp32"`` or ``"bf16"`` (autocast).
        softmax: time the whole language model (True), or only its body (False: the char-CNN and
            LSTMs, or the blocks, under a stand-in loss, the mean square of the top states), which
            isolates the recurrence from attention: the two softmaxes differ (the biLM's adaptive
            one is cheaper per word than the Transformer's full tied one).

    Returns:
        One plain dict per timed step, in the order they were taken: ``model``, ``length``, ``repeat``,
        ``sentences``, ``tokens`` (words in the batch), ``seconds``, ``tokens_per_second``, ``parameters``,
        ``device``, ``threads``, ``precision``, ``softmax``.

    Raises:
        SettingError: an unknown model kind or size, no lengths, a length below 1, or a
            non-positive number of repeats or batch tokens.
    """
    kinds = [model_kind] if isinstance(model_kind, str) else list(model_kind)
    lengths = [int(length) for length in lengths]
    if not kinds or len(set(kinds)) != len(kinds):
        raise SettingError(f"model_kind must name each kind once, got {model_kind!r}")
    if not lengths or min(lengths) < 1:
        raise SettingError(f"lengths must be at least 1 word each, got {lengths}")
    if repeats < 1 or batch_tokens < 1 or warmup < 0:
        raise SettingError(f"need repeats >= 1, batch_tokens >= 1 and warmup >= 0, got {repeats}, {batch_tokens}, "
                           f"{warmup}")
    if precision not in ("fp32", "bf16"):
        raise SettingError(f"precision must be fp32 or bf16, got {precision!r}")
    where = resolve_device(device)
    timers = {kind: _Timer(kind, size, vocab_size, max(lengths), seed, where) for kind in kinds}
    rows = []
    with cpu_threads(where, threads):
        for length in lengths:
            sentences = max(1, batch_tokens // length)
            for repeat in range(-warmup, repeats):
                for kind in kinds if repeat % 2 == 0 else kinds[::-1]:
                    timer = timers[kind]
                    seconds = timer.step(sentences, length, precision, softmax)
                    if repeat >= 0:
                        rows.append({"model": kind, "length": length, "repeat": repeat, "sentences": sentences,
                                     "tokens": sentences * length, "seconds": seconds,
                                     "tokens_per_second": sentences * length / seconds,
                                     "parameters": timer.parameters, "device": str(where),
                                     "threads": threads if where.type == "cpu" else None,
                                     "precision": precision, "softmax": softmax})
    return rows


class _Timer:
    """One kind of network with its optimizer and its own stream of batches, timing one step at a time."""

    def __init__(self, model_kind: str, size: str, vocab_size: int, max_length: int, seed: int,
                 device: torch.device):
        self.kind, self.device = model_kind, device
        self.network = build_network(model_kind, size, vocab_size, max_length, seed).to(device).train()
        self.parameters = sum(p.numel() for p in self.network.parameters())
        optimizer_class = torch.optim.AdamW if model_kind == "transformer" else torch.optim.Adam
        self.optimizer = optimizer_class(self.network.parameters(), lr=1e-4)
        config = lstm_config(size) if model_kind == "lstm" else None
        self.batches = _Batches(vocab_size, config.max_characters if config else 20, seed)

    def step(self, sentences: int, length: int, precision: str, softmax: bool) -> float:
        """Seconds of one training step on a fresh batch (its making not timed)."""
        batch = self.batches.batch(self.kind, sentences, length, self.device)
        _synchronize(self.device)
        start = time.perf_counter()
        _step(self.kind, self.network, self.optimizer, batch, self.device, precision, softmax)
        _synchronize(self.device)
        return time.perf_counter() - start


def median_table(rows: list[dict]) -> list[dict]:
    """The median tokens/second per (model, length, threads, softmax) of :func:`training_throughput`'s
    rows, and the Transformer's median over the LSTM's where both were measured:
    ``[{"length", "threads", "softmax", "<model>": median, ..., "ratio"}]``, by softmax (with it
    first), threads, then length."""
    groups: dict[tuple, dict] = {}
    for row in rows:
        key = (not row.get("softmax", True), row.get("threads") or 0, row["length"])
        groups.setdefault(key, {}).setdefault(row["model"], []).append(row["tokens_per_second"])
    table = []
    for (body, threads, length), by_model in sorted(groups.items()):
        entry = {"length": length, "threads": threads or None, "softmax": not body,
                 **{model: statistics.median(values) for model, values in by_model.items()}}
        if "lstm" in entry and "transformer" in entry:
            entry["ratio"] = entry["transformer"] / entry["lstm"]
        table.append(entry)
    return table


__all__ = ["MODEL_KINDS", "build_network", "lstm_config", "median_table", "parameter_count", "training_throughput",
           "transformer_config"]
