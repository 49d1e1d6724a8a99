"""ss_pykernel_worker.py - the Python-kernel engine's part of the worker (--py-kernel, docs/plugins.md).

A RUN naming a module path (from ssfuzz's command line, never from a case file) and a kernel
calls fn(x, src, dim, start, end, step) on the case's views, the storages sent and returned with
their guard bands; a PROBE "pykernel\0PATH\0KERNEL\0DEVICE" says whether the kernel can run. The
harness starts the CPU worker with TRITON_INTERPRET=1, so Triton kernels run through Triton's
interpreter.

Not run alone: the torch worker (harness/engines/ss_torch_worker.py), which owns the process
(frames, the case, its storages, torch), loads this file as a module of its own (built into
ssfuzz like the worker, passed as its argv[3]) and sets `worker` to itself.
"""
import os
import re
import sys
import traceback

worker = None           # the worker's own module (ss_torch_worker.py), set when it loads this one


KERNEL_MODULES = {}     # path -> (SSFUZZ_KERNELS, "") or (None, why it did not load)


def kernel_module(path):
    """The SSFUZZ_KERNELS dict of the module at `path`, imported once per
    worker. The path comes from ssfuzz's command line (--py-kernel), never
    from a case file. Its directory is appended to sys.path, so the module's
    own helpers import; nothing there shadows torch or the standard library."""
    if path in KERNEL_MODULES:
        return KERNEL_MODULES[path]
    import importlib.util
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    name = "ssfuzz_kernel_%d_%s" % (len(KERNEL_MODULES), stem)
    try:
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.append(folder)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        kernels = getattr(module, "SSFUZZ_KERNELS", None)
        if not isinstance(kernels, dict):
            raise TypeError("the module defines no dict SSFUZZ_KERNELS")
        result = (kernels, "")
    except BaseException as exc:          # SystemExit too: a module must not end the worker
        result = (None, "cannot import %s: %s" % (path, worker.first_line(exc)))
    KERNEL_MODULES[path] = result
    return result


def kernel_fn(path, kernel):
    """(the kernel function, "") or (None, why not)."""
    kernels, why = kernel_module(path)
    if kernels is None:
        return None, why
    fn = kernels.get(kernel)
    if not callable(fn):
        return None, "%s: SSFUZZ_KERNELS has no function %r (it has %s)" % (
            path, kernel, ", ".join(sorted(map(repr, kernels))) or "none")
    return fn, ""


def kernel_probe(payload):
    """PROBE "pykernel\0PATH\0KERNEL\0DEVICE": "ok" (and Triton's version when
    the module imported it) when the kernel can run, else why not."""
    words = bytes(payload).decode("utf-8", "surrogateescape").split("\0")
    if len(words) != 4:
        return "worker: a kernel PROBE has %d words, not 4" % len(words)
    _, path, kernel, device = words
    fn, why = kernel_fn(path, kernel)
    if fn is None:
        return why
    missing = worker.cuda_missing() if device == "cuda" else ""
    if missing:
        return missing
    triton = sys.modules.get("triton")
    version = getattr(triton, "__version__", "") if triton else ""
    interpreted = os.environ.get("TRITON_INTERPRET") == "1"
    return "ok" + (" triton=%s%s" % (version, " (interpreter)" if interpreted else "") if version else "")


def kernel_raised(exc, path):
    """What the kernel raised, with the deepest line of its own module."""
    where = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == path:
            where = " (%s:%d in %s)" % (os.path.basename(path), frame.lineno, frame.name)
    return "kernel raised %s%s" % (worker.first_line(exc), where)


KERNEL_SIGNATURES = set()


def run_kernel_case(c, buf, dtype, device, progress):
    """A Python kernel's case: fn(x, src, dim, start, end, step) in place on
    views of the storages, with dim, start and end as slice_scatter takes
    them (dim may be negative, start/end None). On the CPU the storages are
    the frame's own bytes, between their guard bands; on CUDA each is a slice
    of one device buffer holding the bands too. Every byte comes back. On
    CUDA a new (kernel, dtype, ranks) likely JIT-compiles: said as PROGRESS."""
    fn, why = kernel_fn(c.kernel_path, c.kernel)
    if fn is None:
        return worker.ST_UNSUPPORTED, why, None
    g, at = c.guard, c.data_at
    sat = at + c.in_bytes + 2 * g
    initial = bytes(buf[at:])
    try:
        if device == "cpu":
            st = worker.storage_tensor(buf, at + g, c.in_bytes, dtype)
            sst = None if c.aliased else worker.storage_tensor(buf, sat + g, c.src_bytes, dtype)
        else:
            whole = worker.torch.frombuffer(buf, dtype=worker.torch.uint8, count=len(buf) - at, offset=at)
            dev = whole.to(device)
            st = dev[g:g + c.in_bytes].view(dtype)
            sst = None if c.aliased else dev[sat - at + g:sat - at + g + c.src_bytes].view(dtype)
        x = st.as_strided(c.input[1], c.input[2], c.input[0])
        src = (st if sst is None else sst).as_strided(c.src[1], c.src[2], c.src[0])
        sig = (c.kernel_path, c.kernel, c.dtype_name, len(c.input[1]), len(c.src[1]), c.aliased)
        new = device != "cpu" and sig not in KERNEL_SIGNATURES
        KERNEL_SIGNATURES.add(sig)
        if new:
            progress(1)
        try:
            worker.FAULTS.raise_in(c, False)
            fn(x, src, c.raw_dim, c.start, c.end, c.step)
            if device != "cpu":
                worker.torch.cuda.synchronize()
        finally:
            if new:
                progress(0)
        if device != "cpu":
            whole.copy_(dev)
    except Exception as exc:
        buf[at:] = initial
        replace = worker.ST_REPLACE if device != "cpu" else 0   # on a GPU the error may be sticky
        return worker.ST_RAISED | replace, kernel_raised(exc, c.kernel_path), None
    return worker.ST_OK, "", memoryview(buf)[at:]
