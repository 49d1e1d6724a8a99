#!/usr/bin/env python3
"""ss_torch_worker.py - the torch engine's worker: runs one slice_scatter case at a
time in PyTorch (eager or torch.compile, CPU or CUDA) for the ssfuzz harness.

The harness starts one worker per process and talks to it over stdin/stdout
with the frames of harness/engines/ss_torch_proto.h (fixed-width little-endian header:
magic, version, type, payload length). Handshake: the harness sends HELLO, the
worker answers ACK (capabilities as key=value lines) or ERROR. Then RUN frames
(the case's op and its storage bytes) are answered by RESULT frames (status,
message, final storage bytes), with PROGRESS frames around a likely compile so
the harness does not count compile time against a case's time limit. A RUN of
a program case (docs/programs.md) also carries the Python source of
`def program(x, src)` (printed by the harness); its RESULT also carries what
the program returned (bytes, dtype, shape, which storage each shares).

A BATCH frame announces K RUN frames of one compiled target: the worker
compiles one function that runs every case on its own storages (one compile
for K cases) and answers K RESULT frames in order, each as that RUN alone
would be answered (run_batch).

Modes: eager-DEVICE runs the code as written; compile-DEVICE and
compile-dynamic-DEVICE torch.compile it with inductor (static, dynamic
shapes); aot-eager-DEVICE with backend "aot_eager" (dynamo and
functionalization, no code generation); dynamo-eager-DEVICE with backend
"eager" (dynamo alone). The last two also have -dynamic- forms, which the
harness uses only to place a compile-dynamic finding's stage.

The same process serves the Python-kernel engine (--py-kernel, docs/plugins.md):
its RUNs and PROBEs go to harness/engines/ss_pykernel_worker.py, which the
worker loads as a module (PYKERNEL). The harness runs the worker as
`python WORKER SHARED MODES_JSON PYKERNEL`: this file, ss_torch_program.py
(SHARED), the mode table, ss_pykernel_worker.py; each is built into ssfuzz
and staged in a memfd, so no file on disk is needed.

Anything torch prints goes to stderr (SSFUZZ_TORCH_LOG, else /dev/null): the
real stdout is kept for frames only.
"""
import os
import sys

# A clean import path before anything else is imported: the script runs from a
# memfd (/proc/self/fd/N), and neither that directory, nor "/", nor the current
# directory may shadow torch or the standard library (the harness also sets
# PYTHONSAFEPATH=1, which pythons >= 3.11 honour).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.isabs(p) and p not in (_HERE, "/")]

import collections  # noqa: E402  (after the path is cleaned, on purpose)
import hashlib  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import struct  # noqa: E402
import traceback  # noqa: E402

MAGIC, VERSION = 0x57545353, 1          # "SSTW"
T_HELLO, T_ACK, T_ERROR, T_RUN, T_RESULT, T_PROGRESS, T_PROBE, T_BATCH = 1, 2, 3, 4, 5, 6, 7, 8
MAX_BATCH = 128                          # ss_torch_proto.h SS_TP_MAX_BATCH
HEADER = struct.Struct("<IHHQ")
RUN_HEAD = struct.Struct("<24s24s24s16sIIqqqqqq")
VIEW_HEAD = struct.Struct("<qI4x")
# RESULT statuses: ST_EXCEPTION is PyTorch raising something that is neither
# its overlap refusal nor a compile-only failure (an error of the case or the
# engine: counted, not a finding). ST_REPLACE is or-ed in when this worker
# must not run another case (a CUDA error may be sticky; an internal error).
ST_OK, ST_REFUSED, ST_RAISED, ST_ERROR, ST_UNSUPPORTED, ST_EXCEPTION = 0, 1, 2, 3, 4, 5
ST_REPLACE = 0x100
F_ALIASED, F_HAS_START, F_HAS_END, F_PROGRAM, F_PYKERNEL = 1, 2, 4, 8, 16
MAX_SOURCE, MAX_RETURNS = 65536, 8       # ss_torch_proto.h, ss_program.h
PYKERNEL_HEAD = struct.Struct("<IIII")   # guard bytes, path length, kernel name length, 0
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


