"""The course's shared files: which model or vectors each notebook trains or loads, and where they lie.
A notebook that finds a file saved with today's settings loads it; else it trains it and saves it,
so each file is made once, by the first notebook that needs it.

- :mod:`~course.shared.files`: the table of shared files, who makes each and who reads it;
- :mod:`~course.shared.saved`: waiting for a file a parallel build is still making, and the rule that
  loads a saved model only when it was trained with today's settings;
- :mod:`~course.shared.corpus`: the text the course's own language models are trained on;
- :mod:`~course.shared.vectors`: the skip-gram and GloVe vectors, per corpus;
- :mod:`~course.shared.bilm`: the biLMs, per corpus and profile;
- :mod:`~course.shared.review_lm`: ULMFiT's language model fine-tuned on the reviews;
- :mod:`~course.shared.transformers`: the GPT and BERT models, and BERT on sentence pairs;
- :mod:`~course.shared.at_scale`: the models published at scale, from the cache :mod:`course.pretrained` fills.
"""
