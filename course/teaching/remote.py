"""Calling a student's function from another process, with nothing but data crossing over.

The grader runs a student's notebook in one kernel (the *student kernel*) and the teacher's checks in
another (the *checking kernel*). The checks get, for each function a solution cell defines, a
:class:`RemoteFunction` of the same name: calling it sends the arguments to the student kernel,
which calls the student's function there and sends the result back. Student code therefore never
runs in the process that holds the checks, the hidden tests and the reference implementations, so
it cannot rebind, monkeypatch or shadow anything there.

What crosses is data only, in both directions: a tree of JSON (numbers, strings, lists, tuples,
dicts) whose arrays travel in an uncompressed ``.npz`` read with ``allow_pickle=False``. Numpy
arrays and scalars, torch tensors and gensim ``KeyedVectors`` are rebuilt on the other side. A
result that needs gradients (a torch tensor computed from arguments that require them) comes back
as a tensor whose backward pass asks the student kernel for the vector-Jacobian product, so a
check can call ``backward()`` on it as on a local one.

The student kernel runs :func:`serve`; the checking kernel calls :func:`bind` once and then
:func:`function` for each name.

Each answer also says what the call ran: the student kernel traces every Python function that runs while
the student's function does (``sys.setprofile``, in its thread and the threads it starts), and sends the
names of the course's functions among them (outside ``course/teaching/``) and a fingerprint of the
bytecode of every function that is not Python's own. Around a grade cell the checking kernel traces the
checks the same way (:func:`watch`); :func:`verdict` then names the course's functions that the checks
ran and that the student's functions ran too, by name or as a copy of their bytecode (loaded from the
file under another name, compiled from a string): an answer that is, wraps or calls into the
implementation the check compares it with.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import struct
import sys
import threading
import types
import zipfile
from pathlib import Path

import numpy as np

MAX_MESSAGE = 1 << 30  # bytes: a larger message from the student kernel is refused, not read
MIN_CODE = 128  # bytes of bytecode below which a function is too small to tell a copy from a coincidence
PACKAGE = Path(__file__).resolve().parents[1]  # the course package: what it holds outside teaching/ is the reference
TEACHING = PACKAGE / "teaching"
HEADER = struct.Struct("!Q")


class StudentError(Exception):
    """The student's function raised; the subclass is named after the student's exception."""


class StudentTimeout(StudentError):
    """The student's function ran longer than the grader's limit."""


class StudentKernelDied(StudentError):
    """The student's kernel died while it was computing (or before it could answer)."""


class BadAnswer(StudentError):
    """What came back from the student kernel is not a well-formed answer."""


# ----------------------------------------------------------------------------------- encoding


def encode(value) -> bytes:
    """``value`` as the bytes of an ``.npz``: the JSON tree under ``tree``, the arrays as ``a0, a1, ...``."""
    arrays: list[np.ndarray] = []
    tree = _to_tree(value, arrays)
    buffer = io.BytesIO()
    np.savez(buffer, tree=np.frombuffer(json.dumps(tree).encode("utf-8"), dtype=np.uint8),
             **{f"a{i}": array for i, array in enumerate(arrays)})
    return buffer.getvalue()


