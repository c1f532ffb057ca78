"""A Transformer language model as one object: the network with its vocabulary and training
record (:class:`~course.lm.state.TrainingState`), and the model file that holds them
(:class:`~course.lm.model_file.ModelFile`).

The model file is a ``torch.save`` dictionary of plain types and tensors (read back with
``weights_only=True``): ``{"format": "course.transformer/1", "config", "words", "counts",
"specials", "weights", "state"}``; a checkpoint adds the optimizer's state and the random
generator's.
"""

from __future__ import annotations

import numpy as np
import torch

from ..core.devices import resolve_device
from ..lm.model_file import ModelFile
from ..lm.state import TrainingState
from ..text.vocab import Vocabulary
from .config import TransformerConfig
from .lm import TransformerLM

FORMAT = "course.transformer/1"


class Transformer(ModelFile):
    """A GPT-style (``objective="causal"``) or BERT-style (``"masked"``) model with its vocabulary.

    Args:
        config: the settings (the weights are drawn from ``config.seed``).
        words: the vocabulary (``<pad>``, ``<unk>``, ``<bos>``, ``<eos>``, ``<mask>``, then the words).
        device: where the network lives (default ``config.device``; ``"auto"`` picks CUDA if present).
        seed: draw the weights from this seed instead of ``config.seed``.
    """

    def __init__(self, config: TransformerConfig, words: Vocabulary, device: str | None = None,
                 seed: int | None = None):
        self.config = config
        self.words = words
        self.device = resolve_device(device or config.device)
        self.network = TransformerLM(config, len(words), seed=seed).to(self.device)
        self.state = TrainingState()

    def __repr__(self) -> str:
        kind = "GPT-style causal" if self.config.objective == "causal" else "BERT-style masked"
        return (f"Transformer({kind}, {len(self.words):,} words, {self.num_parameters / 1e6:.1f}M parameters, "
                f"preset={self.config.preset!r}, steps={self.state.step:,}, device={self.device})")

    @property
    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.network.parameters())

    @property
    def num_layers(self) -> int:
        """L + 1: the layers :meth:`embed` gives per token."""
        return self.config.layers + 1

    @property
    def dim(self) -> int:
        """Size of each layer's vector, d_model."""
        return self.config.dim

    def untrained(self, seed: int | None = None) -> Transformer:
        """The same architecture and vocabulary with freshly drawn weights: from ``seed``, by default
        ``config.seed``, which gives exactly the weights training started from."""
        return Transformer(self.config, self.words, device=str(self.device), seed=seed)

    # ------------------------------------------------------------------------------- using it

    def embed(self, sentences, batch_tokens: int = 4_000) -> list[np.ndarray]:
        """Every layer for each token: a list of ``(L + 1, n_i, d)`` float32 arrays, one per sentence
        of ``n_i`` tokens (see :func:`course.transformer.embedder.embed_sentences`)."""
        from .embedder import embed_sentences

        return embed_sentences(self.network, self.words, sentences, batch_tokens=batch_tokens)

    def token_vectors(self, words) -> np.ndarray:
        """``(len(words), d)`` layer 0 of each word (its word embedding): a static vector."""
        from .embedder import token_vectors

        return token_vectors(self.network, self.words, list(words))

    def perplexity(self, sentences, batch_tokens: int | None = None) -> dict:
        """``{"perplexity", "predictions"}`` on ``sentences`` (a corpus or lists of tokens); see
        :mod:`course.transformer.perplexity` for what each objective counts."""
        from ..text.corpus import Corpus, from_sentences
        from .data import SentenceIds
        from .embedder import warn_split
        from .perplexity import evaluate_perplexity

        corpus = sentences if isinstance(sentences, Corpus) else from_sentences(sentences, name="sentences")
        data = SentenceIds.from_corpus(corpus, np.arange(corpus.num_sentences), self.words, self.config.max_words)
        warn_split(data.num_split, corpus.num_sentences, self.config.max_words, "sentences")
        return evaluate_perplexity(self.network, data, self.config, batch_tokens)

    @torch.no_grad()
    def attention(self, tokens) -> np.ndarray:
        """``(L, h, n + 2, n + 2)`` attention weights of one sentence of n tokens (it must fit the
        position table), ``<bos>`` and ``<eos>`` included: row t is where position t looks."""
        from .data import pad_batch

        batch = pad_batch([self.words.encode(list(tokens))], self.words)
        was_training = self.network.training
        self.network.eval()
        try:
            states = self.network(batch.ids.to(self.device), batch.mask.to(self.device), need_weights=True)
        finally:
            self.network.train(was_training)
        return torch.stack([w[0] for w in states.weights]).float().cpu().numpy()

    # ------------------------------------------------------------------------------ the file

    FORMAT, KIND, CONFIG, NETWORK = FORMAT, "Transformer", TransformerConfig, "network"  # see ModelFile
    TRAIN_HINT = "course.transformer.train_transformer or course_transformer"


load_transformer = Transformer.load
