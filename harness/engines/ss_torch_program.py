"""ss_torch_program.py - runs one program case (docs/programs.md) in PyTorch for
the torch worker: builds the printed `def program(x, src)`, runs it eager or
torch.compile'd, describes what it returned (bytes, dtype, shape, aliasing),
finds the compile stage that is first wrong, and knows PyTorch's refusals.

No import-time torch dependency: every function takes the worker's `torch`
module, so this file also runs under any torch >= 1.13 in the unit tests
(tests/torch/test_program_module.py) and is plain data for the exporter.
"""
import ast
import collections
import re
import sys

# PyTorch's own words when it refuses a write through overlapping memory, on
# every release 1.13..2.15 (eager: aten/src/ATen/MemoryOverlap.cpp; compile:
# the copy_ meta function and functionalization). Plain text without regex
# metacharacters other than '.', so C can test them with strstr() too.
REFUSAL_PATTERNS = (
    # assert_no_partial_overlap: copy_, setitem, index_put_ values, in-place
    # binary ops whose operand partially overlaps the written view
    "unsupported operation: some elements of the input tensor and the written-to tensor "
    "refer to a single memory location",
    # assert_no_internal_overlap (a stride-0 dim of size > 1 in the written view);
    # also the copy_ meta function under torch.compile, which drops the prefix
    "more than one element of the written-to tensor refers to a single memory location",
    # TensorIterator's out= check (torch.cat(..., out=) and friends)
    "unsupported operation: the input tensors cannot refer to any of the output memory locations",
    # torch.compile: mutating a view with internal overlap (unfold, as_strided)
    "functionalization encountered a tensor being mutated that has internal overlap",
)
_REFUSAL = re.compile("|".join(REFUSAL_PATTERNS))

# (backend, stage) of the compiled stages in their order: set by whoever loads this module
# (the worker, an exported script) from the harness's mode table (ss_torch_modes.h).
STAGES = ()
# Compiled programs kept; the worker clears them with reset() when it resets dynamo.
MAX_COMPILED = 256
_COMPILED = collections.OrderedDict()

Outcome = collections.namedtuple("Outcome", "returned inputs error")


def is_refusal(exc):
    """True when exc, or an exception it was raised from (dynamo wraps the
    original), is one of PyTorch's overlapping-write refusals."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if _REFUSAL.search(str(exc)):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def build(torch, source):
    """The function `program` defined by source, executed in a namespace that
    holds only torch. ValueError unless source is exactly one `def program`."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError("program source: line %s: %s" % (exc.lineno, exc.msg))
    body = tree.body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].name != "program":
        raise ValueError("program source must define exactly one function, `program`")
    namespace = {"torch": torch}
    exec(compile(tree, "<program>", "exec"), namespace)
    fn = namespace["program"]
    fn.ss_source = source         # run() and stage_of() compile fresh copies by it
    return fn


def reset():
    _COMPILED.clear()


def _compiled(torch, fn, backend, dynamic):
    """torch.compile'd fn, cached per (source, backend, dynamic). Each entry
    compiles its own copy of the function: dynamo caches by code object, so
    one code object compiled for two backends could serve one from the other."""
    source = getattr(fn, "ss_source", None)
    key = (source if source is not None else fn, backend, dynamic)
    hit = _COMPILED.get(key)
    if hit is None:
        if len(_COMPILED) >= MAX_COMPILED:
            _COMPILED.popitem(last=False)
        fresh = build(torch, source) if source is not None else fn
        hit = _COMPILED[key] = torch.compile(fresh, backend=backend, dynamic=dynamic,
                                             fullgraph=True)
    return hit


def run(torch, fn, x, src, compile_mode=None):
    """fn(x, src) eager (compile_mode None) or compiled (compile_mode =
    (backend, dynamic)); the tuple it returned. Exceptions propagate."""
    if compile_mode is not None:
        fn = _compiled(torch, fn, compile_mode[0], compile_mode[1])
    out = fn(x, src)
    return (out,) if torch.is_tensor(out) else tuple(out)


# ---- what came back ------------------------------------------------------------

def _untyped(t):
    return t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage().untyped()


def _storage_bytes(torch, t):
    """A uint8 tensor over the whole storage behind t."""
    return torch.empty(0, dtype=torch.uint8, device=t.device).set_(_untyped(t))


def _span(t):
    s = _untyped(t)
    return s.data_ptr(), s.data_ptr() + s.nbytes()


def _overlaps(a, b):
    return b is not None and a[0] < b[1] and b[0] < a[1]