def decode(data: bytes, on_graph=None):
    """The value :func:`encode` wrote. A tensor sent with a graph number becomes
    ``on_graph(tensor, number)`` (the checking side makes it differentiable), else a plain tensor."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            for info in archive.zip.infolist():
                if info.file_size > MAX_MESSAGE:
                    raise BadAnswer(f"an array of {info.file_size:,} bytes")
            arrays = {name: archive[name] for name in archive.files}
        tree = json.loads(arrays.pop("tree").tobytes().decode("utf-8"))
    except (ValueError, OSError, KeyError, UnicodeDecodeError, zipfile.BadZipFile) as exc:
        raise BadAnswer(f"not a well-formed answer ({type(exc).__name__})") from None
    return _from_tree(tree, arrays, on_graph)


def _to_tree(value, arrays: list):
    if isinstance(value, GradientTensor):
        return {**_to_tree(value.tensor, arrays), "graph": value.graph}
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | float) and type(value) in (int, float):
        return value
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise TypeError("an array of Python objects cannot be sent")
        arrays.append(value)
        return {"t": "ndarray", "i": len(arrays) - 1}
    if isinstance(value, np.generic):
        arrays.append(np.asarray(value))
        return {"t": "scalar", "i": len(arrays) - 1}
    if isinstance(value, tuple | list):
        return {"t": type(value).__name__, "v": [_to_tree(item, arrays) for item in value]}
    if isinstance(value, dict):
        return {"t": "dict", "v": [[_to_tree(k, arrays), _to_tree(v, arrays)] for k, v in value.items()]}
    kind = f"{type(value).__module__}.{type(value).__name__}"
    if kind == "torch.Tensor":
        arrays.append(value.detach().cpu().numpy())
        return {"t": "tensor", "i": len(arrays) - 1, "grad": bool(value.requires_grad),
                "dtype": str(value.dtype).removeprefix("torch.")}
    if kind == "gensim.models.keyedvectors.KeyedVectors":
        arrays.append(np.asarray(value.vectors))
        return {"t": "keyed_vectors", "i": len(arrays) - 1, "keys": [_to_tree(k, arrays) for k in value.index_to_key]}
    raise TypeError(f"a value of type {kind} cannot be sent between the grader's kernels")


def _from_tree(tree, arrays: dict, on_graph):
    if not isinstance(tree, dict):
        if tree is None or isinstance(tree, bool | int | float | str):
            return tree
        raise BadAnswer(f"an unexpected {type(tree).__name__} in the answer")
    kind = tree.get("t")
    if kind in ("tuple", "list"):
        items = [_from_tree(item, arrays, on_graph) for item in tree["v"]]
        return tuple(items) if kind == "tuple" else items
    if kind == "dict":
        return {_key(_from_tree(k, arrays, on_graph)): _from_tree(v, arrays, on_graph) for k, v in tree["v"]}
    array = arrays.get(f"a{tree.get('i')}")
    if array is None or not isinstance(array, np.ndarray):
        raise BadAnswer("an answer that refers to an array it does not hold")
    if kind == "ndarray":
        return array
    if kind == "scalar":
        return array[()]
    if kind == "tensor":
        import torch

        tensor = torch.from_numpy(np.array(array))
        if tree.get("grad") and tensor.is_floating_point():
            tensor.requires_grad_(True)
        if isinstance(tree.get("graph"), int) and on_graph is not None:
            return on_graph(tensor, tree["graph"])
        return tensor
    if kind == "keyed_vectors":
        from gensim.models import KeyedVectors

        keys = [_key(_from_tree(k, arrays, on_graph)) for k in tree["keys"]]
        if array.ndim != 2 or len(keys) != len(array):
            raise BadAnswer("word vectors whose words and rows do not match")
        kv = KeyedVectors(array.shape[1], dtype=array.dtype)
        kv.add_vectors(keys, array)
        return kv
    raise BadAnswer(f"an unknown kind of value {kind!r}")


def _key(value):
    if isinstance(value, list):
        raise BadAnswer("a list as a dict key")
    return value


def _send(connection: socket.socket, payload: bytes) -> None:
    connection.sendall(HEADER.pack(len(payload)) + payload)


def _receive(connection: socket.socket) -> bytes:
    size = HEADER.unpack(_exactly(connection, HEADER.size))[0]
    if size > MAX_MESSAGE:
        raise BadAnswer(f"an answer of {size:,} bytes")
    return _exactly(connection, size)


def _exactly(connection: socket.socket, size: int) -> bytes:
    chunks, missing = [], size
    while missing:
        chunk = connection.recv(min(missing, 1 << 20))
        if not chunk:
            raise ConnectionError("closed")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


# ------------------------------------------------------------------------ the student kernel


def serve(path: str, namespace: dict) -> None:
    """Answer calls on the Unix socket ``path`` with the functions of ``namespace``, forever.

    Each request is ``{"op": "call", "name", "args", "kwargs", "id"}`` or ``{"op": "vjp", "graph",
    "grad", "id"}``; each answer ``{"ok": value}`` or ``{"error": [type name, message]}``, with the
    request's ``id``. A caller that gave up on a call closes its connection: the answer then has no
    one to go to, and the next connection is served.
    """
    graphs: dict[int, tuple] = {}
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(path):
        os.unlink(path)
    server.bind(path)
    server.listen(1)
    while True:
        connection, _ = server.accept()
        with connection:
            while True:
                try:
                    request = decode(_receive(connection))
                    number = request.get("id") if isinstance(request, dict) else None
                    _send(connection, _encoded_answer(_answer(request, namespace, graphs), number))
                except (ConnectionError, BadAnswer, OSError):
                    break


def _encoded_answer(answer: dict, number) -> bytes:
    """The answer with its request's number, as bytes; a result that cannot be sent becomes the error it is."""
    try:
        return encode({**answer, "id": number})
    except (TypeError, ValueError) as exc:
        return encode({"error": [type(exc).__name__, f"your function's result cannot be sent back: {exc}"],
                       "id": number})


