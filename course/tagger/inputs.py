"""What the tagger is given for each word: five inputs behind one interface.

Each input is a module ``forward(sentences) -> (B, T, D)`` for a batch of B sentences (lists of
words) padded to the longest, T words: the same BiLSTM then tags all of them.

- :class:`LearnedEmbeddings`: a vector per word of the labelled sentences, trained from scratch;
- :class:`StaticVectors`: frozen word2vec or GloVe vectors;
- :class:`ElmoInput`: ``[x_k; gamma * sum_j s_j h_{k,j}]``, learned embeddings beside ELMo's mixed
  layers, from a frozen biLM (features) or one trained along (fine-tuning); the same with a
  Transformer's layers (notebook 11's BERT) in place of the biLM's.
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import torch
from torch import nn

from ..elmo.embedder import layers_of
from ..elmo.scalar_mix import ScalarMix

PAD, UNK = 0, 1
SINGLETON_DROPOUT = 0.5  # a word seen once in the labelled sentences is <unk> this often in training


def lengths_of(sentences) -> torch.Tensor:
    """``(B,)`` int64 the number of words of each sentence."""
    return torch.tensor([len(sentence) for sentence in sentences], dtype=torch.int64)


def padding_mask(sentences) -> torch.Tensor:
    """``(B, T)`` bool, True at real words."""
    lengths = lengths_of(sentences)
    return torch.arange(int(lengths.max())) < lengths[:, None]


class WordIndex:
    """Words to rows: ``<pad>`` 0, ``<unk>`` 1, then ``words`` in the order given."""

    def __init__(self, words):
        self.words = ["<pad>", "<unk>", *words]
        self.index = {word: i for i, word in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def ids(self, sentences) -> torch.Tensor:
        """``(B, T)`` int64 rows of the words, ``<unk>`` for words not in the index, ``<pad>`` after the end."""
        width = max(len(sentence) for sentence in sentences)
        ids = torch.full((len(sentences), width), PAD, dtype=torch.int64)
        for row, sentence in enumerate(sentences):
            ids[row, :len(sentence)] = torch.tensor([self.index.get(word, UNK) for word in sentence])
        return ids


class LearnedEmbeddings(nn.Module):
    """x_k: a ``dim``-vector per word of the labelled sentences, learned with the task.

    A word never seen in them is ``<unk>``; so that ``<unk>`` learns something, each word seen only
    once is replaced by it half the time while training.
    """

    def __init__(self, train_sentences, dim: int):
        super().__init__()
        counts = Counter(word for sentence in train_sentences for word in sentence)
        self.vocabulary = WordIndex([word for word, _ in counts.most_common()])
        self.singletons = {word for word, count in counts.items() if count == 1}
        self.embedding = nn.Embedding(len(self.vocabulary), dim, padding_idx=PAD)
        self.dim = dim

    def forward(self, sentences) -> torch.Tensor:
        ids = self.vocabulary.ids(sentences).to(self.embedding.weight.device)
        if self.training and self.singletons:
            once = torch.zeros(ids.shape, dtype=torch.bool)
            for row, sentence in enumerate(sentences):
                once[row, :len(sentence)] = torch.tensor([word in self.singletons for word in sentence])
            once = once.to(ids.device)
            drop = once & (torch.rand(ids.shape, device=ids.device) < SINGLETON_DROPOUT)
            ids = ids.masked_fill(drop, UNK)
        return self.embedding(ids)


class StaticVectors(nn.Module):
    """Frozen pretrained vectors (a gensim ``KeyedVectors``), divided by their standard deviation so
    that word2vec's and GloVe's reach the tagger on the same scale; a word without a vector gets 0."""

    def __init__(self, keyed_vectors):
        super().__init__()
        vectors = np.asarray(keyed_vectors.vectors, dtype=np.float32)
        vectors = vectors / max(float(vectors.std()), 1e-12)
        self.vocabulary = WordIndex(list(keyed_vectors.index_to_key))
        table = np.concatenate([np.zeros((2, vectors.shape[1]), np.float32), vectors])
        self.register_buffer("table", torch.from_numpy(table))
        self.dim = vectors.shape[1]

    def forward(self, sentences) -> torch.Tensor:
        return self.table[self.vocabulary.ids(sentences).to(self.table.device)]


class ElmoFeatures:
    """A frozen biLM's (or Transformer's) L + 1 layers for each sentence, computed once and kept (as float16).

    ``features(sentences)`` gives ``(L + 1, B, T, 2 d)`` padded with zeros; every tagger trained
    with the same biLM can share one of these, so a learning curve runs the biLM once per sentence.
    """

    def __init__(self, model):
        self.elmo = model
        self.num_layers, self.dim = model.num_layers, model.dim
        self.kept: dict[tuple[str, ...], np.ndarray] = {}

    def add(self, sentences) -> None:
        """Run the biLM on the sentences not yet kept (in batches)."""
        new = list(dict.fromkeys(tuple(s) for s in sentences if tuple(s) not in self.kept))
        for sentence, layers in zip(new, self.elmo.embed([list(s) for s in new]), strict=True):
            self.kept[sentence] = layers.astype(np.float16)

    def __call__(self, sentences) -> torch.Tensor:
        self.add(sentences)
        width = max(len(sentence) for sentence in sentences)
        out = np.zeros((self.num_layers, len(sentences), width, self.dim), np.float32)
        for row, sentence in enumerate(sentences):
            out[:, row, :len(sentence)] = self.kept[tuple(sentence)]
        return torch.from_numpy(out)


class ElmoInput(nn.Module):
    """``[x_k; gamma * sum_j softmax(w)_j h_{k,j}]`` (Peters et al., 2018, section 3.3).

    Args:
        elmo: the pretrained :class:`~course.elmo.Elmo`, or a :class:`~course.transformer.Transformer`
            whose layers stand in for the biLM's (BERT's feature-based and fine-tuned use).
        embeddings: the learned embeddings x_k beside it.
        fine_tune: False: the biLM is frozen and its layers come from ``features`` (computed once);
            True: a copy of the biLM runs in every step and its weights are trained with the tagger.
        features: an :class:`ElmoFeatures` of ``elmo`` to share between taggers (frozen only).
        dropout: on the mixed vector.
    """

    def __init__(self, elmo, embeddings: LearnedEmbeddings, fine_tune: bool = False,
                 features: ElmoFeatures | None = None, dropout: float = 0.5):
        super().__init__()
        self.embeddings = embeddings
        self.mix = ScalarMix(elmo.num_layers)
        self.mix_dropout = nn.Dropout(dropout)
        self.fine_tune = fine_tune
        if fine_tune:
            self.network = copy.deepcopy(elmo.bilm if hasattr(elmo, "bilm") else elmo.network)  # the weights to train
            self.characters = getattr(elmo, "characters", None)  # ELMo reads characters, a Transformer words
            self.words = getattr(elmo, "words", None)
        else:
            self.features = features if features is not None else ElmoFeatures(elmo)
        self.dim = embeddings.dim + elmo.dim

    def layers(self, sentences) -> torch.Tensor:
        """``(L + 1, B, T, 2 d)`` the biLM's layers for the batch (with gradients when fine-tuned)."""
        device = self.mix.gamma.device
        if not self.fine_tune:
            return self.features(sentences).to(device)
        if self.characters is None:  # a Transformer
            from ..transformer.embedder import sentence_layers

            return sentence_layers(self.network, self.words, sentences)
        char_ids, mask = self.characters.encode_sentences([list(s) for s in sentences])
        states = self.network(torch.from_numpy(char_ids).to(device), torch.from_numpy(mask).to(device))
        width = max(len(sentence) for sentence in sentences)
        return layers_of(states)[:, :, 1:width + 1].float()  # drop <bos>; <eos> and padding are masked later

    def forward(self, sentences) -> torch.Tensor:
        mask = padding_mask(sentences).to(self.mix.gamma.device)
        mixed = self.mix_dropout(self.mix(self.layers(sentences), mask))
        return torch.cat([self.embeddings(sentences), mixed], dim=-1)
