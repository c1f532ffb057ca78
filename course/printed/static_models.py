"""What notebooks 00-05 (corpora, count vectors, word2vec, GloVe, the comparison) print, in each edition."""

PRINTED: dict[str, dict[str, str]] = {
}