def _answer(request: dict, namespace: dict, graphs: dict) -> dict:
    try:
        if request.get("op") == "vjp":
            return {"ok": _vector_jacobian(graphs, request["graph"], request["grad"])}
        function = namespace.get(str(request["name"]))
        if not callable(function):
            return {"error": ["NameError", f"your notebook defines no function {request['name']!r} "
                                           "(run its solution cell without errors)"]}
        leaves: list = []
        args = _with_leaves(request["args"], leaves)
        kwargs = _with_leaves(request["kwargs"], leaves)
        with _Trace() as trace:
            value = function(*args, **kwargs)
        return {"ok": _mark_graphs(value, leaves, graphs), "ran": trace.report()}
    except BaseException as exc:  # noqa: BLE001 - everything the student's code raises goes back as an answer
        return {"error": [type(exc).__name__, str(exc)[:2_000]]}


# ------------------------------------------------------------------- what a call ran, and the reference

_UNCOUNTED = {"CACHE", "PRECALL", "PUSH_NULL", "NOP", "RESUME", "EXTENDED_ARG"}  # how a compiler lays calls out
_SAME_AS = {"LOAD_METHOD": "LOAD_ATTR"}  # IPython's compile of a cell chooses the one where compile() the other


def _fingerprint(code: types.CodeType) -> str:
    """The same for two functions of the same instructions, names and constants (a copy under other variable
    names, in another file, compiled from a string or pasted into a notebook's cell), different otherwise:
    local variables count by their number, jumps by their kind, not by where they land."""
    import dis

    digest = hashlib.sha1()
    for instruction in dis.get_instructions(code):
        if instruction.opname in _UNCOUNTED:
            continue
        opcode = instruction.opcode
        if opcode in dis.hasjrel or opcode in dis.hasjabs:
            argument = ""
        elif opcode in dis.haslocal or opcode in dis.hasfree:
            argument = str(instruction.arg)
        elif isinstance(instruction.argval, types.CodeType):
            argument = _fingerprint(instruction.argval)
        else:
            argument = repr(instruction.argval)
        digest.update(f"{_SAME_AS.get(instruction.opname, instruction.opname)} {argument}\n".encode())
    return digest.hexdigest()[:20]


def _course_name(code: types.CodeType) -> str | None:
    """``course/ulmfit/schedules.py: slanted_triangular`` for code of the course outside ``teaching/``, else None."""
    path = Path(code.co_filename)
    if path.is_relative_to(PACKAGE) and not path.is_relative_to(TEACHING):
        return f"course/{path.relative_to(PACKAGE)}: {getattr(code, 'co_qualname', code.co_name)}"
    return None


class _Trace:
    """Every Python function that runs while it is active, in this thread and in threads started meanwhile."""

    def __init__(self):
        self.codes: set = set()
        self.switched_off = False

        def profile(frame, event, arg):
            if event == "call":
                self.codes.add(frame.f_code)

        self.profile = profile

    def __enter__(self) -> _Trace:
        threading.setprofile(self.profile)
        sys.setprofile(self.profile)
        return self

    def __exit__(self, *exc) -> None:
        self.switched_off = sys.getprofile() is not self.profile
        sys.setprofile(None)
        threading.setprofile(None)

    def report(self) -> dict:
        """The course's functions that ran, and the fingerprints of every function that is not Python's own."""
        python = tuple(str(Path(p).resolve()) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix})
        names = {_course_name(code) for code in self.codes} - {None}
        prints = {_fingerprint(code) for code in self.codes if len(code.co_code) >= MIN_CODE
                  and not os.path.realpath(code.co_filename).startswith(python)}
        return {"course": sorted(names), "prints": sorted(prints), "switched_off": self.switched_off}


