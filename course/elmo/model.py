"""An ELMo model as one object: the biLM with its two vocabularies and its training record, and
the model file that holds them.

The model file is a ``torch.save`` dictionary of plain types and tensors (read back with
``weights_only=True``): ``{"format": "course.elmo/1", "config", "words", "counts", "characters",
"weights", "state"}``; a checkpoint adds the optimizer's state and the random generators'.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from ..devices import resolve_device
from ..errors import ModelFileError
from ..paths import atomic_path
from ..vocab import Vocabulary
from .bilm import BiLM
from .characters import CharacterVocabulary
from .config import ElmoConfig
from .perplexity import evaluate_perplexity

FORMAT = "course.elmo/1"


@dataclass
class TrainingState:
    """Where training stands, and what it measured (the biLM's, and the Transformers' of
    :mod:`course.transformer`).

    Attributes:
        step: optimizer steps taken; ``epoch``: epochs finished; ``batch_in_epoch``: batches of
            the current epoch done; ``tokens``: words trained on; ``seconds``: time spent in steps.
        history: one entry per logging interval: ``step``, ``tokens``, ``seconds``, ``loss``, and
            the training perplexity: for the biLM ``loss`` is the sum of the two directions' mean
            negative log-likelihoods, with ``forward_perplexity`` and ``backward_perplexity``; for
            a Transformer the mean per prediction, with ``perplexity`` and ``lr``.
        heldout: held-out perplexity after every epoch: ``epoch``, ``step``, ``tokens``, and
            ``forward`` and ``backward`` for the biLM, ``perplexity`` and ``predictions`` for a
            Transformer; the last is the last measurement.
        best: the best of them (its entry, with the ``perplexity`` compared: for the biLM the
            geometric mean of the two directions'), whose weights the trained model has
            (:class:`course.lm_training.KeepBest`); ``since_best``: measurements since it.
        stopped_early: training stopped after ``patience`` measurements without a better one.
        finished: all epochs done, or stopped early.
    """

    step: int = 0
    epoch: int = 0
    batch_in_epoch: int = 0
    tokens: int = 0
    seconds: float = 0.0
    history: list[dict] = field(default_factory=list)
    heldout: list[dict] = field(default_factory=list)
    best: dict | None = None
    since_best: int = 0
    stopped_early: bool = False
    finished: bool = False

    @property
    def last(self) -> dict | None:
        """The last held-out measurement (None before the first)."""
        return self.heldout[-1] if self.heldout else None

    @property
    def kept(self) -> dict | None:
        """The measurement whose weights the model has: the best, or the last for a model saved
        before training kept its best (None before the first)."""
        return self.best or self.last

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


class Elmo:
    """A biLM with its softmax vocabulary, its character vocabulary and its training record.

    Args:
        config: the settings (the weights are drawn from ``config.seed``).
        words: the softmax vocabulary (``<pad>``, ``<unk>``, ``<bos>``, ``<eos>``, then the words).
        characters: the character vocabulary of the token encoder.
        device: where the biLM lives (default ``config.device``; ``"auto"`` picks CUDA if present).
    """

    def __init__(self, config: ElmoConfig, words: Vocabulary, characters: CharacterVocabulary,
                 device: str | None = None):
        self.config = config
        self.words = words
        self.characters = characters
        self.device = resolve_device(device or config.device)
        self.bilm = BiLM(config, len(characters), len(words), seed=config.seed).to(self.device)
        self.state = TrainingState()

    def __repr__(self) -> str:
        params = sum(p.numel() for p in self.bilm.parameters())
        return (f"Elmo({len(self.words):,} words, {len(self.characters):,} characters, {params / 1e6:.1f}M "
                f"parameters, preset={self.config.preset!r}, steps={self.state.step:,}, device={self.device})")

    @property
    def num_layers(self) -> int:
        """L + 1: the layers :meth:`embed` gives per token."""
        return self.config.num_layers + 1

    @property
    def dim(self) -> int:
        """Size of each layer's vector, 2 d."""
        return self.config.output_dim

    def untrained(self) -> Elmo:
        """The same model before training: same vocabularies and seed, so the same random weights."""
        return Elmo(self.config, self.words, self.characters, device=str(self.device))

    # ------------------------------------------------------------------------------- using it

    def embed(self, sentences, batch_tokens: int = 4_000) -> list[np.ndarray]:
        """ELMo's layers for each token: a list of ``(L + 1, n_i, 2 d)`` float32 arrays, one per
        sentence of ``n_i`` tokens (see :func:`course.elmo.embedder.embed_sentences`)."""
        from .embedder import embed_sentences

        return embed_sentences(self.bilm, self.characters, sentences, batch_tokens=batch_tokens)

    def token_vectors(self, words) -> np.ndarray:
        """``(len(words), 2 d)`` layer 0 of each word (its token vector, duplicated): the same in
        every sentence, a static vector."""
        from .embedder import token_vectors

        return token_vectors(self.bilm, self.characters, list(words))

    def perplexity(self, sentences, batch_tokens: int | None = None) -> dict:
        """Perplexity of each direction on ``sentences`` (a corpus or lists of tokens):
        ``{"forward", "backward", "predictions"}``."""
        from ..corpus import Corpus, from_sentences
        from .batching import LanguageModelData

        corpus = sentences if isinstance(sentences, Corpus) else from_sentences(sentences, name="sentences")
        data = LanguageModelData(corpus.types, corpus.token_ids, corpus.offsets, self.words, self.characters,
                                 self.config.max_sentence_length)
        return evaluate_perplexity(self.bilm, data, self.config, batch_tokens)

    def sample(self, num_sentences: int = 5, max_length: int = 30, temperature: float = 1.0, seed: int = 1,
               prefix=()) -> list[list[str]]:
        """Sentences drawn word by word from the forward LM (see :func:`course.elmo.sampling.sample`)."""
        from .sampling import sample

        return sample(self, num_sentences, max_length, temperature, seed, prefix)

    # ------------------------------------------------------------------------------ the file

    def save(self, path: str | os.PathLike, extra: dict | None = None) -> Path:
        """Write the model file (atomically); ``extra`` entries are stored beside (checkpoints)."""
        payload = {
            "format": FORMAT,
            "config": self.config.to_dict(),
            "words": [str(word) for word in self.words.words],
            "counts": self.words.counts.tolist(),
            "specials": list(self.words.specials),
            "characters": [str(ch) for ch in self.characters.characters],
            "weights": {name: tensor.detach().cpu() for name, tensor in self.bilm.state_dict().items()},
            "state": asdict(self.state),
            **(extra or {}),
        }
        target = Path(path)
        if target.is_dir():
            raise ModelFileError(f"{target} is a folder: give a file name for the model")
        with atomic_path(target) as temporary:
            torch.save(payload, temporary)
        return target

    @classmethod
    def load(cls, path: str | os.PathLike, device: str | None = None, with_extra: bool = False):
        """Read a model file written by :meth:`save` (on ``device``; default ``"auto"``).

        Returns the model, or ``(model, payload)`` with ``with_extra=True``.

        Raises:
            ModelFileError: no such file, or not a model file of ours, or a damaged one.
        """
        path = Path(path)
        if not path.is_file():
            raise ModelFileError(f"{path}: no such model file; train one with: python -m course train elmo")
        try:
            payload = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - torch raises many kinds for a file that is not its own
            raise ModelFileError(f"{path}: not a readable ELMo model file (truncated, or another kind of file: "
                                 f"{type(exc).__name__}); train it again") from None
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise ModelFileError(f"{path}: not an ELMo model file of this course (no {FORMAT!r} mark)")
        try:
            config = ElmoConfig.from_dict(payload["config"])
            words = Vocabulary(payload["words"], payload["counts"], payload["specials"])
            characters = CharacterVocabulary(payload["characters"], config.max_characters)
            model = cls(config, words, characters, device=device or "auto")
            model.bilm.load_state_dict(payload["weights"])
            model.bilm.eval()  # ready to use, as training leaves it (dropout off)
            model.state = TrainingState(**payload["state"])
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise ModelFileError(f"{path}: a damaged ELMo model file ({type(exc).__name__}: {exc})"[:300]) from None
        return (model, payload) if with_extra else model


load_elmo = Elmo.load
