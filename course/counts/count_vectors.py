"""Count-based word vectors: a co-occurrence matrix, positive PMI, and a truncated SVD.

This is the "count" family that came before word2vec (and that GloVe returns to): count how
often each word appears near each other word, reweight the counts by how surprising they are,
and compress each word's row to a few hundred dimensions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..analysis.vectors import keyed_vectors
from ..core.errors import SettingError


def cooccurrence_matrix(ids: np.ndarray, offsets: np.ndarray, vocab_size: int, window: int = 5,
                        weighting: str = "harmonic", chunk_tokens: int = 1_000_000) -> sp.csr_matrix:
    """Symmetric ``(V, V)`` co-occurrence counts within ``window`` words, never across sentences.

    Args:
        ids: ``(n,)`` word ids of all tokens; offsets: ``(num_sentences + 1,)`` sentence starts.
        weighting: ``"harmonic"`` adds 1/d for a pair d words apart (GloVe's weighting),
            ``"uniform"`` adds 1.
        chunk_tokens: tokens handled per step; memory grows with it, not with the corpus.

    Loops over the distances 1..window and over chunks of the corpus, each step vectorised over
    tokens; the matrix keeps only non-zero pairs.
    """
    if window < 1:
        raise SettingError(f"window must be at least 1, got {window}")
    if weighting not in ("harmonic", "uniform"):
        raise SettingError(f"weighting must be 'harmonic' or 'uniform', got {weighting!r}")
    ids = np.asarray(ids, dtype=np.int64)
    sentence = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    total = sp.csr_matrix((vocab_size, vocab_size), dtype=np.float64)
    for start in range(0, len(ids), chunk_tokens):
        stop = min(len(ids), start + chunk_tokens)
        rows, cols, weights = [], [], []
        for distance in range(1, window + 1):
            left = np.arange(start, min(stop, len(ids) - distance))
            same = sentence[left] == sentence[left + distance]
            left = left[same]
            rows.append(ids[left])
            cols.append(ids[left + distance])
            weights.append(np.full(len(left), 1.0 / distance if weighting == "harmonic" else 1.0))
        row, col, weight = np.concatenate(rows), np.concatenate(cols), np.concatenate(weights)
        part = sp.coo_matrix((weight, (row, col)), shape=(vocab_size, vocab_size)).tocsr()
        total = total + part + part.T
    total.sum_duplicates()
    return total


def ppmi(counts: sp.csr_matrix, context_smoothing: float = 0.75) -> sp.csr_matrix:
    """Positive pointwise mutual information of a co-occurrence matrix.

    PPMI(w, c) = max(0, log P(w, c) / (P(w) P_a(c))), with the context distribution raised to
    ``context_smoothing`` (Levy, Goldberg and Dagan, 2015: the same 3/4 power as word2vec's noise).
    The smoothing lowers P_a(c) of frequent contexts less than of rare ones, so words such as "the"
    keep a small positive PPMI in many rows; with ``context_smoothing=1.0`` they stay near 0.
    """
    counts = sp.csr_matrix(counts, dtype=np.float64)
    total = counts.sum()
    word_totals = np.asarray(counts.sum(axis=1)).ravel()
    context = np.asarray(counts.sum(axis=0)).ravel() ** context_smoothing
    context_probability = context / context.sum()
    coo = counts.tocoo()
    pmi = np.log(coo.data * 1.0 / total) - np.log(word_totals[coo.row] / total) - np.log(context_probability[coo.col])
    keep = pmi > 0
    return sp.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=counts.shape)


def svd_vectors(matrix: sp.spmatrix, dim: int = 100, seed: int = 0, eigenvalue_power: float = 0.5) -> np.ndarray:
    """``(V, dim)`` vectors from a truncated SVD, U * S^p (p = 0.5 by default, as Levy et al. advise)."""
    from sklearn.utils.extmath import randomized_svd

    if not 1 <= dim < min(matrix.shape):
        raise SettingError(f"dim must be between 1 and {min(matrix.shape) - 1}, got {dim}")
    u, s, _ = randomized_svd(matrix, n_components=dim, random_state=seed)
    return (u * s ** eigenvalue_power).astype(np.float32)


@dataclass(frozen=True)
class CountVectorsConfig:
    window: int = 5
    dim: int = 100
    weighting: str = "harmonic"
    context_smoothing: float = 0.75
    eigenvalue_power: float = 0.5
    seed: int = 0


def count_vectors(corpus, vocab, config: CountVectorsConfig = CountVectorsConfig()):
    """Co-occurrence counts -> PPMI -> SVD for ``corpus`` over ``vocab``: a gensim ``KeyedVectors``.

    Special tokens are left out of the result.
    """
    ids, offsets = vocab.encode_corpus(corpus, unknown="drop")
    counts = cooccurrence_matrix(ids, offsets, len(vocab), config.window, config.weighting)
    first = vocab.num_specials
    reweighted = ppmi(counts[first:, first:], config.context_smoothing)
    vectors = svd_vectors(reweighted, config.dim, config.seed, config.eigenvalue_power)
    return keyed_vectors(vocab.words[first:], vectors)


def context_table(matrix: sp.spmatrix | np.ndarray, words: list[str], rows: list[str],
                  columns: list[str]) -> np.ndarray:
    """``(len(rows), len(columns))`` float64: the cells of a word-by-context matrix for named words.

    Args:
        matrix: ``(V, V)`` counts, PPMI or any matrix whose rows and columns are both ``words``.
        words: ``(V,)`` the word of each row (and column) of ``matrix``, in order, for example
            ``vocab.words`` for a matrix made by :func:`cooccurrence_matrix` over the whole vocabulary.
        rows, columns: the words to look up.

    Raises:
        WordNotInVocabularyError: a word in ``rows`` or ``columns`` is not in ``words``.
    """
    from ..core.errors import WordNotInVocabularyError

    index = {word: i for i, word in enumerate(words)}
    missing = [word for word in (*rows, *columns) if word not in index]
    if missing:
        raise WordNotInVocabularyError(f"not among the matrix's {len(words):,} words: {', '.join(missing)}")
    block = sp.csr_matrix(matrix)[[index[word] for word in rows]][:, [index[word] for word in columns]]
    return block.toarray().astype(np.float64)


def top_contexts(matrix: sp.spmatrix | np.ndarray, words: list[str], word: str,
                 topn: int = 8) -> list[tuple[str, float]]:
    """The ``topn`` contexts with the largest values in ``word``'s row, largest first, zeros left out.

    Args:
        matrix: ``(V, V)`` counts, PPMI or any matrix whose rows and columns are both ``words``.
        words: ``(V,)`` the word of each row (and column) of ``matrix``, in order.

    Returns:
        up to ``topn`` pairs ``(context word, value)``.

    Raises:
        WordNotInVocabularyError: ``word`` is not in ``words``.
    """
    from ..core.errors import WordNotInVocabularyError

    try:
        position = list(words).index(word)
    except ValueError:
        raise WordNotInVocabularyError(f"{word!r} is not among the matrix's {len(words):,} words") from None
    row = sp.csr_matrix(matrix)[position]
    order = np.argsort(-row.data, kind="stable")[:topn]
    return [(words[int(row.indices[i])], float(row.data[i])) for i in order if row.data[i] != 0]


def block_density(matrix: sp.spmatrix, block: int = 100) -> np.ndarray:
    """The share of non-zero cells in each ``block`` x ``block`` tile of a sparse matrix, for a picture.

    Args:
        matrix: ``(R, C)`` sparse (or dense) matrix, for example co-occurrence counts with the words
            in order of frequency.
        block: the side of a tile in cells; the last row and column of tiles may be smaller, and
            their share is taken over the cells they really have.

    Returns:
        ``(ceil(R / block), ceil(C / block))`` float64 shares between 0 and 1.
    """
    if block < 1:
        raise SettingError(f"block must be at least 1, got {block}")
    coo = sp.coo_matrix(matrix)
    coo.sum_duplicates()
    nonzero = coo.data != 0
    rows, cols = coo.shape
    tiles_r, tiles_c = -(-rows // block), -(-cols // block)
    tile = (coo.row[nonzero] // block) * tiles_c + coo.col[nonzero] // block
    found = np.bincount(tile, minlength=tiles_r * tiles_c).reshape(tiles_r, tiles_c)
    height = np.minimum(block, rows - block * np.arange(tiles_r))
    width = np.minimum(block, cols - block * np.arange(tiles_c))
    return found / np.outer(height, width)