def _with_leaves(value, leaves: list):
    """Tensors that require gradients, collected in the order the other side sent them."""
    kind = f"{type(value).__module__}.{type(value).__name__}"
    if kind == "torch.Tensor" and value.requires_grad:
        leaves.append(value)
    elif isinstance(value, tuple | list):
        for item in value:
            _with_leaves(item, leaves)
    elif isinstance(value, dict):
        for item in value.values():
            _with_leaves(item, leaves)
    return value


def _mark_graphs(value, leaves: list, graphs: dict):
    """Tensors of the result that need gradients are kept (by number) for later vector-Jacobian products."""
    kind = f"{type(value).__module__}.{type(value).__name__}"
    if kind == "torch.Tensor" and value.requires_grad and leaves:
        graphs[len(graphs)] = (value, leaves)
        return GradientTensor(value, len(graphs) - 1)
    if isinstance(value, tuple | list):
        return type(value)(_mark_graphs(item, leaves, graphs) for item in value)
    return value


class GradientTensor:
    """A result tensor and the number of its graph in the student kernel (encoded with that number)."""

    def __init__(self, tensor, graph: int):
        self.tensor, self.graph = tensor, graph


def _vector_jacobian(graphs: dict, graph: int, grad):
    import torch

    output, leaves = graphs[int(graph)]
    grads = torch.autograd.grad(output, leaves, grad_outputs=grad.to(output.dtype), retain_graph=True,
                                allow_unused=True)
    return [None if g is None else g.detach() for g in grads]


# --------------------------------------------------------------------------- the checking kernel


class _Link:
    """The checking kernel's connection to the student kernel's socket.

    A call given up (past the timeout, the checking cell interrupted at its deadline, a connection that
    broke or an answer cut short) closes the connection, so the next call starts on a new one and never
    reads what was left of the old; each request carries a number the answer repeats, and an answer to
    another request is never taken for this one. A student kernel still busy with a call given up cannot
    answer the next: the link touches ``given_up`` (a file of the grader's) so that the grader starts a
    new student kernel before the next check.
    """

    def __init__(self, path: str, timeout: float, given_up: str | None = None):
        self.path, self.timeout, self.given_up, self.connection = path, timeout, given_up, None
        self.asked = 0

    def ask(self, request: dict, on_graph=None):
        self.asked += 1
        number = self.asked
        try:
            answer = self._exchange({**request, "id": number}, number, on_graph)
        except BaseException as exc:  # also KeyboardInterrupt: the checking cell stopped at its deadline
            self.close()
            self._note_given_up()
            if isinstance(exc, TimeoutError):
                raise StudentTimeout(f"your function ran longer than {self.timeout:g} s and was stopped") from None
            if isinstance(exc, OSError):
                raise StudentKernelDied("your function crashed the kernel (or the student kernel is gone)") from None
            raise
        if isinstance(answer.get("ran"), dict):
            _STUDENT_RAN.append(answer["ran"])
        if "error" in answer:
            name, message = (list(answer["error"]) + ["", ""])[:2]
            raise _student_exception(str(name), str(message))
        return answer["ok"]

    def _exchange(self, request: dict, number: int, on_graph) -> dict:
        """Send ``request`` and read answers until the one to it (one to an earlier request is passed over)."""
        if self.connection is None:
            self.connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.connection.settimeout(self.timeout)
            self.connection.connect(self.path)
        _send(self.connection, encode(request))
        while True:
            answer = decode(_receive(self.connection), on_graph)
            if not isinstance(answer, dict) or not ("ok" in answer or "error" in answer):
                raise BadAnswer("the student kernel sent something that is not an answer")
            if answer.get("id") == number:
                return answer
            if not (isinstance(answer.get("id"), int) and answer["id"] < number):
                raise BadAnswer("the student kernel answered a call that was not made")

    def _note_given_up(self) -> None:
        if self.given_up is not None:
            try:
                Path(self.given_up).touch()
            except OSError:
                pass

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


