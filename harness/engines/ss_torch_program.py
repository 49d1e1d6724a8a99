"""ss_torch_program.py - the torch programs the worker and the exported scripts both run, written once.

A single write's spellings (docs/torch.md): the function a target runs for a spelling and a
form (spec_of, make_program, the index recipe that derives src from x, inputs_for), the same in
the torch worker (harness/engines/ss_torch_worker.py) and in exported write scripts. A program
case (docs/programs.md): builds the printed `def program(x, src)`, runs it eager or
torch.compile'd, describes what it returned (bytes, dtype, shape, aliasing), finds the compile
stage that is first wrong. PyTorch's overlap refusals, as one list.

No import-time torch dependency: every function that needs torch takes the caller's `torch`
module, so this file also runs under any torch >= 1.13 in the unit tests
(tests/torch/test_program_module.py) and is plain data for the exporter, which embeds it whole.
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
    if not STAGES:                    # a loader that forgot would place no stage, silently
        raise RuntimeError("ss_torch_program.STAGES is not set: its loader sets it from the mode table")
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


# ---- a single write: src derived from x by indexing (the x-input form) ----------

def derive(xv, sv):
    """An indexing recipe (perm, index) with x.permute(perm)[index] == src as a
    view (same storage offset, sizes, and strides wherever the size is > 1), or
    None. Greedy on strides, then verified exactly."""
    xo, xs, xt = xv
    so, ss, st = sv
    if any(n == 0 for n in xs) or any(n == 0 for n in ss) or len(ss) > len(xs):
        return None
    used, perm, steps = set(), [], []
    for size, stride in zip(ss, st):
        pick = None
        for d in range(len(xs)):
            if d in used or xt[d] == 0:
                continue
            if size == 1 or (stride % xt[d] == 0 and stride >= xt[d]):
                if pick is None or (size > 1 and xt[d] > xt[pick]):
                    pick = d
        if pick is None:
            return None
        used.add(pick)
        perm.append(pick)
        steps.append(max(stride // xt[pick], 1) if size > 1 else 1)
    rest = [d for d in range(len(xs)) if d not in used]
    perm += rest
    coef = {}
    rem = so - xo
    for d in sorted(range(len(xs)), key=lambda d: -xt[d]):
        if xt[d] == 0:
            coef[d] = 0
            continue
        j = perm.index(d)
        span = (ss[j] - 1) * steps[j] if j < len(ss) else 0
        k = min(max(rem // xt[d], 0), xs[d] - 1 - span)
        coef[d] = k
        rem -= k * xt[d]
    if rem != 0:
        return None
    index = []   # (start, stop, step) for a slice, an int for an index: hashable
    for j, d in enumerate(perm):
        if j < len(ss):
            index.append((coef[d], coef[d] + (ss[j] - 1) * steps[j] + 1, steps[j]))
        else:
            index.append(coef[d])
    return tuple(perm), tuple(index)


def apply_recipe(x, recipe, sv):
    if recipe is None:
        return x.as_strided(sv[1], sv[2], sv[0])
    perm, index = recipe
    if list(perm) != list(range(len(perm))):
        x = x.permute(perm)
    return x[tuple(slice(*ix) if isinstance(ix, tuple) else ix for ix in index)]


def recipe_view(xv, recipe):
    """The view (offset, sizes, strides) x.permute(perm)[index] has, by arithmetic."""
    offset, sizes, strides = xv
    perm, index = recipe
    out_sizes, out_strides = [], []
    for d, ix in zip(perm, index):
        if isinstance(ix, tuple):
            a, b, k = slice(*ix).indices(sizes[d])
            offset += a * strides[d]
            out_sizes.append(len(range(a, b, k)))
            out_strides.append(strides[d] * k)
        else:
            offset += ix * strides[d]
    return offset, tuple(out_sizes), tuple(out_strides)


def same_view(got, want):
    if got[0] != want[0] or got[1] != want[1]:
        return False
    return all(n <= 1 or a == b for n, a, b in zip(want[1], got[2], want[2]))


# ---- a single write: its spellings ----------------------------------------------

# Everything a program's code depends on besides its tensors' shapes: programs
# are cached by it, so a dynamic-shape compile serves every case with one spec.
Spec = collections.namedtuple("Spec", "mode spelling form aliased dim start end step recipe "
                                      "in_view src_view")


def spec_of(mode, spelling, form, aliased, dim, start, end, step, in_view, src_view):
    """The Spec of a write: views as (offset, sizes, strides), dim as the case has
    it (negative counts from the end), src on x's storage when aliased. Form ''
    is eager's (x and src, two views); mode is the caller's (None in a script)."""
    recipe = None
    if aliased and form == "x-input":
        recipe = derive(in_view, src_view)
        if recipe is not None and not same_view(recipe_view(in_view, recipe), src_view):
            recipe = None
    storage = form == "storage-input"
    # With a separate src, x-input and two-inputs pass the same two tensors:
    # one program (and one compile) serves both.
    shared_form = "x-input" if form == "two-inputs" and not aliased else form
    return Spec(mode, spelling, shared_form, aliased, dim + len(in_view[1]) if dim < 0 else dim, start, end,
                step, recipe, in_view if storage else None,
                src_view if storage or (aliased and form == "x-input" and recipe is None) else None)


def slice_bounds(size, start, end):
    """PyTorch's normalization of start/end along the written dim."""
    start = 0 if start is None else start
    end = size if end is None else end
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start, end = min(max(start, 0), size), min(max(end, 0), size)
    return start, max(end, start)