# Dynamo's fake-tensor failure names its cause at the end of a later line:
# "... call_function <built-in function setitem>(...): got RuntimeError('...')".
FAKE_CAUSE = re.compile(r": got ([A-Za-z_][\w.]*\(.*\))\s*$")


def first_line(exc):
    """The exception in one line. A wrapper's first line says little: one
    ending in ':' ("BackendCompilerFailed: backend='inductor' raised:") has
    its cause on the next line, and dynamo's fake-tensor failure
    ("TorchRuntimeError: RuntimeError when making fake tensor call") on a
    later one after ": got ". The cause is kept on the line, so two different
    failures inside one wrapper read (and deduplicate) apart."""
    text = "%s: %s" % (type(exc).__name__, exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    head = lines[0]
    if head.endswith(":") and len(lines) > 1:
        head += " " + lines[1]
    elif head.startswith("TorchRuntimeError: "):
        causes = [m.group(1) for m in map(FAKE_CAUSE.search, lines[1:]) if m]
        if causes:
            head += " (got %s)" % causes[0]
    return head[:900]


def capabilities():
    """key=value lines; an empty value means available, else the reason not.
    Whether torch.compile really compiles here is a PROBE of its own (it costs
    a compile): see compile_probe."""
    caps = {"torch": torch.__version__, "python": sys.version.split()[0]}
    caps["compile"] = "" if hasattr(torch, "compile") else "torch %s has no torch.compile" % torch.__version__
    try:
        cuda_ok = torch.cuda.is_available()
    except Exception:
        cuda_ok = False
    caps["cuda"] = "" if cuda_ok else "no CUDA device visible to torch %s" % torch.__version__
    return "".join("%s=%s\n" % kv for kv in caps.items()).encode()


def backend_of(mode):
    """(backend, dynamic) torch.compile runs a mode with; None for eager (the
    harness's mode table, harness/engines/ss_torch_modes.h, given as argv[2])."""
    entry = MODES[mode]
    return None if entry is None else (entry[0], bool(entry[1]))


def cuda_missing():
    """'' when torch sees a CUDA device, else why not."""
    try:
        if not torch.cuda.is_available():
            return "no CUDA device visible to torch %s" % torch.__version__
    except Exception as exc:
        return "CUDA: %s" % first_line(exc)
    return ""


def compile_probe(device, backend="inductor"):
    """'' when torch.compile (with `backend`) really compiles and runs a
    one-line program on `device`, else why not: no C++ compiler, compile disabled
    (TORCH_COMPILE_DISABLE), no Triton for CUDA, ... An environment that cannot
    compile makes the compile targets unavailable; it is never a finding."""
    if not hasattr(torch, "compile"):
        return "torch %s has no torch.compile" % torch.__version__
    missing = cuda_missing() if device == "cuda" else ""
    if missing:
        return missing
    import torch._dynamo as dynamo
    if getattr(dynamo.config, "disable", False):
        return "torch.compile is disabled here (TORCH_COMPILE_DISABLE or torch._dynamo.config.disable)"
    from torch._dynamo.utils import counters
    before = counters["stats"]["unique_graphs"]
    try:
        fn = torch.compile(lambda t: t * 2 + 1, backend=backend, fullgraph=True)
        out = fn(torch.arange(4, dtype=torch.float32, device=device))
        values = out.cpu().tolist()
    except Exception as exc:
        return "torch.compile (%s) cannot compile on %s here: %s" % (backend, device, first_line(exc))
    finally:
        dynamo.reset()
    if counters["stats"]["unique_graphs"] == before:
        return "torch.compile compiled nothing on %s here (disabled?)" % device
    if values != [1.0, 3.0, 5.0, 7.0]:
        return "torch.compile on %s gives %r for a one-line probe" % (device, values)
    return ""


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
        self.raw_dim = dim
        self.mode, self.spelling, self.form = text(mode), text(spelling), text(form)
        self.dtype_name, self.elem_size = text(dtype), elem_size
        self.aliased = bool(flags & F_ALIASED)
        self.start = start if flags & F_HAS_START else None
        self.end = end if flags & F_HAS_END else None
        self.step = step
        self.input, pos = parse_view(buf, RUN_HEAD.size)
        self.src, pos = parse_view(buf, pos)
        self.program, self.nret = None, 0
        if flags & F_PROGRAM:
            (n,) = struct.unpack_from("<I", buf, pos)
            if n > MAX_SOURCE or pos + ((8 + n + 15) & ~15) > len(buf):
                raise ValueError("RUN frame: a program source of %d bytes does not fit" % n)
            self.program = bytes(buf[pos + 4:pos + 4 + n]).decode()
            (self.nret,) = struct.unpack_from("<I", buf, pos + 4 + n)
            pos += (8 + n + 15) & ~15        # padded: the storages stay aligned
        self.kernel_path, self.kernel, self.guard = None, None, 0
        if flags & F_PYKERNEL:
            self.guard, np_, nk, _ = PYKERNEL_HEAD.unpack_from(buf, pos)
            size = (PYKERNEL_HEAD.size + np_ + nk + 15) & ~15
            if self.guard % 16 or np_ > 4096 or nk > 64 or pos + size > len(buf):
                raise ValueError("RUN frame: a kernel part (guard %d, path %d, name %d bytes) does not fit"
                                 % (self.guard, np_, nk))
            at = pos + PYKERNEL_HEAD.size
            self.kernel_path = bytes(buf[at:at + np_]).decode("utf-8", "surrogateescape")
            self.kernel = bytes(buf[at + np_:at + np_ + nk]).decode()
            pos += size
        ndim = len(self.input[1])
        self.dim = dim + ndim if dim < 0 else dim
        self.in_bytes = in_numel * elem_size
        self.src_bytes = 0 if self.aliased else src_numel * elem_size
        self.data_at = pos
        # a kernel's storages travel with their guard bands (guard bytes each side)
        guards = 2 * self.guard * (1 if self.aliased else 2)
        if pos + self.in_bytes + self.src_bytes + guards != len(buf):
            raise ValueError("RUN frame: %d bytes of storage expected, %d present"
                             % (self.in_bytes + self.src_bytes + guards, len(buf) - pos))


def storage_tensor(buf, offset, nbytes, dtype):
    """A 1-D tensor of `dtype` sharing memory with buf[offset:offset+nbytes]."""
    if nbytes == 0:
        return torch.empty(0, dtype=dtype)
    return torch.frombuffer(buf, dtype=torch.uint8, count=nbytes, offset=offset).view(dtype)


# ---- a single write: the spellings of ss_torch_program.py (SHARED) ---------------

def spec_of(c):
    """Everything the case's program depends on besides its tensors' shapes
    (SHARED.spec_of): programs are cached by it, so a dynamic-shape compile
    serves every case with one spec."""
    return SHARED.spec_of(c.mode, c.spelling, c.form, c.aliased, c.dim, c.start, c.end, c.step, c.input, c.src)


def execute(c, p, fn, st, sst):
    out = fn(*SHARED.inputs_for(p, st, sst, c.input, c.src))
    if len(out) == 2:                    # scatter-return: y written back outside
        st.as_strided(c.input[1], c.input[2], c.input[0]).copy_(out[1])


class Compiled:
    """torch.compile'd programs by spec, and the input signatures each has
    seen (a new one means a compile is likely: reported as PROGRESS). Dynamo
    is reset every MAX_COMPILES_BEFORE_RESET new signatures, so guard lists
    and memory stay small; its recompile limit is out of reach meanwhile."""

    def __init__(self):
        self.programs, self.seen = {}, set()

    def note(self, sig):
        """True when sig (what a compile depends on) is new: a compile is likely."""
        if len(self.seen) >= MAX_COMPILES_BEFORE_RESET:
            torch._dynamo.reset()
            SHARED.reset()
            self.programs.clear()
            self.seen.clear()
        new = sig not in self.seen
        self.seen.add(sig)
        return new

    def get(self, c, p):
        new = self.note((p, c.dtype_name, c.input, c.src))
        fn = self.programs.get(p)
        if fn is None:
            backend, dynamic = backend_of(p.mode)
            fn = self.programs[p] = torch.compile(SHARED.make_program(torch, p), backend=backend,
                                                   dynamic=dynamic, fullgraph=True)
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


class Faults:
    """Test hooks, inert unless SSFUZZ_TEST_HOOKS=1 is set as well:
    SSFUZZ_TORCH_TEST_FAULT=KIND:WHEN, KIND crash | hang | garbage | raise
    (eager raises: an error) | compile-raise (only the compiled run raises) |
    deaf (stops reading frames) | alias (a program's returned values report
    x's storage bit flipped: shared for a fresh tensor, fresh for a view of x) |
    batch-corrupt (a case run inside a batch comes back with its first byte
    flipped; alone it is right),
    WHEN N (every run from this worker's Nth) or dtype=NAME (every case of
    that dtype, so it recurs in a fresh worker)."""

    def __init__(self):
        spec = os.environ.get("SSFUZZ_TORCH_TEST_FAULT", "")
        on = os.environ.get("SSFUZZ_TEST_HOOKS") == "1"
        self.kind, _, self.when = spec.partition(":") if on else ("", "", "")
        self.runs = 0

    def due(self, c):
        if not self.kind:
            return False
        if self.when.startswith("dtype="):
            return c.dtype_name == self.when[6:]
        return self.when.isdigit() and self.runs >= int(self.when)

    def before_read(self):
        """deaf:N: stop reading before the Nth RUN (the harness's writes must time out)."""
        if self.kind == "deaf" and self.when.isdigit() and self.runs + 1 >= int(self.when):
            while True:
                signal.pause()

    def before_run(self, payload):
        self.runs += 1
        if self.kind in ("crash", "hang", "garbage") and self.due(Case(payload)):
            if self.kind == "crash":
                os.kill(os.getpid(), 11)
            elif self.kind == "hang":
                while True:
                    signal.pause()
            os.write(OUT_FD, b"garbage from the worker\n" * 4)

    def alias_flip(self, c):
        """1 when the returned values' x bit is to be flipped (the alias fault)."""
        return 1 if self.kind == "alias" and self.due(c) else 0

    def in_batch(self, c, result):
        """batch-corrupt: a due case's first storage byte flipped after it
        ran inside a batch (never alone): a failure only its batch shows."""
        status, _, final = result
        if self.kind == "batch-corrupt" and status == ST_OK and self.due(c) and c.in_bytes:
            view = final[0] if isinstance(final, list) else final
            view[0] ^= 1

    def raise_in(self, c, compiled):
        if (self.kind == "raise" or (self.kind == "compile-raise" and compiled)) and self.due(c):
            raise RuntimeError("injected fault (SSFUZZ_TORCH_TEST_FAULT=%s:%s)" % (self.kind, self.when))


FAULTS = None
SHARED = None       # ss_torch_program.py, given by the harness as argv[1]
MODES = {}          # mode name -> [backend, dynamic] or None (eager): the harness's table, argv[2]
PYKERNEL = None     # ss_pykernel_worker.py, the Python-kernel engine's part, argv[3]


def is_refusal(exc):
    return SHARED.is_refusal(exc)


def load_module(path, name):
    """A module the harness passes (built into it, like this script) as a
    module of its own, `name`; nothing is imported from a path a case file names."""
    import types
    module = types.ModuleType(name)
    with open(path) as f:
        code = compile(f.read(), name + ".py", "exec")
    exec(code, module.__dict__)
    sys.modules[module.__name__] = module
    return module


def run_case(buf, progress):
    """(status, message, the final storage bytes when the status is OK)."""
    c = Case(buf)
    dtype = dtype_of(c.dtype_name)
    if dtype is None:
        return ST_UNSUPPORTED, "torch %s has no dtype %s" % (torch.__version__, c.dtype_name), None
    device = "cuda" if c.mode.endswith("cuda") else "cpu"
    if c.kernel is not None:
        return PYKERNEL.run_kernel_case(c, buf, dtype, device, progress)
    if c.program is not None:
        return run_program_case(c, buf, dtype, device, progress)
    compiled = backend_of(c.mode) is not None
    p = spec_of(c)
    initial = bytes(buf[c.data_at:])
    try:
        # Everything that touches the device is inside: a CUDA error may surface
        # in .to() or synchronize() as well as in the program.
        st, sst = storages(c, buf, c.data_at, dtype, device)
        fn, new = COMPILED.get(c, p) if compiled else (SHARED.make_program(torch, p), False)
        if new:
            progress(1)
        try:
            FAULTS.raise_in(c, compiled)
            execute(c, p, fn, st, sst)
            if device != "cpu":
                torch.cuda.synchronize()
        finally:
            if new:
                progress(0)
        copy_back(c, buf, dtype, device, st, sst)
    except Exception as exc:
        return judged(c, buf, initial, exc, dtype, device, compiled,
                      lambda st, sst: execute(c, p, SHARED.make_program(torch, p), st, sst))
    return ST_OK, "", memoryview(buf)[c.data_at:]


def copy_back(c, buf, dtype, device, st, sst):
    """A device run's final storages into the frame's bytes (on the CPU the
    storages are those bytes already)."""
    if device != "cpu":
        cpu_st, cpu_sst = storages(c, buf, c.data_at, dtype, "cpu")
        cpu_st.copy_(st)
        if cpu_sst is not None:
            cpu_sst.copy_(sst)


def judged(c, buf, initial, exc, dtype, device, compiled, eager_run):
    """PyTorch raised: the storages as they were, and the verdict by cause
    (eager: refused or an error; compiled: judged against eager_run)."""
    buf[c.data_at:] = initial
    replace = ST_REPLACE if device != "cpu" else 0
    if not compiled:
        return (ST_REFUSED if is_refusal(exc) else ST_EXCEPTION) | replace, first_line(exc), None
    status, message = judge_compiled_exception(c, initial, exc, dtype, device, eager_run)
    return status | replace, message, None


def judge_compiled_exception(c, initial, exc, dtype, device, eager):
    """A compiled program raised; eager(st, sst) runs the same code on the same
    inputs. Both refuse the overlap: refused. Eager raises the same error: an
    error of the case. Eager runs it, or raises something else: `raised`, a
    finding."""
    scratch = bytearray(initial)
    try:
        st, sst = storages(c, scratch, 0, dtype, device)
        eager(st, sst)
    except Exception as eager_exc:
        if is_refusal(exc) and is_refusal(eager_exc):
            return ST_REFUSED, "eager refuses too: " + first_line(eager_exc)
        eager_text = " ".join(str(eager_exc).split())
        same = type(exc) is type(eager_exc) and str(exc) == str(eager_exc)
        if same or (eager_text and eager_text in " ".join(str(exc).split())):
            return ST_EXCEPTION, "compiled and eager raise the same: " + first_line(eager_exc)
        return ST_RAISED, "compiled raises %s; eager raises %s" % (first_line(exc), first_line(eager_exc))
    return ST_RAISED, "compiled raises %s; eager runs it" % first_line(exc)


# ---- program cases ------------------------------------------------------------

PROGRAMS = collections.OrderedDict()    # source -> the eager function (built once)


def program_fn(source):
    fn = PROGRAMS.pop(source, None)
    if fn is None:
        fn = SHARED.build(torch, source)
        if len(PROGRAMS) >= 256:
            PROGRAMS.popitem(last=False)
    PROGRAMS[source] = fn
    return fn


def program_inputs(c, st, sst):
    """x and src: the case's views, src on x's storage when aliased."""
    x = st.as_strided(c.input[1], c.input[2], c.input[0])
    return x, (st if sst is None else sst).as_strided(c.src[1], c.src[2], c.src[0])


def storage_id(t):
    """The storage's identity (its StorageImpl): a view of an empty storage has
    no byte range to overlap, but it is still that storage's view."""
    s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage().untyped()
    return s._cdata


def shares_of(d, r, st, sst):
    """The bits the harness reads (0 x's storage, 1 src's): storage identity
    (byte ranges, and the storage object itself), or-ed with what a write
    through the value changed; their disagreement in words."""
    bits = {"input": 1, "src": 2}
    wt = d["write_through"] or "none"
    shares = bits.get(d["aliases"], 0)
    for name in wt.split("+"):
        shares |= bits.get(name, 0)
    if storage_id(r) == storage_id(st):
        shares |= 1
    if sst is not None and storage_id(r) == storage_id(sst):
        shares |= 2
    return shares, d["disagreement"]


def pack_returns(described, returned, st, sst, flip=0):
    """The returned values' part of a program RESULT (ss_torch_proto.h); flip
    toggles the x bit (a test fault)."""
    if len(described) > MAX_RETURNS:
        raise ValueError("the program returned %d values, more than %d" % (len(described), MAX_RETURNS))
    parts, notes = [struct.pack("<I", len(described))], []
    for i, (d, r) in enumerate(zip(described, returned)):
        name = d["dtype"].encode()
        if dtype_of(d["dtype"]) is None or len(name) >= 16:
            raise ValueError("returned value %d has dtype %s, not one of ssfuzz's" % (i, d["dtype"]))
        shares, note = shares_of(d, r, st, sst)
        shares ^= flip
        if note:
            notes.append("returned value %d: %s" % (i, note))
        shape = d["shape"]
        parts.append(struct.pack("<I16sI", shares, name, len(shape)) +
                     struct.pack("<%dq" % len(shape), *shape) + struct.pack("<Q", len(d["bytes"])))
        parts.append(d["bytes"])
    return parts, "; ".join(notes)


def run_program_case(c, buf, dtype, device, progress):
    """(status, message, [final storage bytes, returned values' parts] when OK).
    Eager runs the function as printed; a compiled mode runs it through
    SHARED.run with its backend. Exceptions are judged like single statements."""
    mode = backend_of(c.mode)
    compiled = mode is not None
    try:
        fn = program_fn(c.program)
    except (ValueError, SyntaxError) as exc:
        return ST_ERROR, "worker: the harness sent a bad program: %s" % first_line(exc), None
    initial = bytes(buf[c.data_at:])
    new = compiled and COMPILED.note(("program", c.mode, c.program, c.dtype_name, c.input, c.src, c.aliased))
    try:
        st, sst = storages(c, buf, c.data_at, dtype, device)
        x, src = program_inputs(c, st, sst)
        if new:
            progress(1)
        try:
            FAULTS.raise_in(c, compiled)
            returned = SHARED.run(torch, fn, x, src, mode)
            if device != "cpu":
                torch.cuda.synchronize()
        finally:
            if new:
                progress(0)
    except Exception as exc:
        return judged(c, buf, initial, exc, dtype, device, compiled,
                      lambda st, sst: SHARED.run(torch, fn, *program_inputs(c, st, sst)))
    return program_result(c, buf, initial, dtype, device, st, sst, returned)


def program_result(c, buf, initial, dtype, device, st, sst, returned):
    """An OK program RESULT: the final storages and the returned values."""
    try:
        # Reading the results is the worker's own code, not PyTorch's: a
        # failure here is the worker's error, never a verdict on the program.
        parts, notes = pack_returns(SHARED.describe_returns(torch, returned, st, sst), returned, st, sst,
                                    FAULTS.alias_flip(c))
        copy_back(c, buf, dtype, device, st, sst)
    except Exception as exc:
        buf[c.data_at:] = initial
        replace = ST_REPLACE if device != "cpu" else 0   # on a GPU the error may be sticky
        return ST_ERROR | replace, "worker: reading the program's results: %s" % first_line(exc), None
    return ST_OK, notes, [memoryview(buf)[c.data_at:]] + parts


# ---- batches ---------------------------------------------------------------------

# One case's share of a batched function: fn(*args) is what the case runs;
# finish(out) makes its RESULT from what fn returned, once the batch ran.
Part = collections.namedtuple("Part", "fn args finish")
BATCHES = [0]           # batched functions compiled so far (each its own code object)


def statement_part(c, buf, dtype, device):
    p = spec_of(c)
    st, sst = storages(c, buf, c.data_at, dtype, device)

    def finish(out):
        if len(out) == 2:                # scatter-return: y written back outside, as alone
            st.as_strided(c.input[1], c.input[2], c.input[0]).copy_(out[1])
        copy_back(c, buf, dtype, device, st, sst)
        return ST_OK, "", memoryview(buf)[c.data_at:]
    return Part(SHARED.make_program(torch, p), SHARED.inputs_for(p, st, sst, c.input, c.src), finish)


def program_part(c, buf, dtype, device):
    fn = program_fn(c.program)
    st, sst = storages(c, buf, c.data_at, dtype, device)
    initial = bytes(buf[c.data_at:])

    def finish(out):
        returned = (out,) if torch.is_tensor(out) else tuple(out)
        return program_result(c, buf, initial, dtype, device, st, sst, returned)
    return Part(fn, program_inputs(c, st, sst), finish)


def compile_batch(parts, backend, dynamic):
    """One function running every part in turn, each on its own inputs, under
    torch.compile: one compile for the batch. Each batch gets a code object
    of its own, so dynamo's cache for it goes with it instead of piling up
    guards on one shared code object."""
    fns, counts = tuple(p.fn for p in parts), tuple(len(p.args) for p in parts)

    def batch(*flat):
        outs, at = [], 0
        for fn, n in zip(fns, counts):
            outs.append(fn(*flat[at:at + n]))
            at += n
        return tuple(outs)
    BATCHES[0] += 1
    batch.__code__ = batch.__code__.replace(co_name="ssfuzz_batch_%d" % BATCHES[0])
    COMPILED.note(("batch", BATCHES[0]))     # counts toward dynamo's periodic reset
    return torch.compile(batch, backend=backend, dynamic=dynamic, fullgraph=True)


def compile_groups(group, cases):
    """The batch's cases as the functions that run them: the cases with
    native dtypes in one, the complex ones in another. Inductor has no C++
    for complex dtypes and calls ATen for them; in one function its
    scheduler puts those calls between native cases' code, and each call
    ends a fused kernel, every kernel a g++ run of its own (~0.6 s of it
    fixed: loading the precompiled header). Apart, the native cases make
    one kernel. The cases share no storage, so no result depends on it."""
    complex_ = [cases[i].dtype_name.startswith("complex") for i in group]
    native = [i for i, c in zip(group, complex_) if not c]
    return [g for g in (native, [i for i, c in zip(group, complex_) if c]) if g]


def run_together(group, cases, payloads, device, mode, progress, results):
    """Runs the cases at `group` (indices) as one compiled function, filling
    results; when it raises, each half is run the same way, down to single
    cases, which run alone (run_case)."""
    if not group:
        return
    if len(group) == 1:
        results[group[0]] = answer(payloads[group[0]], progress)
        return
    initial = [bytes(payloads[i][cases[i].data_at:]) for i in group]
    try:
        parts = [(program_part if cases[i].program is not None else statement_part)(
                 cases[i], payloads[i], dtype_of(cases[i].dtype_name), device) for i in group]
        fn = compile_batch(parts, *mode)
        progress(1)
        try:
            for i in group:
                FAULTS.raise_in(cases[i], True)
            outs = fn(*[a for part in parts for a in part.args])
            if device != "cpu":
                torch.cuda.synchronize()
        finally:
            progress(0)
    except Exception:
        for i, data in zip(group, initial):
            payloads[i][cases[i].data_at:] = data
        half = len(group) // 2
        run_together(group[:half], cases, payloads, device, mode, progress, results)
        run_together(group[half:], cases, payloads, device, mode, progress, results)
        return
    for i, part, out in zip(group, parts, outs):
        results[i] = part.finish(out)
        FAULTS.in_batch(cases[i], results[i])


def same_run_key(c, buf):
    """What decides a run's result: two runs of a batch with one key (a case
    with a separate src under x-input and two-inputs: the same function on
    the same tensors, as spec_of makes them alone) run once."""
    what = c.program if c.program is not None else spec_of(c)
    data = hashlib.blake2b(memoryview(buf)[c.data_at:], digest_size=32).digest()   # not a copy of the bytes
    return (what, c.mode, c.dtype_name, c.input, c.src, c.aliased, data)


def run_batch(payloads, progress):
    """The RESULTs of K RUN payloads of one compiled target (a BATCH frame),
    run by one compiled function: compiling one function for K small cases
    costs little more than compiling one case. Every case has storages of
    its own and its own RESULT. If the batched function raises (a refusal,
    a compile-only error, a graph break), its halves are run the same way,
    down to single cases, which run alone: every verdict of an exception is
    the one the case has alone. Cases that cannot share one function
    (another mode, a kernel) all run alone."""
    try:
        cases = [Case(p) for p in payloads]
    except Exception:
        cases = []
    mode = backend_of(cases[0].mode) if cases else None
    if (len(cases) < 2 or mode is None or
            any(c.kernel is not None or c.mode != cases[0].mode or dtype_of(c.dtype_name) is None
                for c in cases)):
        return [answer(p, progress) for p in payloads]
    device = "cuda" if cases[0].mode.endswith("cuda") else "cpu"
    results, first_of, group, copies = [None] * len(cases), {}, [], []
    for i, (c, p) in enumerate(zip(cases, payloads)):
        key = same_run_key(c, p)
        if key in first_of:
            copies.append((i, first_of[key]))
        else:
            first_of[key] = i
            group.append(i)
    for part in compile_groups(group, cases):
        run_together(part, cases, payloads, device, mode, progress, results)
    for i, j in copies:
        status, message, final = results[j]
        if status == ST_OK:
            at = cases[i].data_at
            payloads[i][at:] = payloads[j][cases[j].data_at:]
            rest = final[1:] if isinstance(final, list) else []
            final = [memoryview(payloads[i])[at:]] + rest if rest else memoryview(payloads[i])[at:]
        results[i] = (status, message, final)
    return results


def main():
    global torch, IN_FD, OUT_FD, FAULTS, SHARED, PYKERNEL
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
        SHARED = load_module(sys.argv[1], "ss_torch_program")
        table = json.loads(sys.argv[2])
        MODES.update(table["modes"])
        SHARED.STAGES = tuple(tuple(stage) for stage in table["stages"])
        PYKERNEL = load_module(sys.argv[3], "ss_pykernel_worker")
        PYKERNEL.worker = sys.modules[__name__]
    except Exception as exc:
        send(T_ERROR, ("worker: cannot load its modules: %s" % first_line(exc)).encode())
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
    FAULTS = Faults()

    def progress(phase):
        send(T_PROGRESS, struct.pack("<I", phase))

    while True:
        FAULTS.before_read()
        kind, payload = read_frame()
        if kind == T_PROBE and bytes(payload[:9]) == b"pykernel\0":
            progress(1)                  # importing the module may compile: a longer limit
            why = PYKERNEL.kernel_probe(payload)
            progress(0)
            send(T_ACK, why.encode("utf-8", "replace")[:2000])
            continue
        if kind == T_PROBE:
            progress(1)                  # a compile: its own, longer limit
            device, _, backend = bytes(payload).decode("ascii", "replace").partition(":")
            why = compile_probe(device, backend or "inductor")
            progress(0)
            send(T_ACK, why.encode("utf-8", "replace")[:2000])
            continue
        if kind == T_BATCH:
            runs = read_batch(payload)
            if runs is None:
                return 2
            for run in runs:
                FAULTS.before_run(run)
            answers = run_batch(runs, progress)
        elif kind == T_RUN:
            FAULTS.before_run(payload)
            answers = [answer(payload, progress)]
        else:
            send(T_ERROR, b"worker: unexpected frame type %d" % kind)
            return 2
        for status, message, final in answers:
            send_result(status, message, final)
            if status & ST_REPLACE:
                return 0                 # the harness starts a fresh worker (and reruns the rest)


def read_batch(payload):
    """The RUN payloads a BATCH frame announces ({u32 count, u32 0}, then that
    many RUN frames), or None after an ERROR frame."""
    if len(payload) != 8:
        send(T_ERROR, b"worker: a BATCH frame of %d bytes, not 8" % len(payload))
        return None
    count, zero = struct.unpack("<II", payload)
    if not 1 <= count <= MAX_BATCH or zero:
        send(T_ERROR, b"worker: a BATCH of %d cases (1 to %d)" % (count, MAX_BATCH))
        return None
    runs = []
    for _ in range(count):
        kind, run = read_frame()
        if kind != T_RUN:
            send(T_ERROR, b"worker: frame type %d inside a BATCH, not RUN" % kind)
            return None
        runs.append(run)
    return runs


def answer(payload, progress):
    """One RUN's (status, message, final)."""
    try:
        return run_case(payload, progress)
    except Exception:
        return ST_ERROR | ST_REPLACE, "worker: " + traceback.format_exc().strip().splitlines()[-1], None


def send_result(status, message, final):
    msg = message.encode("utf-8", "replace")[:2000]
    head = struct.pack("<II", status, len(msg))
    if status == ST_OK and not isinstance(final, list):
        final = [final]
    send(T_RESULT, head, msg, *(final if status == ST_OK else []))


if __name__ == "__main__":
    sys.exit(main())
