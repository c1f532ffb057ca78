"""Training the biLM: batches of equal-length sentences, Adam with a linearly falling learning
rate, gradient clipping, held-out perplexity per direction, checkpoints and resuming.

On CUDA the LSTMs are cuDNN's and the forward and backward passes run in mixed precision
(``torch.autocast`` with a gradient scaler; float16 by default, or bfloat16 for the rest of the
network); on a CPU with bfloat16 matrix units they run in bfloat16 (see :func:`autocast_dtype`),
elsewhere in float32. Every ``config.heldout_every``-th sentence is held
out: the vocabulary is counted on the rest, and the held-out perplexity of each direction is
measured after every epoch.
"""

from __future__ import annotations

import math
import os
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import torch

from ..devices import resolve_device
from ..errors import ModelFileError, SettingError
from ..vocab import Vocabulary, VocabularyConfig
from .batching import LanguageModelData
from .characters import CharacterVocabulary
from .config import ElmoConfig, preset
from .model import Elmo

LOG_EVERY = 10  # steps between the loss read-outs (each one waits for the GPU)
RESUMABLE_CHANGES = {"device", "threads", "checkpoint_every", "preset"}  # settings a resumed run may change


def split_heldout(corpus, config: ElmoConfig) -> tuple[np.ndarray, np.ndarray]:
    """Sentence numbers ``(training, held_out)``: sentence i is held out when
    ``i % heldout_every == heldout_every - 1``."""
    numbers = np.arange(corpus.num_sentences)
    held = numbers % config.heldout_every == config.heldout_every - 1
    return numbers[~held], numbers[held]


