#!/usr/bin/env python3
"""ss_torch_worker.py - the torch engine's worker: runs one slice_scatter case at a
time in PyTorch (eager or torch.compile, CPU or CUDA) for the ssfuzz harness.

The harness starts one worker per process and talks to it over stdin/stdout
with the frames of harness/engines/ss_torch_proto.h (fixed-width little-endian header:
magic, version, type, payload length). Handshake: the harness sends HELLO, the
worker answers ACK (capabilities as key=value lines) or ERROR. Then RUN frames
(the case's op and its storage bytes) are answered by RESULT frames (status,
message, final storage bytes), with PROGRESS frames around a likely compile so
the harness does not count compile time against a case's time limit.

Anything torch prints goes to stderr (SSFUZZ_TORCH_LOG, else /dev/null): the
real stdout is kept for frames only.
"""
import collections
import os
import shutil
import signal
import struct
import sys
import traceback

MAGIC, VERSION = 0x57545353, 1          # "SSTW"
T_HELLO, T_ACK, T_ERROR, T_RUN, T_RESULT, T_PROGRESS = 1, 2, 3, 4, 5, 6
HEADER = struct.Struct("<IHHQ")
RUN_HEAD = struct.Struct("<24s24s24s16sIIqqqqqq")
VIEW_HEAD = struct.Struct("<qI4x")
ST_OK, ST_REFUSED, ST_RAISED, ST_ERROR, ST_UNSUPPORTED = 0, 1, 2, 3, 4
F_ALIASED, F_HAS_START, F_HAS_END = 1, 2, 4
# Compiled functions kept before dynamo's caches are reset (memory, guard time).
MAX_COMPILES_BEFORE_RESET = 200

torch = None
IN_FD = OUT_FD = -1


def read_exact(n):
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = os.readv(IN_FD, [view[got:]])
        if k <= 0:
            sys.exit(0)                  # harness gone: nothing left to do
        got += k
    return buf


def send(kind, *parts):
    total = sum(len(p) for p in parts)
    os.writev(OUT_FD, [HEADER.pack(MAGIC, VERSION, kind, total)])
    for p in parts:
        view = memoryview(p).cast("B")
        while len(view):
            view = view[os.write(OUT_FD, view):]


def read_frame():
    magic, version, kind, length = HEADER.unpack(read_exact(HEADER.size))
    if magic != MAGIC or version != VERSION:
        send(T_ERROR, b"worker: bad frame header (magic %#x, version %d; want %#x, %d)"
             % (magic, version, MAGIC, VERSION))
        sys.exit(2)
    return kind, read_exact(length)


def first_line(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:900]
    return type(exc).__name__


def capabilities():
    """key=value lines; an empty value means available, else the reason not."""
    caps = {"torch": torch.__version__, "python": sys.version.split()[0]}
    has_compile = hasattr(torch, "compile")
    caps["compile"] = "" if has_compile else "torch %s has no torch.compile" % torch.__version__
    cxx = None
    if has_compile:
        try:
            import torch._inductor.config as icfg
            cxx = icfg.cpp.cxx[-1] if isinstance(icfg.cpp.cxx, tuple) else icfg.cpp.cxx
        except Exception:
            cxx = None
        cxx = shutil.which(cxx) if cxx else None
        cxx = cxx or shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    caps["cpu_compile"] = caps["compile"] or ("" if cxx else "no C++ compiler for inductor (g++, c++)")
    try:
        cuda_ok = torch.cuda.is_available()
    except Exception:
        cuda_ok = False
    caps["cuda"] = "" if cuda_ok else "no CUDA device visible to torch %s" % torch.__version__
    triton_missing = ""
    try:
        import triton  # noqa: F401
    except Exception:
        triton_missing = "no triton for inductor on CUDA"
    caps["cuda_compile"] = caps["compile"] or caps["cuda"] or triton_missing
    return "".join("%s=%s\n" % kv for kv in caps.items()).encode()


def configure_dynamo():
    """A compile target always compiles: dynamo must never fall back to eager
    after too many recompiles, so its limits go out of reach (and the worker
    resets dynamo itself every MAX_COMPILES_BEFORE_RESET new signatures)."""
    import torch._dynamo as dynamo
    for name in ("cache_size_limit", "recompile_limit",
                 "accumulated_cache_size_limit", "accumulated_recompile_limit"):
        if hasattr(dynamo.config, name):
            setattr(dynamo.config, name, 1 << 30)
    if hasattr(dynamo.config, "suppress_errors"):
        dynamo.config.suppress_errors = False


# ---- the case ---------------------------------------------------------------

def text(raw):
    return raw.rstrip(b"\0").decode()