def spell(torch, p, x, src):
    """The user's one line, in place on x; returns the tensor to copy into x
    afterwards (scatter-return), else None."""
    s = p.spelling
    index = (slice(None),) * p.dim + (slice(p.start, p.end, p.step),)
    if s == "setitem":
        x[index] = src
    elif s == "setitem-clone":
        x[index] = src.clone()
    elif s == "copy":
        x[index].copy_(src)
    elif s == "scatter-copy":
        x.copy_(torch.slice_scatter(x, src, p.dim, p.start, p.end, p.step))
    elif s == "scatter-return":
        y = torch.slice_scatter(x, src, p.dim, p.start, p.end, p.step)
        x.zero_()
        return y
    elif s == "clone-scatter":
        x.copy_(torch.slice_scatter(x.clone(), src, p.dim, p.start, p.end, p.step))
    elif s == "index-put":
        start, end = slice_bounds(x.shape[p.dim], p.start, p.end)
        lead = p.dim + 1
        index = []
        for d in range(lead):
            idx = (torch.arange(start, end, p.step, device=x.device) if d == p.dim
                   else torch.arange(x.shape[d], device=x.device))
            shape = [1] * lead
            shape[d] = -1
            index.append(idx.view(shape))
        x.index_put_(tuple(index), src)
    else:
        raise ValueError("unknown spelling %r" % s)
    return None


def make_program(torch, p):
    """The function a target runs. Its inputs depend on the form: x-input (x,
    and src unless derived from x inside), storage-input (the storages; both
    views built inside), two-inputs (x and src)."""
    def finish(x, src):
        y = spell(torch, p, x, src)
        return (x, y) if y is not None else (x,)

    if p.form == "storage-input":
        def program(st, sst):
            x = st.as_strided(p.in_view[1], p.in_view[2], p.in_view[0])
            base = st if sst is None else sst
            return finish(x, base.as_strided(p.src_view[1], p.src_view[2], p.src_view[0]))
    elif p.form == "x-input" and p.aliased:
        def program(x):
            return finish(x, apply_recipe(x, p.recipe, p.src_view))
    else:
        def program(x, src):
            return finish(x, src)
    return program


def inputs_for(p, st, sst, in_view, src_view):
    """The arguments make_program(torch, p) takes, from the storages (sst None:
    src on x's storage) and the case's views."""
    if p.form == "storage-input":
        return (st, sst)
    x = st.as_strided(in_view[1], in_view[2], in_view[0])
    if p.form == "x-input" and p.aliased:
        return (x,)
    return (x, (st if sst is None else sst).as_strided(src_view[1], src_view[2], src_view[0]))


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
