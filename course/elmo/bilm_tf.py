"""The published ELMo in the course's biLM: bilm-tf's ``options.json`` and ``weights.hdf5`` read into
an :class:`~course.elmo.Elmo`, so that every course tool takes it as it takes its own.

allennlp publishes the original models (Peters et al., 2018) in the format of bilm-tf, the authors'
TensorFlow code: an ``options.json`` with the sizes, and a ``weights.hdf5`` with one dataset per
TensorFlow variable. What decides that the course's code computes the same numbers, each found in
bilm-tf's ``bilm/model.py`` and ``bilm/data.py``:

- **Character ids.** A word is its UTF-8 bytes (0-255), at most ``max_characters_per_token - 2`` of
  them, between the marks begin-of-word (258) and end-of-word (259), padded with 260 to the full
  width; the sentence marks ``<S>`` and ``</S>`` are the one-character words 256 and 257. Every id is
  shifted by one, 0 meaning no word (:class:`~course.elmo.characters.ByteCharacters`). The file's
  ``char_embed`` has a row per shifted id from 1; row 0 (no word) is zeros.
- **The char-CNN** convolves the whole padded row (TensorFlow's "VALID": ``max_characters - w + 1``
  windows for a filter of width w, the padding character embedded like any other), max-pools over
  all windows and then applies the activation. ``W_cnn_i`` is ``(1, w, char_dim, filters)``.
- **Highway layers.** bilm-tf computes ``y = t * relu(W_T x + b_T) + (1 - t) * x`` with
  ``t = sigmoid(W_carry x + b_carry)``: its "carry" gate weighs the transform. The course's
  :class:`~course.elmo.token_encoder.Highway` computes ``y = g * x + (1 - g) * relu(...)``, so
  ``g = 1 - t = sigmoid(-(W_carry x + b_carry))``: the gate's weights and bias are negated.
- **The projection** ``CNN_proj`` to d exists where the filters add up to more than d; where they
  add up to d exactly there is none, and the course's projection is the identity.
- **The LSTMs** are TensorFlow's ``LSTMCell`` with ``num_proj``: one kernel ``W_0`` of shape
  ``(D + P, 4 H)`` for ``[x_t; h_{t-1}]``, gates in the order (i, j, f, o) where j is the candidate,
  a bias ``B`` and a forget bias of 1 added to f at every step (not stored), no peepholes; the cell
  is clipped to ``[-cell_clip, cell_clip]`` before the output gate reads it, and the projected
  output (``W_P_0``, ``(H, P)``) to ``[-proj_clip, proj_clip]``
  (:class:`~course.elmo.lstm.ClippedLSTMP`). The gates are reordered to PyTorch's (i, f, g, o)
  and the forget bias folded into the bias.
- **Skip connections.** With ``use_skip_connections``, bilm-tf wraps every layer but the first in a
  ``ResidualWrapper``: layer j >= 2 outputs its LSTM's output plus its input, as the course's biLM.
- **The backward LM** (``RNN_1``; ``RNN_0`` is forward) reads each sentence reversed within its own
  length, ``</S>`` first, and its outputs are reversed back, so position k holds what it read from
  the end down to k.
- **Layers out.** Layer 0 is the token vector twice, ``[x; x]``; layer j is ``[forward_j; backward_j]``;
  ``<S>`` and ``</S>`` are dropped. bilm-tf's LSTMs are stateful: each row of a batch starts from the
  states the row's previous sentence ended with (:func:`course.elmo.embedder.embed_stateful`).

The files have no softmax (the models are published for their layers), so the converted model
embeds but does not predict words (``softmax="none"``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import torch

from ..core.errors import ModelFileError
from ..text.vocab import DEFAULT_SPECIALS, Vocabulary
from .characters import ByteCharacters
from .config import ElmoConfig
from .model import Elmo

FORGET_BIAS = 1.0  # TensorFlow's LSTMCell adds it to the forget gate at every step
TF_GATES = ("i", "j", "f", "o")  # TensorFlow's order; j is the candidate (PyTorch's g)
TORCH_ORDER = (0, 2, 1, 3)  # PyTorch's (i, f, g, o) as indices into TensorFlow's


def read_options(path: str | os.PathLike) -> dict:
    """bilm-tf's ``options.json`` as a dictionary.

    Raises:
        ModelFileError: no such file, not JSON, or without the ``lstm`` and ``char_cnn`` sections.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such options file (bilm-tf's options.json)")
    try:
        options = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{path}: not bilm-tf's options.json (not JSON: {exc})") from None
    if not isinstance(options, dict) or not isinstance(options.get("lstm"), dict) \
            or not isinstance(options.get("char_cnn"), dict):
        raise ModelFileError(f"{path}: not the options of a character-input bilm-tf model (it needs the sections "
                             "'lstm' and 'char_cnn')")
    return options


def config_from_options(options: dict, name: str = "bilm-tf") -> ElmoConfig:
    """The course's settings of the model that ``options`` describes (``name`` becomes its preset).

    Raises:
        ModelFileError: a field missing, or a shape the course's biLM does not have (an LSTM without
            a projection, an activation other than relu and tanh).
    """
    lstm, cnn = options["lstm"], options["char_cnn"]
    try:
        filters = tuple((int(width), int(number)) for width, number in cnn["filters"])
        fields = dict(
            max_characters=int(cnn["max_characters_per_token"]), char_dim=int(cnn["embedding"]["dim"]),
            filters=filters, highway_layers=int(cnn.get("n_highway") or 0), character_ids="bilm-tf",
            cnn_activation=str(cnn.get("activation", "relu")), projection_dim=int(lstm["projection_dim"]),
            lstm_dim=int(lstm["dim"]), num_layers=int(lstm.get("n_layers", 1)),
            residual=bool(lstm.get("use_skip_connections", False)),
            cell_clip=float(lstm["cell_clip"]) if lstm.get("cell_clip") else None,
            proj_clip=float(lstm["proj_clip"]) if lstm.get("proj_clip") else None,
            softmax="none", dropout=0.0, preset=name)
    except (KeyError, TypeError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
        raise ModelFileError(f"bilm-tf options: a field is missing or malformed ({problem})") from None
    if int(cnn.get("n_characters", ByteCharacters.SIZE)) not in (ByteCharacters.SIZE - 1, ByteCharacters.SIZE):
        raise ModelFileError(f"bilm-tf options: n_characters is {cnn.get('n_characters')}, not the 261 (or 262) of "
                             "UTF-8 byte ids")
    if fields["lstm_dim"] <= fields["projection_dim"]:
        raise ModelFileError(f"bilm-tf options: LSTMs of {fields['lstm_dim']} cells without a smaller projection "
                             f"({fields['projection_dim']}); the course's biLM needs projected LSTMs, as every "
                             "published ELMo has")
    if sum(number for _, number in filters) < fields["projection_dim"]:
        raise ModelFileError("bilm-tf options: the char-CNN has fewer filters than projection_dim")
    try:
        return ElmoConfig(**fields)
    except Exception as exc:  # noqa: BLE001 - a SettingError naming the field
        raise ModelFileError(f"bilm-tf options: {exc}") from None


class _Weights:
    """The datasets of ``weights.hdf5``, each read once and checked for its shape."""

    def __init__(self, handle, path: Path):
        self.handle, self.path = handle, path

    def __call__(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        if name not in self.handle:
            raise ModelFileError(f"{self.path}: no dataset {name}; the weights do not belong to these options")
        value = np.asarray(self.handle[name][...], dtype=np.float32)
        if value.shape != tuple(shape):
            raise ModelFileError(f"{self.path}: {name} has the shape {value.shape}, the options give {tuple(shape)}; "
                                 "the weights do not belong to these options")
        return value


def _lstm_weights(read: _Weights, direction: int, layer: int, config: ElmoConfig) -> dict[str, np.ndarray]:
    """One TensorFlow ``LSTMCell``'s variables as ``torch.nn.LSTM``'s (single layer) parameters."""
    d, h = config.projection_dim, config.lstm_dim
    where = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
    kernel = read(f"{where}/W_0", (d + d, 4 * h))  # [x_t; h_{t-1}] -> (i, j, f, o)
    bias = read(f"{where}/B", (4 * h,)).copy()
    bias[2 * h: 3 * h] += FORGET_BIAS

    def torch_order(matrix):  # (..., 4 H) in TensorFlow's gate order -> PyTorch's
        return np.concatenate([matrix[..., k * h:(k + 1) * h] for k in TORCH_ORDER], axis=-1)

    return {"weight_ih_l0": torch_order(kernel[:d]).T, "weight_hh_l0": torch_order(kernel[d:]).T,
            "bias_ih_l0": torch_order(bias), "bias_hh_l0": np.zeros(4 * h, np.float32),
            "weight_hr_l0": read(f"{where}/W_P_0", (h, d)).T}


def state_dict_from_hdf5(path: str | os.PathLike, config: ElmoConfig) -> dict[str, torch.Tensor]:
    """The course biLM's weights (``BiLM.state_dict()`` names) from bilm-tf's ``weights.hdf5``.

    Raises:
        ModelFileError: not an HDF5 file, or one whose datasets do not match ``config``.
    """
    import h5py

    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such weights file (bilm-tf's weights.hdf5)")
    try:
        handle = h5py.File(path, "r")
    except OSError as exc:
        raise ModelFileError(f"{path}: not an HDF5 weights file ({exc})") from None
    weights: dict[str, np.ndarray] = {}
    with handle:
        read = _Weights(handle, path)
        stored = np.asarray(handle["char_embed"][...], np.float32) if "char_embed" in handle else None
        if stored is None or stored.ndim != 2 or stored.shape[1] != config.char_dim \
                or stored.shape[0] not in (ByteCharacters.SIZE - 1, ByteCharacters.SIZE):
            read("char_embed", (ByteCharacters.SIZE - 1, config.char_dim))  # names what is wrong
        embedding = np.zeros((ByteCharacters.SIZE, config.char_dim), np.float32)
        embedding[ByteCharacters.SIZE - len(stored):] = stored  # row 0 (no word here) stays zero
        weights["token_encoder.char_embedding.weight"] = embedding
        for i, (width, number) in enumerate(config.filters):
            kernel = read(f"CNN/W_cnn_{i}", (1, width, config.char_dim, number))
            weights[f"token_encoder.convolutions.{i}.weight"] = kernel[0].transpose(2, 1, 0)  # (filters, char_dim, w)
            weights[f"token_encoder.convolutions.{i}.bias"] = read(f"CNN/b_cnn_{i}", (number,))
        features, d = config.num_filters, config.projection_dim
        for k in range(config.highway_layers):
            where = f"CNN_high_{k}"
            weights[f"token_encoder.highways.{k}.transform.weight"] = read(f"{where}/W_transform", (features,) * 2).T
            weights[f"token_encoder.highways.{k}.transform.bias"] = read(f"{where}/b_transform", (features,))
            weights[f"token_encoder.highways.{k}.gate.weight"] = -read(f"{where}/W_carry", (features,) * 2).T
            weights[f"token_encoder.highways.{k}.gate.bias"] = -read(f"{where}/b_carry", (features,))
        if features == d:
            weights["token_encoder.projection.weight"] = np.eye(d, dtype=np.float32)
            weights["token_encoder.projection.bias"] = np.zeros(d, np.float32)
        else:
            weights["token_encoder.projection.weight"] = read("CNN_proj/W_proj", (features, d)).T
            weights["token_encoder.projection.bias"] = read("CNN_proj/b_proj", (d,))
        for direction, lm in enumerate(("forward_lm", "backward_lm")):
            for layer in range(config.num_layers):
                for name, value in _lstm_weights(read, direction, layer, config).items():
                    weights[f"{lm}.layers.{layer}.{name}"] = value
    return {name: torch.from_numpy(np.ascontiguousarray(value)) for name, value in weights.items()}


def convert(options_path: str | os.PathLike, weights_path: str | os.PathLike, name: str = "bilm-tf",
            device: str = "cpu") -> Elmo:
    """bilm-tf's ``options.json`` and ``weights.hdf5`` as a course :class:`~course.elmo.Elmo`
    (``model.save(path)`` writes its model file).

    Raises:
        ModelFileError: a file missing or damaged, or weights that do not match the options.
    """
    config = config_from_options(read_options(options_path), name)
    weights = state_dict_from_hdf5(weights_path, config)
    words = Vocabulary(list(DEFAULT_SPECIALS), [0] * len(DEFAULT_SPECIALS), DEFAULT_SPECIALS)
    model = Elmo(config, words, ByteCharacters(config.max_characters), device=device)
    missing, unexpected = model.bilm.load_state_dict(weights, strict=False)
    if unexpected or missing:
        raise ModelFileError(f"{weights_path}: the converted weights do not fit the biLM (missing {missing[:3]}, "
                             f"unexpected {unexpected[:3]})")
    model.bilm.eval()
    return model
