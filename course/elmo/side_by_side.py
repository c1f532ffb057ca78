"""One training step of the biLM with its two directions side by side, each on a CPU thread of its own.

The forward and backward LMs share only the token vectors x (and the softmax's weights); the LSTMs,
which take most of a step, are each direction's own. The token encoder reads each distinct word of
the batch apart from the others, so its words split into two halves (:func:`~course.elmo.token_encoder.halves`)
that it encodes apart. So a step on two cores is

1. on two threads at once, the token encoder's vectors of each half of the distinct words; then
   x = the vectors at each position, and the batch's dropout masks (:meth:`BiLM.dropout_masks`), here;
2. on two threads at once, each direction's loss L_f = NLL_f / N and L_b = NLL_b / N (N predictions)
   from its own copy of x, and its backward pass, which leaves dL_f/dx, dL_b/dx and adds each
   direction's gradients into the shared softmax's;
3. here, dL/dx = dL_f/dx + dL_b/dx back to each half's vectors; then on two threads at once, the token
   encoder's backward pass of each half, each adding its gradients into the encoder's.

The gradients are those of L = L_f + L_b, the loss :meth:`BiLM.loss` takes one direction after the
other with the same two halves of the words: every shared gradient is a sum of the same two terms
(the two directions', or the two halves'), and the sum of two floating-point numbers does not depend
on their order, so the two ways give the same weights to the last bit.

Each thread runs its own operations with one intra-op thread (PyTorch releases the interpreter's lock
inside them), which suits these small matrices better than splitting each product over two threads
(measured: ``benchmarks/elmo_threads.py``). Autocast is per thread, so each enters its own.

The second thread is one for the whole run (:func:`direction_worker`), made ready before the first
step: the first time a thread asks for PyTorch's thread count, PyTorch sets it, and setting it empties
oneDNN's cache of compiled kernels, which must not happen while the other thread runs one of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager

import torch

from ..lm.precision import autocast
from .bilm import BiLM
from .token_encoder import halves


def _ready() -> None:
    """The worker thread's first call: PyTorch's per-thread set-up, done while no other thread computes."""
    torch.get_num_threads()
    torch.zeros(2).add_(1)


@contextmanager
def direction_worker() -> Iterator[ThreadPoolExecutor]:
    """The thread that runs the backward direction, for the steps of one run: started and made ready
    here (PyTorch's thread count is the caller's, set before), shut down at the end."""
    worker = ThreadPoolExecutor(1, thread_name_prefix="biLM backward direction", initializer=_ready)
    try:
        worker.submit(lambda: None).result()
        yield worker
    finally:
        worker.shutdown(wait=True)


def side_by_side_backward(bilm: BiLM, batch, device: torch.device, dtype,
                          worker: ThreadPoolExecutor) -> tuple[torch.Tensor, torch.Tensor]:
    """Forward and backward passes of the biLM loss of ``batch`` with the work split over two threads;
    the gradients are added into the parameters' ``.grad``.

    Args:
        bilm: the network, in training mode or not.
        batch: a :class:`~course.elmo.batching.SentenceBatch` on ``device``.
        dtype: the autocast dtype (None: float32).
        worker: the second thread (:func:`direction_worker`).

    Returns:
        The two directions' summed negative log-likelihoods (detached), as :meth:`BiLM.loss` returns them.
    """
    def encode(words: torch.Tensor) -> torch.Tensor:
        with autocast(device, dtype, cache=False):
            return bilm.token_encoder.encode_distinct(words)

    encoded = _on_both(worker, encode, halves(batch.char_ids))  # each (U_i, d)
    parts = [vectors.detach().requires_grad_() for vectors in encoded]
    with autocast(device, dtype, cache=False):
        x = torch.cat(parts)[batch.index]  # (B, T, d)
        masks = bilm.dropout_masks(x)
    predictions = max(batch.predictions, 1)
    copies = {direction: x.detach().requires_grad_() for direction in ("forward", "backward")}

    def direction(name: str) -> torch.Tensor:
        with autocast(device, dtype, cache=False):
            total = bilm.direction_nll(copies[name], batch.mask, batch.targets, name, masks)
        (total / predictions).backward()
        return total.detach()

    forward_sum, backward_sum = _on_both(worker, direction, ["forward", "backward"])
    x.backward(copies["forward"].grad + copies["backward"].grad)
    _on_both(worker, lambda pair: pair[0].backward(pair[1].grad), list(zip(encoded, parts, strict=True)))
    return forward_sum, backward_sum


def _on_both(worker: ThreadPoolExecutor, function, inputs: list) -> list:
    """``[function(x) for x in inputs]`` (one or two inputs): the first here, the second on ``worker`` at the
    same time. Both are waited for; a failure of either is raised here (the first input's first)."""
    if len(inputs) == 1:
        return [function(inputs[0])]
    other = worker.submit(function, inputs[1])
    try:
        first = function(inputs[0])
    finally:
        wait([other])
    return [first, other.result()]
