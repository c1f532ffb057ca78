"""Measuring what vectors hold.

- :mod:`~course.analysis.vectors`: static vectors in and out as gensim ``KeyedVectors`` and word2vec files;
- :mod:`~course.analysis.evaluate`: analogies (3CosAdd, 3CosMul), word-pair similarity and neighbours;
- :mod:`~course.analysis.bias`: a gender direction, projections on it, WEAT, neutralising a direction;
- :mod:`~course.analysis.probes`: probe files, sense probes per layer, nearest contexts;
- :mod:`~course.analysis.pos_probe`: a linear POS probe per layer beside the most-frequent-tag baseline;
- :mod:`~course.analysis.context_use`: how far back a left-to-right language model looks.
"""
