"""Text in; tokens, corpora and vocabularies out.

- :mod:`~course.text.corpus`: named corpora (offline and downloadable) and the user's own files as a
  :class:`~course.text.corpus.Corpus` (flat token ids and sentence offsets), cached;
- :mod:`~course.text.corpus_cache`: the cached corpora's files, written atomically with a header and read
  back only when every check passes;
- :mod:`~course.text.tokenize`: English tokens and sentences; Chinese segmentation with jieba;
- :mod:`~course.text.subwords`: byte-pair encoding: the merges learned from word counts, and words cut by them;
- :mod:`~course.text.download`: cached, checksummed, atomic downloads with a progress bar;
- :mod:`~course.text.vocab`: :class:`~course.text.vocab.Vocabulary`: counts, ``min_count``, specials,
  subsampling, the noise distribution, Huffman codes.
"""
