"""ssfuzz_case - turn live PyTorch tensors into an ssfuzz case file (needs only torch; stdlib json).

    import torch, ssfuzz_case
    x = torch.arange(24.).reshape(4, 6)
    ssfuzz_case.write("shift.json", x, x[:, :-1], dim=1, start=1)   # x[:, 1:] = x[:, :-1]

`x` is the tensor written in place, `src` the tensor read; dim/start/end/step
are slice_scatter's (start/end None as in Python). Sizes, strides and storage
offsets come from the tensors; src aliases x when both views share one
storage (same untyped-storage data pointer). Values are the storages' exact
bytes as hex bit patterns (values="exact", default) or a fill seed
(values=SEED, an int: ssfuzz generates the contents). `base` (optional) is
the tensor x was indexed from, when x is a view of it (x[0] of a 2x3x3
tensor): its shape and `names` go to meta.python, so `ssfuzz explain` prints
the case back as the same line (`x[0] = x[0].t()`).

Programs: program=SOURCE (the text of `def program(x, src): ...`, or the
function itself) adds the case's `program`, read by ssfuzz_program.parse
through the syntax tree (never run); x and src are then the function's two
arguments, and dim/start/end/step may be left out (the first write into x,
or slice_scatter of x, gives them when src fits it; else a slice src fits).
"""
import inspect
import json
import os
import tempfile
import textwrap

import torch

import ssfuzz_program

__all__ = ["case", "dumps", "write"]

_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
           "float32", "float64", "complex64", "complex128")


def _storage(t):
    """(data pointer, bytes) of the whole storage behind t."""
    if hasattr(t, "untyped_storage"):
        s = t.untyped_storage()
        return s.data_ptr(), s.nbytes()
    s = t.storage()  # torch 1.x: a typed storage of t's dtype
    return s.data_ptr(), s.size() * t.element_size()


def _dtype_name(t):
    name = str(t.dtype).replace("torch.", "")
    if name not in _DTYPES:
        raise ValueError("dtype %s is not one ssfuzz supports (%s)" % (t.dtype, ", ".join(_DTYPES)))
    return name


def _storage_hex(t, numel):
    """Every element of t's storage as a hex bit pattern (little-endian bytes)."""
    if numel == 0:
        return []
    whole = torch.as_strided(t.detach(), (numel,), (1,), 0).cpu().contiguous()
    raw = whole.view(torch.uint8).reshape(numel, t.element_size()).flip(1)
    return ["0x" + bytes(row).hex() for row in raw.tolist()]


def _view(t):
    return {"offset": t.storage_offset(), "sizes": list(t.shape), "strides": list(t.stride())}


def _contiguous_over_storage(t, numel):
    return t.is_contiguous() and t.storage_offset() == 0 and t.numel() == numel and t.dim() > 0


def _program(program):
    """The steps of a program given as source text or as the function itself."""
    if callable(program):
        program = textwrap.dedent(inspect.getsource(program))
    return ssfuzz_program.parse(program)


def _default_write(x, src, steps):
    """The case's own write for a program: the first write into x (or
    slice_scatter of x) when its slice has src's shape, else the first dim
    along which src's shape is a leading slice of x's, else dim 0 whole."""
    def fits(d, start, end, step):
        if not -x.dim() <= d < x.dim():
            return False
        shape = list(x.shape)
        shape[d] = len(range(shape[d])[slice(start, end, step)])
        return shape == list(src.shape)
    for s in steps:
        if s.get("into") == "x" and s["op"] == "write" or s.get("of") == "x" and s.get("kind") == "slice_scatter":
            if fits(s["dim"], s["start"], s["end"], s["step"]):
                return s["dim"], s["start"], s["end"], s["step"]
    for d in range(x.dim()):
        if fits(d, 0, src.shape[d] if d < src.dim() else 0, 1):
            return d, 0, src.shape[d], 1
    return 0, None, None, 1


def case(x, src, dim=None, start=None, end=None, step=1, values="exact", base=None, names=None,
         meta=None, program=None):
    """The case (a dict in ssfuzz's case format) for `x[..., start:end:step] = src` along dim,
    or for the program `def program(x, src)` (see the module's text)."""
    steps = None if program is None else _program(program)
    if dim is None:
        if steps is None:
            raise ValueError("dim is required (it may be left out only with a program)")
        dim, start, end, step = _default_write(x, src, steps)
    if x.dtype != src.dtype:
        raise ValueError("x is %s but src is %s: slice_scatter needs one dtype" % (x.dtype, src.dtype))
    for name, t in (("x", x), ("src", src)):
        if t.is_conj() if hasattr(t, "is_conj") else False:
            raise ValueError("%s is a conjugate view: resolve it (t.resolve_conj()) first" % name)
        if t.dim() == 0:
            raise ValueError("%s is 0-dimensional: slice_scatter needs at least one dim" % name)
    es = x.element_size()
    xptr, xbytes = _storage(x)
    sptr, sbytes = _storage(src)
    aliased = xptr == sptr and xbytes == sbytes and x.device == src.device
    xnumel, snumel = xbytes // es, sbytes // es
    c = {"format": "ssfuzz-case", "version": 1, "dtype": _dtype_name(x), "storage": {"numel": xnumel}}
    if not aliased:
        c["src_storage"] = {"numel": snumel}
    c["input"] = _view(x)
    c["src"] = dict(storage="input" if aliased else "separate", **_view(src))
    c.update(dim=int(dim), start=None if start is None else int(start),
             end=None if end is None else int(end), step=int(step))
    if values == "exact":
        v = {"input": _storage_hex(x, xnumel)}
        if not aliased:
            v["src"] = _storage_hex(src, snumel)
        c["values"] = v
    elif isinstance(values, int) and not isinstance(values, bool) and values >= 0:
        c["fill"] = {"seed": values}
    else:
        raise ValueError("values must be 'exact' or a non-negative int seed, not %r" % (values,))
    py = {}
    names = names or {}
    if names.get("x"):
        py["x"] = names["x"]
    if names.get("y") and not aliased:
        py["y"] = names["y"]
    if base is not None:
        if _storage(base)[0] != xptr or not _contiguous_over_storage(base, xnumel):
            raise ValueError("base must be the contiguous tensor over x's whole storage")
        py["shape"] = list(base.shape)
    elif _contiguous_over_storage(x, xnumel):
        py["shape"] = list(x.shape)
    if not aliased and _contiguous_over_storage(src, snumel):
        py["src_shape"] = list(src.shape)
    if steps is not None:
        c["program"] = steps
    m = {"found_by": "python/ssfuzz_case.py (torch %s)" % torch.__version__}
    if py:
        m["python"] = py
    m.update(meta or {})
    c["meta"] = m
    return c


def dumps(*args, **kwargs):
    """The case as JSON text (same arguments as case())."""
    return json.dumps(case(*args, **kwargs), indent=1)


def write(path, *args, **kwargs):
    """Write the case to path atomically (temp file in the same directory, then rename)."""
    text = dumps(*args, **kwargs) + "\n"
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ssfuzz-case-", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path