def _subset(corpus, sentences: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(token_ids, offsets)`` of some sentences of ``corpus``."""
    starts, ends = corpus.offsets[sentences], corpus.offsets[sentences + 1]
    lengths = ends - starts
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    positions = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
    return corpus.token_ids[positions], offsets


def vocabularies(corpus, train_sentences: np.ndarray, config: ElmoConfig) -> tuple[Vocabulary, CharacterVocabulary]:
    """The softmax vocabulary (words of the training sentences seen ``min_count`` times, with
    ``<pad>``, ``<unk>``, ``<bos>``, ``<eos>``) and the character vocabulary (every character)."""
    token_ids, _ = _subset(corpus, train_sentences)
    counts = np.bincount(token_ids, minlength=len(corpus.types))
    words = Vocabulary.from_counts(list(zip(corpus.types, counts.tolist(), strict=True)),
                                   VocabularyConfig(min_count=config.min_count, max_size=config.max_vocab))
    seen = counts > 0
    characters = CharacterVocabulary.from_words(np.asarray(corpus.types, dtype=object)[seen].tolist(),
                                                counts[seen].tolist(), max_characters=config.max_characters)
    return words, characters


def language_model_data(corpus, sentences: np.ndarray, model: Elmo) -> LanguageModelData:
    token_ids, offsets = _subset(corpus, sentences)
    return LanguageModelData(corpus.types, token_ids, offsets, model.words, model.characters,
                             model.config.max_sentence_length)


def autocast_dtype(config: ElmoConfig, device: torch.device):
    """The autocast dtype for ``config.precision`` on ``device``, or None for float32.

    CUDA: ``auto`` is float16. Under autocast PyTorch runs cuDNN LSTMs in float16 whatever the
    dtype asked for, so with ``bf16`` the LSTMs still compute in float16: training therefore
    scales the loss (``GradScaler``) in both cases, which keeps small LSTM gradients from
    vanishing in float16.

    CPU: ``auto`` is bfloat16 where the processor multiplies bfloat16 matrices natively (AVX-512
    BF16 or AMX; about twice as fast as float32 for the LSTMs), else float32. The weights, the
    optimiser and the softmax stay in float32, bfloat16 has float32's range (no loss scaling), and
    the held-out perplexity is measured in float32.
    """
    if device.type != "cuda":
        if config.precision == "fp16":
            raise SettingError("precision fp16 needs a CUDA GPU: use precision auto, bf16 or fp32 on the CPU")
        if config.precision == "bf16" or (config.precision == "auto" and cpu_has_bfloat16()):
            return torch.bfloat16
        return None
    return {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16, "auto": torch.float16}[config.precision]


def cpu_has_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (oneDNN's own test)."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def _autocast(device: torch.device, dtype):
    return torch.autocast(device.type, dtype=dtype) if dtype is not None else nullcontext()


@torch.no_grad()
def evaluate_perplexity(bilm, data: LanguageModelData, config: ElmoConfig, batch_tokens: int | None = None) -> dict:
    """Perplexity of each direction over all of ``data``: ``{"forward", "backward", "predictions"}``,
    with exp(mean negative log-likelihood per prediction), ``<eos>`` and ``<bos>`` included."""
    device = next(bilm.parameters()).device
    dtype = autocast_dtype(config, device) if device.type == "cuda" else None  # the CPU measures in float32
    was_training = bilm.training
    bilm.eval()
    sums = torch.zeros(2, dtype=torch.float64, device=device)
    predictions = 0
    try:
        for group in data.batches(batch_tokens or 2 * config.batch_tokens):
            batch = data.batch(group).to(device)
            with _autocast(device, dtype):
                _, forward_sum, backward_sum = bilm.loss(batch.char_ids, batch.mask, batch.targets, batch.index,
                                                         batch.predictions)
            sums += torch.stack([forward_sum, backward_sum]).double()
            predictions += batch.predictions
    finally:
        bilm.train(was_training)
    forward, backward = (sums / max(predictions, 1)).tolist()
    return {"forward": math.exp(forward), "backward": math.exp(backward), "predictions": predictions}


def train_elmo(corpus, config: ElmoConfig | None = None, progress: bool = True,
               checkpoint: str | os.PathLike | None = None, resume: bool = False, max_steps: int | None = None,
               max_seconds: float | None = None, callback=None) -> Elmo:
    """Train an ELMo biLM on ``corpus`` (a :class:`~course.corpus.Corpus`).

    Args:
        config: the settings (default: the ``cpu`` preset).
        progress: show a tqdm bar (loss, perplexity per direction, tokens per second) and notes.
        checkpoint: a file to save the whole training state to every ``config.checkpoint_every``
            steps, after every epoch and where training stops.
        resume: continue from ``checkpoint`` if it exists (the settings must be the same, apart
            from the device and the checkpoint interval); resumed training gives the same model
            as an uninterrupted run.
        max_steps, max_seconds: stop early, after this many steps in all, or this long in this
            call (the learning-rate schedule still assumes all ``config.epochs``).
        callback: called with the model after every logging interval and every epoch.

    Returns:
        The :class:`~course.elmo.model.Elmo`; ``model.state`` has the history and the held-out
        perplexities.
    """
    from tqdm.auto import tqdm

    config = config or preset("cpu")
    device = resolve_device(config.device)
    dtype = autocast_dtype(config, device)
    payload = None
    if resume and checkpoint is not None and Path(checkpoint).is_file():
        model, payload = Elmo.load(checkpoint, device=config.device, with_extra=True)
        _check_same_settings(model.config, config, checkpoint)
        model.config = config
    train_sentences, heldout_sentences = split_heldout(corpus, config)
    if len(train_sentences) == 0:
        raise SettingError(f"corpus {corpus.name!r} has too few sentences to train on ({corpus.num_sentences})")
    if payload is None:
        words, characters = vocabularies(corpus, train_sentences, config)
        model = Elmo(config, words, characters)
    train = language_model_data(corpus, train_sentences, model)
    heldout = language_model_data(corpus, heldout_sentences, model) if len(heldout_sentences) else None
    if train.num_split:
        print(f"{corpus.name}: {train.num_split:,} training sentences longer than {config.max_sentence_length} "
              f"tokens were split into pieces of at most {config.max_sentence_length}", file=sys.stderr)

    bilm, state = model.bilm, model.state
    bilm.train()
    optimizer = torch.optim.Adam(bilm.parameters(), lr=config.lr, fused=device.type == "cuda")
    scaler = torch.amp.GradScaler(device.type, enabled=dtype is not None and device.type == "cuda")  # autocast_dtype
    if payload is not None:
        optimizer.load_state_dict(payload["optimizer"])
        scaler.load_state_dict(payload["scaler"])
        torch.set_rng_state(payload["rng"])
        if device.type == "cuda" and payload.get("cuda_rng") is not None:
            torch.cuda.set_rng_state(payload["cuda_rng"], device)
    else:
        torch.manual_seed(config.seed)  # dropout's random numbers
        if device.type == "cuda":
            torch.cuda.manual_seed(config.seed)

    def save_checkpoint():
        if checkpoint is not None:
            model.save(checkpoint, extra={
                "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict(), "rng": torch.get_rng_state(),
                "cuda_rng": torch.cuda.get_rng_state(device) if device.type == "cuda" else None})

    batches_per_epoch = len(train.batches(config.batch_tokens))
    total_steps = config.epochs * batches_per_epoch
    threads = torch.get_num_threads()
    if device.type == "cpu":
        torch.set_num_threads(config.threads)
    bar = tqdm(total=config.epochs * train.num_tokens, initial=state.tokens, unit="tok", unit_scale=True,
               desc=f"ELMo ({config.preset})", disable=not progress, smoothing=0.1)
    started = time.perf_counter()
    interval = _Interval(device)
    stop = False
    try:
        while state.epoch < config.epochs and not stop:
            groups = train.batches(config.batch_tokens, np.random.default_rng([config.seed, state.epoch]))
            clock = time.perf_counter()
            for group in groups[state.batch_in_epoch:]:
                batch = train.batch(group).to(device)
                for param_group in optimizer.param_groups:
                    param_group["lr"] = config.lr * (1 - (1 - config.final_lr_share) * state.step / total_steps)
                with _autocast(device, dtype):
                    loss, forward_sum, backward_sum = bilm.loss(batch.char_ids, batch.mask, batch.targets,
                                                                batch.index, batch.predictions)
                optimizer.zero_grad(set_to_none=True)
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(bilm.parameters(), config.clip_norm)
                scaler.step(optimizer)
                scaler.update()
                interval.add(forward_sum, backward_sum, batch.predictions)
                state.step += 1
                state.batch_in_epoch += 1
                state.tokens += batch.words
                bar.update(batch.words)
                stop = (max_steps is not None and state.step >= max_steps) or (
                    max_seconds is not None and time.perf_counter() - started >= max_seconds)
                if state.step % LOG_EVERY == 0 or stop or state.batch_in_epoch == len(groups):
                    entry = interval.read()  # waits for the GPU
                    state.seconds += time.perf_counter() - clock
                    state.history.append({"step": state.step, "tokens": state.tokens,
                                          "seconds": round(state.seconds, 3), **entry})
                    bar.set_postfix(loss=f"{entry['loss']:.3f}",
                                    ppl=f"{entry['forward_perplexity']:.0f}/{entry['backward_perplexity']:.0f}",
                                    refresh=False)
                    if callback is not None:
                        callback(model)
                    clock = time.perf_counter()
                if state.step % config.checkpoint_every == 0 and not stop:
                    save_checkpoint()
                    clock = time.perf_counter()
                if stop:
                    break
            if state.batch_in_epoch == len(groups):
                state.epoch += 1
                state.batch_in_epoch = 0
            if heldout is not None:
                measured = evaluate_perplexity(bilm, heldout, config)
                state.heldout.append({"epoch": state.epoch, "step": state.step, "tokens": state.tokens,
                                      "forward": measured["forward"], "backward": measured["backward"]})
                bar.set_postfix(heldout=f"{measured['forward']:.0f}/{measured['backward']:.0f}", refresh=False)
            state.finished = state.epoch >= config.epochs
            save_checkpoint()
            if callback is not None:
                callback(model)
    finally:
        bar.close()
        if device.type == "cpu":
            torch.set_num_threads(threads)
    bilm.eval()
    return model


class _Interval:
    """Sums of the negative log-likelihoods since the last read-out, kept on the device."""

    def __init__(self, device):
        self.sums = torch.zeros(2, dtype=torch.float64, device=device)
        self.predictions = 0

    def add(self, forward_sum, backward_sum, predictions: int):
        self.sums += torch.stack([forward_sum, backward_sum]).double()
        self.predictions += predictions

    def read(self) -> dict:
        forward, backward = (self.sums / max(self.predictions, 1)).tolist()
        self.sums.zero_()
        self.predictions = 0
        return {"loss": forward + backward, "forward_perplexity": math.exp(min(forward, 50)),
                "backward_perplexity": math.exp(min(backward, 50))}


def _check_same_settings(saved: ElmoConfig, wanted: ElmoConfig, checkpoint) -> None:
    old, new = saved.to_dict(), wanted.to_dict()
    changed = [key for key in new if key not in RESUMABLE_CHANGES and old.get(key) != new[key]]
    if changed:
        raise ModelFileError(f"{checkpoint}: was trained with other settings ({', '.join(changed)}); "
                             "use the same settings to resume, or another checkpoint file")
