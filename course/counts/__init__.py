"""The count-based models: what counting words alone gives.

- :mod:`~course.counts.count_vectors`: a co-occurrence matrix, positive PMI and a truncated SVD: count-based
  word vectors;
- :mod:`~course.counts.ngram`: counted n-gram language models with interpolated Kneser-Ney smoothing, forward
  and backward: the biLM's yardstick.
"""
