"""Pictures of words and models.

- :mod:`~course.figures.plots`: Zipf plots, heat maps, t-SNE maps, analogy arrows, training curves, Huffman
  trees; the CJK font for Chinese labels;
- :mod:`~course.figures.maps`: interactive word maps that work offline (Bokeh), alone or linked;
- :mod:`~course.figures.diagrams`: a diagram of each model, drawn by code where its notebook introduces it;
- :mod:`~course.figures.drawing`: the boxes, arrows, tables and grids the diagrams are drawn with;
- :mod:`~course.figures.projector`: vectors in the files TensorBoard's Embedding Projector reads.
"""
