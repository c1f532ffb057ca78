"""An ELMo model as one object: the biLM with its two vocabularies and its training record
(:class:`~course.lm.state.TrainingState`), and the model file that holds them
(:class:`~course.lm.model_file.ModelFile`).

The model file is a ``torch.save`` dictionary of plain types and tensors (read back with
``weights_only=True``): ``{"format": "course.elmo/1", "config", "words", "counts", "specials",
"characters", "weights", "state"}``; a checkpoint adds the optimizer's state and the random generators'.
"""

from __future__ import annotations

import numpy as np

from ..core.devices import resolve_device
from ..lm.model_file import ModelFile
from ..lm.state import TrainingState
from ..text.vocab import Vocabulary
from .bilm import BiLM
from .characters import ByteCharacters, CharacterVocabulary, character_ids
from .config import ElmoConfig
from .perplexity import evaluate_perplexity

FORMAT = "course.elmo/1"


class Elmo(ModelFile):
    """A biLM with its softmax vocabulary, its character vocabulary and its training record.

    Args:
        config: the settings (the weights are drawn from ``config.seed``).
        words: the softmax vocabulary (``<pad>``, ``<unk>``, ``<bos>``, ``<eos>``, then the words).
        characters: the character vocabulary of the token encoder.
        device: where the biLM lives (default ``config.device``; ``"auto"`` picks CUDA if present).
    """

    def __init__(self, config: ElmoConfig, words: Vocabulary, characters: CharacterVocabulary | ByteCharacters,
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
    def predicts_words(self) -> bool:
        """Whether it has a softmax: False for a converted published model, which gives its layers but no
        word probabilities, perplexity or sampled text."""
        return self.bilm.softmax is not None

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
        from ..text.corpus import Corpus, from_sentences
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

    FORMAT, KIND, CONFIG, NETWORK = FORMAT, "ELMo", ElmoConfig, "bilm"  # see ModelFile
    TRAIN_HINT = "python -m course train elmo"

    def file_entries(self) -> dict:
        """The character vocabulary: ``{"characters"}``."""
        return {"characters": [str(ch) for ch in self.characters.characters]}

    @classmethod
    def from_file(cls, config: ElmoConfig, words: Vocabulary, payload: dict, device: str) -> Elmo:
        return cls(config, words, character_ids(config, payload["characters"]), device=device)


load_elmo = Elmo.load
