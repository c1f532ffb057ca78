"""ELMo's vectors for the tokens of sentences: the L + 1 layers of the biLM.

For a sentence of n tokens (wrapped in ``<bos>`` .. ``<eos>`` inside, unwrapped outside) and a
biLM of L layers per direction, each token k gets

- layer 0: the token encoder's vector x_k, duplicated to [x_k; x_k] so that it has the 2 d of
  the other layers (as in the paper);
- layer j = 1 .. L: [forward h_{k,j}; backward h_{k,j}], the two directions side by side.

Each sentence is embedded on its own: nothing is carried from one sentence to the next, and
padding never reaches a real token, so a sentence gets the same vectors in any batch. The published
ELMo made its own outputs otherwise, statefully: :func:`embed_stateful` reads the sentences as one
row, each starting from the states the previous one ended with. :func:`embed_file` writes either
in allennlp's ``elmo --all`` HDF5 layout.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from ..core.errors import CourseError, SettingError
from ..core.io import atomic_path
from ..core.progress import progress_bar
from .bilm import BiLM, BiLMStates
from .characters import ByteCharacters, CharacterVocabulary


def layers_of(states: BiLMStates) -> torch.Tensor:
    """``(L + 1, B, T, 2 d)``: layer 0 ``[x; x]``, then ``[forward_j; backward_j]``."""
    layers = [torch.cat([states.tokens, states.tokens], dim=-1)]
    layers += [torch.cat([f, b], dim=-1) for f, b in zip(states.forward, states.backward, strict=True)]
    return torch.stack(layers)


@torch.no_grad()
def embed_sentences(bilm: BiLM, characters: CharacterVocabulary | ByteCharacters, sentences: Sequence[Sequence[str]],
                    batch_tokens: int = 4_000) -> list[np.ndarray]:
    """ELMo's layers for every token of every sentence.

    Args:
        bilm: the biLM (put in eval mode while embedding, then back).
        characters: its character vocabulary.
        sentences: lists of tokens (already tokenised as the training corpus was).
        batch_tokens: padded positions per batch (sentences of similar length go together).

    Returns:
        One ``(L + 1, n_i, 2 d)`` float32 array per sentence, in the order given.
    """
    sentences = [list(sentence) for sentence in sentences]
    device = next(bilm.parameters()).device
    was_training = bilm.training
    bilm.eval()
    out: list[np.ndarray | None] = [None] * len(sentences)
    order = np.argsort([len(sentence) for sentence in sentences], kind="stable")
    try:
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and (end - start + 1) * (len(sentences[order[end]]) + 2) <= batch_tokens:
                end += 1
            group = order[start:end]
            char_ids, mask = characters.encode_sentences([sentences[i] for i in group])
            states = bilm(torch.from_numpy(char_ids).to(device), torch.from_numpy(mask).to(device))
            layers = layers_of(states).float().cpu().numpy()  # (L + 1, B, T, 2 d)
            for row, i in enumerate(group):
                out[i] = np.ascontiguousarray(layers[:, row, 1:len(sentences[i]) + 1])
            start = end
    finally:
        bilm.train(was_training)
    return out


@torch.no_grad()
def token_vectors(bilm: BiLM, characters: CharacterVocabulary, words: Sequence[str]) -> np.ndarray:
    """``(len(words), 2 d)`` float32: layer 0 of each word, ``[x; x]``, which no context changes."""
    if not words:
        return np.zeros((0, 2 * bilm.config.projection_dim), np.float32)
    was_training = bilm.training
    bilm.eval()
    try:
        rows = torch.from_numpy(characters.encode(list(words))).to(next(bilm.parameters()).device)
        x = bilm.token_encoder(rows)
        return torch.cat([x, x], dim=-1).float().cpu().numpy()
    finally:
        bilm.train(was_training)


@torch.no_grad()
def embed_stateful(bilm: BiLM, characters: CharacterVocabulary | ByteCharacters, sentences: Sequence[Sequence[str]],
                   progress: bool = False) -> list[np.ndarray]:
    """ELMo's layers of ``sentences`` read as one row, as bilm-tf's stateful LSTMs read a row of a
    batch: each direction of each layer starts sentence i from the ``(h, c)`` it ended sentence
    i - 1 with (the forward LM after ``</S>``, the backward LM after ``<S>``); the first sentence
    starts from zeros, so it gets what :func:`embed_sentences` gives it.

    Returns one ``(L + 1, n_i, 2 d)`` float32 array per sentence, in the order given.
    """
    device = next(bilm.parameters()).device
    was_training = bilm.training
    bilm.eval()
    out, state = [], None
    try:
        for sentence in progress_bar(sentences, desc="ELMo (stateful)", unit="sentence", disable=not progress):
            char_ids, mask = characters.encode_sentences([list(sentence)])
            states = bilm(torch.from_numpy(char_ids).to(device), torch.from_numpy(mask).to(device), initial=state)
            state = states.final
            out.append(np.ascontiguousarray(layers_of(states)[:, 0, 1:len(sentence) + 1].float().cpu().numpy()))
    finally:
        bilm.train(was_training)
    return out


def read_sentence_lines(path) -> list[str]:
    """The lines of a UTF-8 file of one whitespace-tokenised sentence a line, stripped.

    Raises:
        SettingError: no such file, not UTF-8, no sentence, or an empty line (named).
    """
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        raise SettingError(f"{path}: no such file (one whitespace-tokenised sentence a line)")
    try:
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    except UnicodeDecodeError as exc:
        raise SettingError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    while lines and not lines[-1]:
        lines.pop()
    blank = [i + 1 for i, line in enumerate(lines) if not line]
    if blank:
        shown = ", ".join(map(str, blank[:5])) + (" ..." if len(blank) > 5 else "")
        raise SettingError(f"{path}: empty line {shown}: every line must hold a sentence (remove the empty ones)")
    if not lines:
        raise SettingError(f"{path}: no sentence in the file")
    return lines


def embed_file(model, input_path, output_path, stateful: bool = False, batch_tokens: int = 4_000,
               progress: bool = True) -> int:
    """Embed a file of one whitespace-tokenised sentence a line into ``output_path``, in the layout
    of allennlp's ``elmo --all``: a float32 dataset ``"i"`` of shape ``(L + 1, n_i, 2 d)`` for line i
    (from 0; layer 0 ``[x; x]``, layer j ``[forward_j; backward_j]``, no sentence marks), and
    ``"sentence_to_index"``: one string, the JSON object mapping each line's text to its key.

    ``model``: an :class:`~course.elmo.Elmo`. ``stateful``: :func:`embed_stateful`, else each
    sentence from a zero state (:func:`embed_sentences`). The file is written whole or not at all.
    Returns the number of sentences.
    """
    import json

    import h5py

    lines = read_sentence_lines(input_path)
    sentences = [line.split() for line in lines]
    if stateful:
        layers = embed_stateful(model.bilm, model.characters, sentences, progress=progress)
    else:
        layers = embed_sentences(model.bilm, model.characters, sentences, batch_tokens=batch_tokens)
    try:
        with atomic_path(output_path) as temporary, h5py.File(temporary, "w", locking=False) as out:
            for i, array in enumerate(layers):
                out.create_dataset(str(i), data=array.astype(np.float32, copy=False))
            index = out.create_dataset("sentence_to_index", (1,), dtype=h5py.string_dtype())
            index[0] = json.dumps({line: str(i) for i, line in enumerate(lines)}, ensure_ascii=False)
    except OSError as exc:
        raise CourseError(f"{output_path}: could not be written ({exc})") from None
    return len(layers)