_LINK: _Link | None = None
_STUDENT_RAN: list[dict] = []  # what each call of a student's function ran, since watch()
_WATCH: _Trace | None = None


def watch() -> None:
    """Start noting what the checks run (in the checking kernel, before a grade cell) and what the student's
    functions run when called."""
    global _WATCH
    _STUDENT_RAN.clear()
    _WATCH = _Trace().__enter__()


def verdict() -> list[str]:
    """After a grade cell: the course's functions the checks ran that the student's functions ran too, by name
    or as a copy of their bytecode (or a note if a student's function switched off its tracing); printed as JSON."""
    global _WATCH
    if _WATCH is None:
        return []
    _WATCH.__exit__(None, None, None)
    reference = {code: _course_name(code) for code in _WATCH.codes}
    reference = {code: name for code, name in reference.items() if name is not None}
    prints = {_fingerprint(code): name for code, name in reference.items() if len(code.co_code) >= MIN_CODE}
    found: set[str] = set()
    for ran in _STUDENT_RAN:
        found |= {str(name) for name in ran.get("course", []) if name in set(reference.values())}
        found |= {prints[p] for p in ran.get("prints", []) if p in prints}
        if ran.get("switched_off"):
            found.add("the grader's tracing, which your function switched off")
    _WATCH = None
    _STUDENT_RAN.clear()
    print(json.dumps(sorted(found)))
    return sorted(found)


def bind(path: str, timeout: float, given_up: str | None = None) -> None:
    """Connect this (checking) kernel's remote functions to the student kernel's socket at ``path``; each
    call waits at most ``timeout`` seconds, and a call given up touches the file ``given_up``."""
    global _LINK
    _LINK = _Link(path, timeout, given_up)


def function(name: str) -> RemoteFunction:
    """A stand-in for the student's function ``name`` (after :func:`bind`)."""
    return RemoteFunction(name)


class RemoteFunction:
    """Calls the student's function of this name in the student kernel, with the same arguments."""

    def __init__(self, name: str):
        self.__name__ = self.__qualname__ = name

    def __repr__(self) -> str:
        return f"<the student's function {self.__name__}>"

    def __call__(self, *args, **kwargs):
        if _LINK is None:
            raise RuntimeError("course.remote.bind() was not called")
        inputs: list = []
        _with_leaves((args, kwargs), inputs)
        link = _LINK

        def differentiable(tensor, graph: int):
            return _remote_gradient().apply(tensor, (link, graph), *inputs)

        return link.ask({"op": "call", "name": self.__name__, "args": tuple(args), "kwargs": dict(kwargs)},
                        differentiable)


_REMOTE_GRADIENT = None


def _remote_gradient():
    """A ``torch.autograd.Function`` whose value came from the student kernel and whose backward pass asks it
    for the vector-Jacobian product with respect to the inputs that require gradients."""
    global _REMOTE_GRADIENT
    if _REMOTE_GRADIENT is None:
        import torch

        class RemoteGradient(torch.autograd.Function):
            @staticmethod
            def forward(ctx, value, where, *inputs):
                ctx.where, ctx.dtypes = where, [x.dtype for x in inputs]
                return value.detach().clone()

            @staticmethod
            def backward(ctx, grad):
                link, graph = ctx.where
                grads = link.ask({"op": "vjp", "graph": graph, "grad": grad.detach()})
                if not isinstance(grads, list) or len(grads) != len(ctx.dtypes):
                    raise BadAnswer("gradients that do not match the inputs")
                return (None, None, *[None if g is None else torch.as_tensor(g).to(dtype)
                                      for g, dtype in zip(grads, ctx.dtypes, strict=True)])

        _REMOTE_GRADIENT = RemoteGradient
    return _REMOTE_GRADIENT


def _student_exception(name: str, message: str) -> BaseException:
    if name == "NotImplementedError":
        return NotImplementedError(message)
    safe = name if name.isidentifier() else "StudentError"
    return type(safe, (StudentError,), {})(message)
