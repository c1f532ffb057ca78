"""ELMo's settings in one dataclass, and the two documented size presets.

The names follow the paper (Peters et al., 2018) and its char-CNN (Kim et al., 2016):

- ``char_dim``: size of a character embedding;
- ``filters``: ``(width, number)`` of each convolution over the characters; their outputs,
  max-pooled over positions and concatenated, make a vector of ``sum(number)`` features;
- ``highway_layers``: highway layers on that vector;
- ``projection_dim`` (d): the token vector's size after the linear projection, and also the size
  of each LSTM's projected output, so that the residual connection can add them;
- ``lstm_dim``: memory cells of each LSTM (projected down to ``projection_dim``);
- ``num_layers`` (L): LSTM layers per direction; embeddings then have L + 1 layers.

Presets (``preset("cpu")``, ``preset("gpu")``), measured by ``benchmarks/elmo_throughput.py``:

- ``cpu``: for ``wiki-en`` and ``peoples-daily-zh`` on a 2-core CPU: token vectors of 128, LSTMs
  of 512 cells projected to 128, a char-CNN of 352 filters (widths 1-5), an adaptive softmax with
  the 2,000 most frequent words in its head and the rest in one cluster of 32 dimensions, batches
  of about 1,000 tokens, Adam at 4e-3 falling linearly to a tenth, bfloat16 autocast where the
  CPU has bfloat16 matrix units; 8 epochs (3.4 million weights on wiki-en; the README has the
  held-out perplexities beside Kneser-Ney's, and the run times). Smaller batches than the first
  version's 2,000 tokens were the largest gain: the model is short of updates, not of capacity
  (after one epoch, 2,000-token batches at 2e-3 gave 460, at 4e-3 423, 1,000-token batches at
  4e-3 361, 500-token ones 315; training and held-out perplexity stayed close after 4 epochs, so
  dropout stays at 0.1). With 6 epochs, held-out perplexity fell to 193 / 193 (349, 278, 241, 217,
  201, 193 after each epoch; Kneser-Ney bigram 247), hence 8: 179 / 181, in 881 s of training at
  4,030 tokens/s on one thread of a 2-core machine.
  With ``threads=2`` the token encoder's two halves of a batch's words, then the forward and backward
  LMs, run side by side, one thread each, and give the same weights (``benchmarks/elmo_threads.py``
  times one thread, two threads splitting each product, and side by side: 1.60x one thread).
- ``gpu``: a larger biLM for a GPU, half the paper's sizes: projection 256 and LSTMs of 2,048
  cells (the paper's ELMo: 512 and 4,096), 1,024 char filters of widths 1-6 (the paper: 2,048 of
  widths 1-7), batches of 32,768 tokens in bfloat16 autocast: for text8 or WikiText-103 on one GPU.
  Its softmax is ``auto``: full up to 50,000 words, adaptive above. On one H200 (wiki-en, timed
  after the first 10 steps, the second of two interleaved rounds): batches of 32,768 tokens trained
  438,000 tokens/s in bfloat16 and 443,000 in float16 (8.9 GB), batches of 8,192 tokens 188,000 in
  float16 and 155,000 in bfloat16: a step's LSTMs need many sentences at once to fill the GPU, and
  bfloat16 needs no loss scaling. That is 109 times the ``cpu`` preset on 2 CPU cores (the first
  round, while the allocator and the clocks warm up: 236,000, 58 times). Larger batches mean fewer
  steps an epoch (about 3,100 on WikiText-103).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..core.errors import SettingError
from ..core.fields import (
    COUNT,
    EPOCHS,
    RATE,
    SEED,
    SHARE,
    THREADS,
    check_settings,
    choose_preset,
    setting,
)
from ..lm.settings import TrainingSettings

SOFTMAXES = ("auto", "full", "adaptive", "none")
CHARACTER_IDS = ("course", "bilm-tf")
CNN_ACTIVATIONS = ("relu", "tanh")
PRECISIONS = ("auto", "fp32", "fp16", "bf16")
FULL_SOFTMAX_LIMIT = 50_000  # softmax="auto": full softmax up to this many words, adaptive above


@dataclass(frozen=True)
class ElmoConfig(TrainingSettings):
    """Everything that defines an ELMo model and its training (what every language model trains with:
    :class:`~course.lm.settings.TrainingSettings`)."""

    # vocabulary (the softmax's words; the input side reads characters and has no vocabulary)
    min_count: int = setting(5, "softmax vocabulary: words seen at least this often", range=COUNT)
    max_vocab: int | None = setting(None, "softmax vocabulary: at most this many words, the most frequent", range=COUNT)
    max_characters: int = 20  # per word, begin/end marks included; longer words are cut
    # token encoder
    char_dim: int = 16
    filters: tuple[tuple[int, int], ...] = ((1, 32), (2, 32), (3, 64), (4, 96), (5, 128))
    highway_layers: int = 2
    # "course": ids of the corpus's characters, pooled over the windows that start inside a word;
    # "bilm-tf": the published ELMo's UTF-8 bytes, pooled over every window of the padded row
    # (see course.elmo.characters and course.elmo.bilm_tf)
    character_ids: str = "course"
    cnn_activation: str = "relu"  # after the char-CNN's max-pooling ("tanh" in some bilm-tf options)
    # biLM
    projection_dim: int = 128
    lstm_dim: int = 512
    num_layers: int = 2
    residual: bool = True  # h^(j) = LSTM_j(h^(j-1)) + h^(j-1) for j >= 2 (bilm-tf's use_skip_connections)
    cell_clip: float | None = None  # memory cells clipped to [-cell_clip, cell_clip] at every step (bilm-tf)
    proj_clip: float | None = None  # projected outputs clipped to [-proj_clip, proj_clip] at every step (bilm-tf)
    dropout: float = setting(0.1, "dropout on the token vectors and the LSTMs' outputs", range=SHARE)
    softmax: str = "auto"  # "full", "adaptive" (AdaptiveLogSoftmaxWithLoss) or "auto"
    adaptive_cutoffs: tuple[int, ...] = (2_000, 10_000)
    # training (the rest: lm.settings.TrainingSettings)
    epochs: int = setting(3, "passes over the training sentences", range=EPOCHS)
    max_sentence_length: int = 100  # longer sentences are split into pieces of this many tokens
    lr: float = setting(2e-3, "Adam's learning rate, decayed linearly to lr * final_lr_share", range=RATE)
    seed: int = setting(1, "draws the first weights, the batches' order and dropout", range=SEED)
    precision: str = setting("auto", "auto: fp16 autocast with a gradient scaler on CUDA, bf16 on a CPU where native",
                             PRECISIONS)
    # two threads split each small bfloat16 product badly (5x slower); two directions side by side do not
    threads: int = setting(1, "CPU threads: 2 or more run the forward and backward LMs (and the token encoder's "
                              "two halves of the words) side by side, each on threads // 2 (the same weights as 1, "
                              "sooner)", range=THREADS)
    preset: str = field(default="custom", compare=False)

    def __post_init__(self):
        check_settings(self)
        object.__setattr__(self, "filters", tuple(tuple(int(x) for x in pair) for pair in self.filters))
        object.__setattr__(self, "adaptive_cutoffs", tuple(int(x) for x in self.adaptive_cutoffs))
        checks = [
            (self.min_count >= 1, f"min_count must be at least 1, got {self.min_count}"),
            (self.max_vocab is None or self.max_vocab >= 1, f"max_vocab must be at least 1, got {self.max_vocab}"),
            (self.max_characters >= 3, f"max_characters must be at least 3, got {self.max_characters}"),
            (self.char_dim >= 1, f"char_dim must be at least 1, got {self.char_dim}"),
            (len(self.filters) >= 1 and all(w >= 1 and n >= 1 for w, n in self.filters),
             f"filters must be (width, number) pairs of positive numbers, got {self.filters}"),
            (self.highway_layers >= 0, f"highway_layers must not be negative, got {self.highway_layers}"),
            (self.projection_dim >= 1, f"projection_dim must be at least 1, got {self.projection_dim}"),
            (self.lstm_dim > self.projection_dim,
             f"lstm_dim ({self.lstm_dim}) must be larger than projection_dim ({self.projection_dim})"),
            (self.num_layers >= 1, f"num_layers must be at least 1, got {self.num_layers}"),
            (0 <= self.dropout < 1, f"dropout must be in [0, 1), got {self.dropout}"),
            (self.softmax in SOFTMAXES, f"softmax must be one of {', '.join(SOFTMAXES)}, got {self.softmax!r}"),
            (self.character_ids in CHARACTER_IDS,
             f"character_ids must be one of {', '.join(CHARACTER_IDS)}, got {self.character_ids!r}"),
            (self.cnn_activation in CNN_ACTIVATIONS,
             f"cnn_activation must be one of {', '.join(CNN_ACTIVATIONS)}, got {self.cnn_activation!r}"),
            (self.cell_clip is None or self.cell_clip > 0, f"cell_clip must be positive, got {self.cell_clip}"),
            (self.proj_clip is None or self.proj_clip > 0, f"proj_clip must be positive, got {self.proj_clip}"),
            (self.max_sentence_length >= 1, f"max_sentence_length must be at least 1, got {self.max_sentence_length}"),
            (self.precision in PRECISIONS, f"precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}"),
            *self.training_checks(),
        ]
        for ok, message in checks:
            if not ok:
                raise SettingError(message)

    @property
    def num_filters(self) -> int:
        """Features out of the char-CNN: the sum of the filter numbers."""
        return sum(number for _, number in self.filters)

    @property
    def output_dim(self) -> int:
        """Size of each ELMo layer's vector: forward and backward states side by side (2 d)."""
        return 2 * self.projection_dim

    def to_dict(self) -> dict:
        """Plain types only (lists for tuples): what the model file stores."""
        data = asdict(self)
        data["filters"] = [list(pair) for pair in self.filters]
        data["adaptive_cutoffs"] = list(self.adaptive_cutoffs)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> ElmoConfig:
        return cls(**data)

    def model_fields(self) -> dict:
        """The settings that shape the network's weights (two models with equal ones can share weights)."""
        keys = ("max_characters", "char_dim", "filters", "highway_layers", "character_ids", "cnn_activation",
                "projection_dim", "lstm_dim", "num_layers", "residual", "cell_clip", "proj_clip", "softmax",
                "adaptive_cutoffs")
        return {key: getattr(self, key) for key in keys}


PRESETS: dict[str, ElmoConfig] = {
    # wiki-en and People's Daily on a 2-core CPU (see the module's docstring)
    "cpu": ElmoConfig(softmax="adaptive", adaptive_cutoffs=(2_000,), batch_tokens=1_000, lr=4e-3, epochs=8,
                      preset="cpu"),
    # Half the paper's ELMo in size; bfloat16 autocast and cuDNN LSTMs on CUDA, batches large enough to fill a GPU.
    "gpu": ElmoConfig(max_characters=50, char_dim=16,
                      filters=((1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512)),
                      projection_dim=256, lstm_dim=2048, dropout=0.1, epochs=10, batch_tokens=32_768,
                      max_sentence_length=200, lr=1e-3, precision="bf16", checkpoint_every=250, preset="gpu"),
}


def preset(name: str, **overrides) -> ElmoConfig:
    """The preset ``name`` (``"cpu"`` or ``"gpu"``), with any field replaced by ``overrides``.

    Raises:
        SettingError: an unknown preset or field, or a value that makes no sense.
    """
    return choose_preset(PRESETS, name, overrides, "ELMo")