def parse_view(buf, pos):
    offset, ndim = VIEW_HEAD.unpack_from(buf, pos)
    pos += VIEW_HEAD.size
    sizes = struct.unpack_from("<%dq" % ndim, buf, pos)
    pos += 8 * ndim
    strides = struct.unpack_from("<%dq" % ndim, buf, pos)
    return (offset, tuple(sizes), tuple(strides)), pos + 8 * ndim


class Case:
    def __init__(self, buf):
        (mode, spelling, form, dtype, elem_size, flags, dim, start, end, step,
         in_numel, src_numel) = RUN_HEAD.unpack_from(buf, 0)
        self.mode, self.spelling, self.form = text(mode), text(spelling), text(form)
        self.dtype_name, self.elem_size = text(dtype), elem_size
        self.aliased = bool(flags & F_ALIASED)
        self.start = start if flags & F_HAS_START else None
        self.end = end if flags & F_HAS_END else None
        self.step = step
        self.input, pos = parse_view(buf, RUN_HEAD.size)
        self.src, pos = parse_view(buf, pos)
        ndim = len(self.input[1])
        self.dim = dim + ndim if dim < 0 else dim
        self.in_bytes = in_numel * elem_size
        self.src_bytes = 0 if self.aliased else src_numel * elem_size
        self.data_at = pos
        if pos + self.in_bytes + self.src_bytes != len(buf):
            raise ValueError("RUN frame: %d bytes of storage expected, %d present"
                             % (self.in_bytes + self.src_bytes, len(buf) - pos))


def storage_tensor(buf, offset, nbytes, dtype):
    """A 1-D tensor of `dtype` sharing memory with buf[offset:offset+nbytes]."""
    if nbytes == 0:
        return torch.empty(0, dtype=dtype)
    return torch.frombuffer(buf, dtype=torch.uint8, count=nbytes, offset=offset).view(dtype)


# ---- deriving src from x by indexing (the x-input form) ---------------------

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


# ---- the spellings ------------------------------------------------------------

# Everything a program's code depends on besides its tensors' shapes: programs
# are cached by it, so a dynamic-shape compile serves every case with one spec.
Spec = collections.namedtuple("Spec", "mode spelling form aliased dim start end step recipe "
                                      "in_view src_view")


def spec_of(c):
    recipe = None
    if c.aliased and c.form == "x-input":
        recipe = derive(c.input, c.src)
        if recipe is not None and not same_view(recipe_view(c.input, recipe), c.src):
            recipe = None
    storage = c.form == "storage-input"
    # With a separate src, x-input and two-inputs pass the same two tensors:
    # one program (and one compile) serves both.
    form = "x-input" if c.form == "two-inputs" and not c.aliased else c.form
    return Spec(c.mode, c.spelling, form, c.aliased, c.dim, c.start, c.end, c.step, recipe,
                c.input if storage else None,
                c.src if storage or (c.aliased and c.form == "x-input" and recipe is None) else None)


def slice_bounds(size, start, end):
    """PyTorch's normalization of start/end along the written dim."""
    start = 0 if start is None else start
    end = size if end is None else end
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start, end = min(max(start, 0), size), min(max(end, 0), size)
    return start, max(end, start)


def spell(p, x, src):
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


def make_program(p):
    """The function a target runs. Its inputs depend on the form: x-input (x,
    and src unless derived from x inside), storage-input (the storages; both
    views built inside), two-inputs (x and src)."""
    def finish(x, src):
        y = spell(p, x, src)
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


def inputs_for(c, p, st, sst):
    if p.form == "storage-input":
        return (st, sst)
    x = st.as_strided(c.input[1], c.input[2], c.input[0])
    if p.form == "x-input" and p.aliased:
        return (x,)
    return (x, (st if sst is None else sst).as_strided(c.src[1], c.src[2], c.src[0]))


def execute(c, p, fn, st, sst):
    out = fn(*inputs_for(c, p, st, sst))
    if len(out) == 2:                    # scatter-return: y written back outside
        st.as_strided(c.input[1], c.input[2], c.input[0]).copy_(out[1])


class Compiled:
    """torch.compile'd programs by spec, and the input signatures each has
    seen (a new one means a compile is likely: reported as PROGRESS). Dynamo
    is reset every MAX_COMPILES_BEFORE_RESET new signatures, so guard lists
    and memory stay small; its recompile limit is out of reach meanwhile."""

    def __init__(self):
        self.programs, self.seen = {}, set()

    def get(self, c, p):
        if len(self.seen) >= MAX_COMPILES_BEFORE_RESET:
            torch._dynamo.reset()
            self.programs.clear()
            self.seen.clear()
        fn = self.programs.get(p)
        if fn is None:
            fn = self.programs[p] = torch.compile(make_program(p), dynamic="dynamic" in p.mode,
                                                   fullgraph=True)
        sig = (p, c.dtype_name, c.input, c.src)
        new = sig not in self.seen
        self.seen.add(sig)
        return fn, new


COMPILED = Compiled()
DTYPES = {}


