"""The Transformer's settings in one dataclass, and the two size presets.

The names follow the papers (Vaswani et al., 2017; GPT, Radford et al., 2018; BERT, Devlin et al., 2019):

- ``objective``: ``"causal"`` (GPT: each position predicts the next word and sees only the words
  before it) or ``"masked"`` (BERT: ``mask_share`` of the words are hidden and predicted from both
  sides);
- ``dim`` (d_model): the size of every token's vector in every layer;
- ``heads`` (h): attention heads per layer, each of d_k = d_model / h dimensions;
- ``layers`` (L): Transformer blocks; embeddings then have L + 1 layers;
- ``ff_dim`` (d_ff): the hidden size of the position-wise feed-forward network;
- ``max_positions``: rows of the learned position table, ``<bos>`` and ``<eos>`` included, so
  sentences of up to ``max_positions - 2`` words fit whole; longer ones are split into pieces.

Training: AdamW (weight decay on the weight matrices only), the learning rate rising linearly
over the first ``warmup_share`` of the steps and then falling along a cosine to
``final_lr_share * lr``, gradients clipped to norm ``clip_norm``.

Presets (``preset("cpu")``, ``preset("gpu")``):

- ``cpu``: for ``wiki-en`` and ``peoples-daily-zh`` on a 2-core CPU: d_model 128, 4 heads, 4
  blocks, d_ff 512, 128 positions, batches of about 2,000 tokens, an adaptive softmax tied to the
  word embeddings (the 2,000 most frequent words and one cluster in its head, as the biLM's);
  about 2.0 million weights on wiki-en (8,873 words: 1.1 million in the tied embedding table),
  against the ``cpu`` ELMo's 3.4 million (whose char-CNN, LSTMs and adaptive softmax are bigger,
  but which has no table of words on the input side). With a full softmax, scoring the 14,526
  words of People's Daily took three times as long as the four blocks in a causal model's step;
  the adaptive one made that step 2.7 times quicker (``benchmarks/transformer_softmax.py``).
- ``gpu``: a larger model for a GPU, about BERT-small/GPT-mini in shape: d_model 512, 8 heads, 8
  blocks, d_ff 2,048, 256 positions, batches of 16,384 tokens, bfloat16 autocast.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..core.errors import SettingError
from ..core.fields import (
    COUNT,
    EPOCHS,
    FRACTION,
    RATE,
    SEED,
    SHARE,
    THREADS,
    check_settings,
    choose_preset,
    setting,
)
from ..lm.settings import TrainingSettings

OBJECTIVES = ("causal", "masked")
PRECISIONS = ("auto", "fp32", "bf16")
SOFTMAXES = ("full", "adaptive")


@dataclass(frozen=True)
class TransformerConfig(TrainingSettings):
    """Everything that defines a Transformer language model and its training (what every language model
    trains with: :class:`~course.lm.settings.TrainingSettings`)."""

    objective: str = setting("causal", "causal: GPT, each word predicts the next; masked: BERT, hidden words are "
                                       "predicted from both sides", OBJECTIVES)
    # vocabulary
    min_count: int = setting(5, "vocabulary: words seen at least this often", range=COUNT)
    max_vocab: int | None = setting(None, "vocabulary: at most this many words, the most frequent", range=COUNT)
    # network
    dim: int = 128
    heads: int = 4
    layers: int = 4
    ff_dim: int = 512
    max_positions: int = 128
    softmax: str = setting("full", "full: one softmax over every word; adaptive: the most frequent words and a row "
                                   "per cluster of rarer words, then a softmax within the cluster (both tied to the "
                                   "word embeddings)", SOFTMAXES)
    adaptive_cutoffs: tuple[int, ...] = (2_000,)  # adaptive softmax: the head's words, then each cluster's first word
    dropout: float = setting(0.1, "dropout on the embeddings, the attention weights and each sub-layer's output",
                             range=SHARE)
    # masked objective
    mask_share: float = setting(0.15, "masked objective: share of the words chosen for prediction (of those 80% "
                                      "[MASK], 10% a random word, 10% kept)", range=FRACTION)
    # training (the rest: lm.settings.TrainingSettings)
    epochs: int = setting(8, "passes over the training sentences", range=EPOCHS)
    lr: float = setting(1e-3, "AdamW's largest learning rate, after the warm-up", range=RATE)
    warmup_share: float = 0.05  # of all steps, with the learning rate rising linearly from 0
    weight_decay: float = 0.01
    seed: int = setting(1, "draws the first weights, the batches' order, dropout and the masks", range=SEED)
    precision: str = setting("auto", "auto: bf16 autocast where the GPU or CPU multiplies bf16 natively, else "
                                     "float32", PRECISIONS)
    threads: int = setting(1, "CPU threads for torch", range=THREADS)
    preset: str = field(default="custom", compare=False)

    def __post_init__(self):
        check_settings(self)
        object.__setattr__(self, "adaptive_cutoffs", tuple(int(x) for x in self.adaptive_cutoffs))
        cutoffs = self.adaptive_cutoffs
        checks = [
            (self.objective in OBJECTIVES,
             f"objective must be one of {', '.join(OBJECTIVES)}, got {self.objective!r}"),
            (self.min_count >= 1, f"min_count must be at least 1, got {self.min_count}"),
            (self.max_vocab is None or self.max_vocab >= 1, f"max_vocab must be at least 1, got {self.max_vocab}"),
            (self.dim >= 1, f"dim must be at least 1, got {self.dim}"),
            (self.heads >= 1, f"heads must be at least 1, got {self.heads}"),
            (self.heads >= 1 and self.dim % self.heads == 0,
             f"dim ({self.dim}) must be divisible by heads ({self.heads})"),
            (self.layers >= 1, f"layers must be at least 1, got {self.layers}"),
            (self.ff_dim >= 1, f"ff_dim must be at least 1, got {self.ff_dim}"),
            (self.max_positions >= 3,
             f"max_positions must be at least 3 (<bos>, a word, <eos>), got {self.max_positions}"),
            (0 <= self.dropout < 1, f"dropout must be in [0, 1), got {self.dropout}"),
            (self.softmax in SOFTMAXES, f"softmax must be one of {', '.join(SOFTMAXES)}, got {self.softmax!r}"),
            (len(cutoffs) >= 1 and cutoffs[0] >= 1 and all(a < b for a, b in zip(cutoffs, cutoffs[1:], strict=False)),
             f"adaptive_cutoffs must be one or more increasing positive numbers, got {list(cutoffs)}"),
            (0 < self.mask_share < 1, f"mask_share must be in (0, 1), got {self.mask_share}"),
            (0 <= self.warmup_share < 1, f"warmup_share must be in [0, 1), got {self.warmup_share}"),
            (self.weight_decay >= 0, f"weight_decay must not be negative, got {self.weight_decay}"),
            (self.precision in PRECISIONS,
             f"precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}"),
            *self.training_checks(),
        ]
        for ok, message in checks:
            if not ok:
                raise SettingError(message)

    @property
    def head_dim(self) -> int:
        """d_k = d_model / h: the size of each head's queries, keys and values."""
        return self.dim // self.heads

    @property
    def max_words(self) -> int:
        """Words that fit in one piece: the position table less ``<bos>`` and ``<eos>``."""
        return self.max_positions - 2

    def to_dict(self) -> dict:
        """Plain types only (a list for the cutoffs): what the model file stores."""
        data = asdict(self)
        data["adaptive_cutoffs"] = list(self.adaptive_cutoffs)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> TransformerConfig:
        return cls(**data)


PRESETS: dict[str, TransformerConfig] = {
    # wiki-en and People's Daily on a 2-core CPU (see the module's docstring)
    "cpu": TransformerConfig(softmax="adaptive", preset="cpu"),
    # about BERT-small / GPT-mini in shape, for one GPU
    "gpu": TransformerConfig(dim=512, heads=8, layers=8, ff_dim=2_048, max_positions=256, epochs=10,
                             batch_tokens=16_384, lr=5e-4, checkpoint_every=1_000, preset="gpu"),
}


def preset(name: str, **overrides) -> TransformerConfig:
    """The preset ``name`` (``"cpu"`` or ``"gpu"``), with any field replaced by ``overrides``.

    Raises:
        SettingError: an unknown preset or field, or a value that makes no sense.
    """
    return choose_preset(PRESETS, name, overrides, "Transformer")
