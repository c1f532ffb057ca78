"""BERT pretrained on pairs of sentences: the masked LM with next-sentence prediction (NSP) and
segments (Devlin et al., 2019, section 3.1 and appendix A.1), or the masked LM alone on the same
pairs.

Each training sentence A that has a next sentence in its paragraph is one example per epoch. B is
that next sentence half the time (IsNext) and a training sentence drawn at random the other half
(NotNext), drawn from (seed, epoch). The network reads

    [CLS] a_1 .. a_m [SEP] b_1 .. b_n [SEP],      x_t = E[w_t] + P[t] + S[s_t]

with s_t = 0 up to the first ``[SEP]`` and 1 after it (the vocabulary's ``<bos>`` and ``<eos>``
serve as ``[CLS]`` and ``[SEP]``, as in :mod:`~course.transformer.classifier`; each sentence is cut
to half the position table). The loss of a batch is

    L = L_MLM + L_NSP,     L_NSP = -log softmax(W_c tanh(W_p LN(h_[CLS]) + b_p) + b_c)_{IsNext}

where L_MLM is the masked LM's mean negative log-likelihood (15% of the words chosen, 80/10/10,
drawn per batch from (seed, epoch, batch): :func:`~course.transformer.perplexity.corrupt`) and the
pooler (W_p, b_p) and the classifier (W_c, b_c) read the top state of ``[CLS]``. With ``nsp=False``
the same examples, in the same order and with the same masks, train on L_MLM alone: the control
that tells what NSP adds from what reading pairs adds. The pooler and the NSP classifier are not
kept: fine-tuning puts a head of its own on LN(h_[CLS]).

The vocabulary and the held-out sentences are those of :func:`~course.transformer.train_transformer`
with the same config, so the model compares with the course's BERT pretrained on single sentences.
After training, ``model.state.heldout`` holds one entry: the masked LM's perplexity and the NSP
accuracy on pairs whose A is a held-out sentence (masks and B's drawn from a fixed seed).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from ..core.devices import resolve_device
from ..core.divergence import perplexity
from ..core.errors import SettingError
from ..lm.heldout import split_heldout
from ..lm.precision import autocast
from ..lm.run import Limits, Run
from ..lm.threads import cpu_threads
from ..text.sentences import Sentences, length_batches
from .config import TransformerConfig
from .data import Batch
from .masking import IGNORE
from .model import Transformer
from .perplexity import EVALUATION_SEED, corrupt, generator, precision_dtype
from .training import learning_rate, vocabulary


class NextSentenceHead(nn.Module):
    """BERT's pooler and NSP classifier: ``(B, d)`` normalised [CLS] states -> ``(B, 2)`` logits."""

    def __init__(self, dim: int):
        super().__init__()
        self.pooler = nn.Linear(dim, dim)  # W_p, b_p
        self.classifier = nn.Linear(dim, 2)  # W_c, b_c: 0 NotNext, 1 IsNext
        for linear in (self.pooler, self.classifier):
            nn.init.normal_(linear.weight, std=0.02)
            nn.init.zeros_(linear.bias)

    def forward(self, cls: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.tanh(self.pooler(cls)))