def dtype_of(name):
    if not DTYPES:
        for n in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                  "float32", "float64", "complex64", "complex128"):
            if hasattr(torch, n):
                DTYPES[n] = getattr(torch, n)
    return DTYPES.get(name)


def storages(c, buf, at, dtype, device):
    st = storage_tensor(buf, at, c.in_bytes, dtype)
    sst = None if c.aliased else storage_tensor(buf, at + c.in_bytes, c.src_bytes, dtype)
    if device == "cpu":
        return st, sst
    return st.to(device), (None if sst is None else sst.to(device))


def run_case(buf, progress):
    """(status, message, the final storage bytes when the status is OK)."""
    c = Case(buf)
    dtype = dtype_of(c.dtype_name)
    if dtype is None:
        return ST_UNSUPPORTED, "torch %s has no dtype %s" % (torch.__version__, c.dtype_name), None
    device = "cuda" if c.mode.endswith("cuda") else "cpu"
    compiled = "compile" in c.mode
    p = spec_of(c)
    initial = bytes(buf[c.data_at:]) if compiled else None
    st, sst = storages(c, buf, c.data_at, dtype, device)
    fn, new = COMPILED.get(c, p) if compiled else (make_program(p), False)
    try:
        if compiled:
            if new:
                progress(1)
            try:
                execute(c, p, fn, st, sst)
            finally:
                if new:
                    progress(0)
        else:
            execute(c, p, fn, st, sst)
    except Exception as exc:             # PyTorch raised: a refusal, or a compile-only failure
        if not compiled:
            return ST_REFUSED, first_line(exc), None
        buf[c.data_at:] = initial
        return compare_with_eager(c, p, initial, exc, dtype, device) + (None,)
    if device != "cpu":
        torch.cuda.synchronize()
        cpu_st, cpu_sst = storages(c, buf, c.data_at, dtype, "cpu")
        cpu_st.copy_(st)
        if cpu_sst is not None:
            cpu_sst.copy_(sst)
    return ST_OK, "", memoryview(buf)[c.data_at:]


def compare_with_eager(c, p, initial, exc, dtype, device):
    """A compiled program raised: a refusal when eager refuses the same code,
    else a finding (`raised`)."""
    scratch = bytearray(initial)
    st, sst = storages(c, scratch, 0, dtype, device)
    try:
        execute(c, p, make_program(p), st, sst)
    except Exception as eager_exc:
        return ST_REFUSED, "eager refuses too: " + first_line(eager_exc)
    return ST_RAISED, first_line(exc)


def main():
    global torch, IN_FD, OUT_FD
    IN_FD, OUT_FD = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    log = os.environ.get("SSFUZZ_TORCH_LOG")
    err = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) if log else null
    os.dup2(err, 2)
    os.dup2(err, 1)                      # stray prints never reach the frame pipe
    sys.stdout = sys.stderr = os.fdopen(os.dup(2), "w", buffering=1)
    kind, payload = read_frame()
    if kind != T_HELLO:
        send(T_ERROR, b"worker: expected HELLO first, got frame type %d" % kind)
        return 2
    try:
        import torch as torch_module
        torch = torch_module
    except Exception as exc:
        send(T_ERROR, ("no torch in %s: %s" % (sys.executable, first_line(exc))).encode())
        return 2
    if hasattr(torch, "compile"):
        try:
            configure_dynamo()
        except Exception as exc:
            send(T_ERROR, ("cannot configure dynamo: %s" % first_line(exc)).encode())
            return 2
    send(T_ACK, capabilities())

    def progress(phase):
        send(T_PROGRESS, struct.pack("<I", phase))

    # Test hook: SSFUZZ_TORCH_TEST_FAULT=crash:N|hang:N|garbage:N misbehaves on the Nth run.
    fault, _, fault_at = os.environ.get("SSFUZZ_TORCH_TEST_FAULT", "").partition(":")
    runs = 0
    while True:
        kind, payload = read_frame()
        if kind != T_RUN:
            send(T_ERROR, b"worker: unexpected frame type %d" % kind)
            return 2
        runs += 1
        if fault and fault_at.isdigit() and runs >= int(fault_at):
            if fault == "crash":
                os.kill(os.getpid(), 11)
            elif fault == "hang":
                while True:
                    signal.pause()
            elif fault == "garbage":
                os.write(OUT_FD, b"garbage from the worker\n" * 4)
        try:
            status, message, final = run_case(payload, progress)
        except Exception:
            status, message, final = ST_ERROR, "worker: " + traceback.format_exc().strip().splitlines()[-1], None
        msg = message.encode("utf-8", "replace")[:2000]
        head = struct.pack("<II", status, len(msg))
        send(T_RESULT, head, msg, *([final] if status == ST_OK else []))


if __name__ == "__main__":
    sys.exit(main())