def tensor_bytes(torch, t):
    """t's elements in logical order, each in its dtype's little-endian bytes."""
    t = t.detach()
    if t.numel() == 0:
        return b""               # any strides (a compiled empty result may keep stride 0)
    for resolve in ("resolve_conj", "resolve_neg"):
        if hasattr(t, resolve):
            t = getattr(t, resolve)()
    # A fresh 1-D copy: reshape/contiguous may keep a size-1 dim's odd stride,
    # which .view(uint8) refuses across element sizes on some releases.
    flat = torch.empty(t.numel(), dtype=t.dtype, device=t.device).copy_(t.reshape(-1))
    flat = flat.view(torch.uint8).cpu()
    out = bytearray(flat.numel())
    if out:
        torch.frombuffer(out, dtype=torch.uint8).copy_(flat)
    return bytes(out)


def _write_through(torch, r, watched):
    """Which of the watched storages (name -> uint8 tensor) change when every
    element of r is written (zero, then one); every storage is put back."""
    own = _storage_bytes(torch, r)
    own_before = own.clone()
    before = {name: b.clone() for name, b in watched.items()}
    changed = set()
    with torch.no_grad():
        for write in (r.zero_, lambda: r.fill_(1)):
            write()
            changed.update(name for name, b in watched.items() if not torch.equal(b, before[name]))
        own.copy_(own_before)
        for name, b in watched.items():
            b.copy_(before[name])
    return "+".join(sorted(changed)) or "none"


def describe_returns(torch, returned, x_storage, src_storage=None):
    """Per returned tensor: bytes, dtype, shape, aliases ("input", "src" or
    "none": storage identity by data_ptr range), write_through (the storage a
    write through it changed; None when it has no element) and disagreement
    (text when the two checks differ, else None). x_storage/src_storage: any
    tensor on that storage; src_storage None when src is on x's storage."""
    spans = {"input": _span(x_storage), "src": None if src_storage is None else _span(src_storage)}
    out = [{"bytes": tensor_bytes(torch, r), "dtype": str(r.dtype).replace("torch.", ""),
            "shape": list(r.shape)} for r in returned]
    watched = {"input": _storage_bytes(torch, x_storage)}
    if src_storage is not None:
        watched["src"] = _storage_bytes(torch, src_storage)
    for r, d in zip(returned, out):
        span = _span(r)
        d["aliases"] = next((k for k in ("input", "src") if _overlaps(span, spans[k])), "none")
        d["write_through"] = _write_through(torch, r, watched) if r.numel() else None
        d["disagreement"] = None
        if d["write_through"] is not None and d["write_through"] != d["aliases"]:
            d["disagreement"] = ("storage identity says %s, a write through it changed %s"
                                 % (d["aliases"], d["write_through"]))
    return out


# ---- where a compiled mismatch lives ---------------------------------------------

def stage_of(torch, fn, x_fn, expected_ok, dynamic=None):
    """(stage, checks): runs fn without compile, then compiled with the
    backends "eager" (dynamo only), "aot_eager" (+ functionalization) and
    "inductor", each on fresh inputs x_fn() -> (x, src), and names the first
    stage whose outcome expected_ok(Outcome(returned, inputs, error))
    rejects: "eager" (wrong values without compile: every compiled run only
    inherits them), "dynamo", "aot", "inductor", or None when every stage is
    right. An uncompiled run that raises (PyTorch's overlap refusal) leaves
    the decision to the backends. checks lists (backend, ok, first line of
    its error or None) for the runs made, "none" for the uncompiled one."""
    inputs = tuple(x_fn())
    try:
        returned = run(torch, fn, inputs[0], inputs[1])
    except Exception:                 # eager raising is no verdict on the compiled stages
        returned = None
    if returned is not None and not expected_ok(Outcome(returned, inputs, None)):
        return "eager", [("none", False, None)]
    checks = []
    for backend, stage in STAGES:
        inputs = tuple(x_fn())
        try:
            outcome = Outcome(run(torch, fn, inputs[0], inputs[1], (backend, dynamic)), inputs, None)
        except Exception as exc:      # a raise is an outcome too: expected_ok judges it
            outcome = Outcome(None, inputs, exc)
        ok = bool(expected_ok(outcome))
        error = None if outcome.error is None else (str(outcome.error).strip().splitlines() or [""])[0]
        checks.append((backend, ok, error))
        if not ok:
            return stage, checks
    return None, checks


def refusals_c():
    """REFUSAL_PATTERNS as a C initializer, for embedding."""
    lines = ["static const char *const ss_torch_refusals[] = {"]
    lines += ['    "%s",' % p.replace("\\", "\\\\").replace('"', '\\"') for p in REFUSAL_PATTERNS]
    return "\n".join(lines + ["    NULL,", "};"])


if __name__ == "__main__":
    if sys.argv[1:] == ["--refusals-c"]:
        print(refusals_c())
    else:
        sys.exit("usage: ss_torch_program.py --refusals-c")