def next_sentence_examples(paragraphs: np.ndarray, sentences: np.ndarray, rng: np.random.Generator
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, second, is_next)``, each ``(P,)``: one example per sentence of ``sentences`` whose next
    sentence (number + 1) is in the same paragraph and among ``sentences``; B is that next sentence
    with probability 1/2, else one of ``sentences`` drawn at random (not the next one)."""
    sentences = np.asarray(sentences)
    known = np.zeros(len(paragraphs) + 1, dtype=bool)
    known[sentences] = True
    has_next = sentences[(sentences + 1 < len(paragraphs))]
    has_next = has_next[known[has_next + 1] & (paragraphs[has_next] == paragraphs[np.minimum(has_next + 1,
                                                                                              len(paragraphs) - 1)])]
    is_next = rng.random(len(has_next)) < 0.5
    drawn = sentences[rng.integers(len(sentences), size=len(has_next))]
    drawn = np.where(drawn == has_next + 1, sentences[(np.searchsorted(sentences, drawn) + 1) % len(sentences)], drawn)
    return has_next, np.where(is_next, has_next + 1, drawn), is_next


class PairIds(Sentences):
    """The sentences of a corpus as vocabulary ids (:class:`~course.text.sentences.Sentences`), each
    read cut to ``max_words`` (half the position table), and batches of ``[CLS] A [SEP] B [SEP]`` pairs."""

    def __init__(self, corpus, words, max_positions: int):
        table = np.asarray([words.word_to_id.get(word, words.unk_id) for word in corpus.types], dtype=np.int64)
        self.token_ids, self.offsets, self.words = table[corpus.token_ids], corpus.offsets, words
        self.max_words = (max_positions - 3) // 2

    def sentence(self, number: int) -> np.ndarray:
        return self.token_ids[self.offsets[number]:self.offsets[number + 1]][:self.max_words]

    def pair_words(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """``(P,)`` the words of each pair of sentences ``first[p]``, ``second[p]``, each cut to ``max_words``."""
        cut = np.minimum(self.lengths(), self.max_words)
        return cut[first] + cut[second]

    def pair_batches(self, first: np.ndarray, second: np.ndarray, batch_tokens: int,
                     rng: np.random.Generator | None = None) -> list[np.ndarray]:
        """The pairs in batches of about ``batch_tokens`` positions: a pair of n words takes n + 3,
        given to :func:`~course.text.sentences.length_batches` (which adds two) as n + 1."""
        return length_batches(self.pair_words(first, second) + 1, batch_tokens, rng)

    def batch(self, first: np.ndarray, second: np.ndarray) -> tuple[Batch, torch.Tensor]:
        """A :class:`~course.transformer.data.Batch` of the pairs and their ``(B, T)`` segment ids."""
        rows = [(self.sentence(a), self.sentence(b)) for a, b in zip(first, second, strict=True)]
        width = max(len(a) + len(b) + 3 for a, b in rows)
        ids = np.full((len(rows), width), self.words.pad_id, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=bool)
        segments = np.zeros((len(rows), width), dtype=np.int64)
        for row, (a, b) in enumerate(rows):
            n = len(a) + len(b) + 3
            ids[row, :n] = [self.words.bos_id, *a, self.words.eos_id, *b, self.words.eos_id]
            mask[row, :n] = True
            segments[row, len(a) + 2:n] = 1
        batch = Batch(torch.from_numpy(ids), torch.from_numpy(mask), sum(len(a) + len(b) for a, b in rows))
        return batch, torch.from_numpy(segments)


def pair_losses(network, head: NextSentenceHead, pairs: PairIds, first, second, config, rng,
                device) -> tuple[torch.Tensor, torch.Tensor, int, torch.Tensor]:
    """``(mlm_loss, nll_sum, predictions, nsp_logits)`` of one batch of pairs (masks drawn from ``rng``)."""
    batch, segments = pairs.batch(first, second)
    inputs, targets = corrupt(batch, pairs.words, config, rng)
    mask, targets = batch.mask.to(device), targets.to(device)
    top = network(inputs.to(device), mask, segments=segments.to(device)).layers[-1]
    chosen = targets != IGNORE
    nll = -network.target_log_probabilities(top[chosen], targets[chosen]).sum()
    count = int(chosen.sum())
    logits = head(network.final_norm(top[:, 0])).float()
    return nll / max(count, 1), nll.detach(), count, logits


def train_pair_bert(corpus, paragraphs: np.ndarray, config: TransformerConfig, nsp: bool = True,
                    progress: bool = True) -> Transformer:
    """Pretrain a BERT on pairs of ``corpus``'s sentences (see the module's docstring).

    Args:
        corpus: the :class:`~course.text.corpus.Corpus`; ``paragraphs``: ``(S,)`` the paragraph of each
            of its sentences (a next sentence is looked for within a paragraph).
        config: a masked Transformer's settings (``epochs`` passes over the examples, ``batch_tokens``
            positions per batch, the learning-rate schedule of :func:`~course.transformer.training.learning_rate`).
        nsp: train next-sentence prediction beside the masked LM (False: the masked LM alone).

    Returns:
        The :class:`~course.transformer.model.Transformer` with its segment table, ``state.history``
        the read-outs of :class:`course.lm.run.Run` (``loss``, ``mlm_loss`` and ``nsp_loss`` a batch,
        ``nsp_accuracy``, since the read-out before) and ``state.heldout`` the held-out measurement.

    Raises:
        SettingError: a causal config, or a corpus without a sentence followed by another of its paragraph.
    """
    if config.objective != "masked":
        raise SettingError(f"next-sentence prediction pretrains a masked model; got objective {config.objective!r}")
    paragraphs = np.asarray(paragraphs)[:corpus.num_sentences]
    if len(paragraphs) != corpus.num_sentences:
        raise SettingError(f"{len(paragraphs)} paragraph numbers for {corpus.num_sentences} sentences")
    device = resolve_device(config.device)
    precision_dtype(config, device)  # refuses fp16 on a CPU before any work
    train_sentences, heldout_sentences = split_heldout(corpus, config)
    words = vocabulary(corpus, train_sentences, config)
    model = Transformer(config, words, device=str(device))
    network = model.network
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed + 1)
        network.add_segments(std=0.02)
        head = NextSentenceHead(config.dim).to(device)
    pairs = PairIds(corpus, words, config.max_positions)
    train = _PairEpochs(pairs, paragraphs, train_sentences, config.seed)
    if len(train.first) == 0:
        raise SettingError(f"corpus {corpus.name!r} has no sentence followed by another of its paragraph")
    parameters = [*network.parameters(), *head.parameters()]
    decay, rest = [p for p in parameters if p.dim() >= 2], [p for p in parameters if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                                   {"params": rest, "weight_decay": 0.0}], lr=config.lr, betas=(0.9, 0.98))
    from ..core.progress import progress_bar

    name = "BERT, masked LM + NSP" if nsp else "BERT, masked LM on pairs"
    with cpu_threads(device, config.threads), progress_bar(total=train.total_words(config.epochs), desc=name,
                                                           unit="tok", unit_scale=True, disable=not progress) as bar:
        _PairRun(model, head, train, optimizer, nsp, bar).epochs(Limits())
    model.state.heldout.append({"epoch": config.epochs, "step": model.state.step,
                                **evaluate_pairs(network, head, pairs, paragraphs, train_sentences,
                                                 heldout_sentences, config, device)})
    network.eval()
    return model


class _PairEpochs:
    """The training examples of one epoch at a time, as :class:`course.lm.run.Run` takes its
    sentences: :meth:`draw` draws epoch e's pairs from (seed, e), ``lengths()`` are each pair's
    words and ``batches`` their batches of about ``batch_tokens`` positions."""

    def __init__(self, pairs: PairIds, paragraphs: np.ndarray, sentences: np.ndarray, seed: int):
        self.pairs, self.paragraphs, self.sentences, self.seed = pairs, paragraphs, sentences, seed
        self.draw(0)

    def draw(self, epoch: int) -> None:
        self.first, self.second, self.is_next = next_sentence_examples(
            self.paragraphs, self.sentences, np.random.default_rng([self.seed, epoch]))

    def lengths(self) -> np.ndarray:
        return self.pairs.pair_words(self.first, self.second)

    def batches(self, batch_tokens: int, rng: np.random.Generator | None = None) -> list[np.ndarray]:
        return self.pairs.pair_batches(self.first, self.second, batch_tokens, rng)

    def total_words(self, epochs: int) -> int:
        """The words of epochs 1 .. ``epochs`` (the progress bar's total); epoch 0's pairs are drawn again after."""
        total = 0
        for epoch in range(1, epochs + 1):
            self.draw(epoch)
            total += int(self.lengths().sum())
        self.draw(0)
        return total


class _PairRun(Run):
    """The epochs of :func:`train_pair_bert` (:class:`course.lm.run.Run`): epoch e (from 1) takes the
    pairs drawn from (seed, e) in batches shuffled with (seed, e, 1), dropout from the seed
    ``seed * 1000 + e`` and each batch's masks from (seed, e, batch); AdamW steps on L_MLM + L_NSP
    (or L_MLM alone), the learning rate following the optimizer steps taken. No held-out sentences
    within training: :func:`train_pair_bert` measures after the last epoch."""

    def __init__(self, model: Transformer, head: NextSentenceHead, train: _PairEpochs, optimizer, nsp: bool, bar):
        super().__init__(model, train, None, bar, None, None, {})
        self.head, self.optimizer, self.nsp = head, optimizer, nsp
        self.device = model.device
        self.dtype = precision_dtype(self.config, self.device)
        self.parameters = [*model.network.parameters(), *head.parameters()]
        # since the last read-out: the summed MLM and NSP losses and right NSP guesses (on the device, read
        # out every few steps, not waited for each step), the pairs and the batches
        self.sums = torch.zeros(3, dtype=torch.float64, device=self.device)
        self.pairs, self.batches = 0, 0

    def schedule_step(self) -> int:
        return self.state.step  # an epoch's pairs, and so its number of batches, are drawn afresh

    def learning_rate(self, step: int) -> float:
        return learning_rate(self.config, step, self.total_steps)

    def epoch_order(self) -> list[np.ndarray]:
        epoch = self.state.epoch + 1
        self.train.draw(epoch)
        self.model.network.train(), self.head.train()
        torch.manual_seed(self.config.seed * 1_000 + epoch)
        return self.train.batches(self.config.batch_tokens, np.random.default_rng([self.config.seed, epoch, 1]))

    def step(self, group: np.ndarray, lr: float) -> None:
        """One AdamW step at ``lr`` on the batch of pairs ``group``."""
        train, config = self.train, self.config
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = lr
        labels = torch.from_numpy(train.is_next[group].astype(np.int64)).to(self.device)
        masks = generator(config.seed, self.state.epoch + 1, self.state.batch_in_epoch)
        with autocast(self.device, self.dtype):
            mlm, _, _, logits = pair_losses(self.model.network, self.head, train.pairs, train.first[group],
                                            train.second[group], config, masks, self.device)
        nsp_loss = nn.functional.cross_entropy(logits, labels)
        loss = mlm + nsp_loss if self.nsp else mlm
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.parameters, config.clip_norm)
        self.optimizer.step()
        right = (logits.argmax(-1) == labels).sum()
        self.sums += torch.stack([mlm.detach(), nsp_loss.detach(), right]).double()
        self.pairs += len(group)
        self.batches += 1

    def read_out(self, lr: float) -> tuple[dict, dict]:
        """The mean losses a batch and the NSP accuracy since the last read-out (waits for the GPU)."""
        mlm_sum, nsp_sum, right = self.sums.tolist()
        mlm, nsp = mlm_sum / max(self.batches, 1), nsp_sum / max(self.batches, 1)
        fields = {"lr": lr, "loss": mlm + nsp if self.nsp else mlm, "mlm_loss": mlm, "nsp_loss": nsp,
                  "nsp_accuracy": right / max(self.pairs, 1)}
        self.sums.zero_()
        self.pairs, self.batches = 0, 0
        return fields, {"mlm": f"{mlm:.2f}", "nsp": f"{nsp:.2f}"}

    def interval_state(self) -> dict:
        mlm, nsp, right = self.sums.tolist()
        return {"mlm": mlm, "nsp": nsp, "right": right, "pairs": self.pairs, "batches": self.batches}

    def checkpoint_extra(self) -> dict:
        return {}


@torch.no_grad()
def evaluate_pairs(network, head, pairs: PairIds, paragraphs, train_sentences, heldout_sentences, config,
                   device) -> dict:
    """``{"perplexity", "nsp_accuracy", "pairs"}`` on pairs whose A is a held-out sentence."""
    sentences = np.union1d(train_sentences, heldout_sentences)
    first, second, is_next = next_sentence_examples(paragraphs, sentences, np.random.default_rng(EVALUATION_SEED))
    keep = np.isin(first, heldout_sentences)
    first, second, is_next = first[keep], second[keep], is_next[keep]
    network.eval(), head.eval()
    total, count, right = 0.0, 0, 0
    for number, rows in enumerate(pairs.pair_batches(first, second, 2 * config.batch_tokens)):
        _, nll, predictions, logits = pair_losses(network, head, pairs, first[rows], second[rows],
                                                  config, generator(EVALUATION_SEED, number), device)
        total, count = total + float(nll), count + predictions
        right += int((logits.argmax(-1).cpu().numpy() == is_next[rows]).sum())
    return {"perplexity": perplexity(total / max(count, 1)) if count else math.nan,
            "nsp_accuracy": right / max(len(first), 1), "pairs": int(len(first))}
