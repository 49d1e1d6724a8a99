"""The four program shapes of issue 21, by hand, against PyTorch: eager, and
torch.compile with the backends eager (dynamo only), aot_eager
(functionalization) and inductor (static and dynamic=True), each against a
hand-computed expectation (final storages, returned values, their aliasing).

usage: python tests/torch/probe_programs.py [MODE ...]
MODE: eager dynamo aot_eager inductor inductor-dynamic (default: all).
Prints one markdown table row per program; a cell is `ok`, `refused`, or what
is wrong. Exit 0 always (a probe, not a test); 77 without torch.
It seeds the campaign's expectations: docs/programs.md and the worker's
stage_of() name the same stages.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "harness", "engines"))
import ss_torch_program as sp  # noqa: E402

try:
    import torch
except ImportError:
    print("skip: torch is not importable by", sys.executable)
    sys.exit(77)

MODES = {"eager": None, "dynamo": ("eager", None), "aot_eager": ("aot_eager", None),
         "inductor": ("inductor", None), "inductor-dynamic": ("inductor", True)}


def prog(*lines):
    return "def program(x, src):\n" + "".join("    %s\n" % line for line in lines)


def f32(*v):
    return torch.tensor(v, dtype=torch.float32)


def sep(x, s):
    return lambda: (x.clone(), s.clone(), True)


def alias(x, off, sizes, strides):
    """src as a view of x's storage."""
    def make():
        b = x.clone()
        return b, b.as_strided(sizes, strides, off), False
    return make


NOSRC = f32(0)
# (shape, name, source, make() -> (x, src, src_separate), expected) where expected is
# "refused" or (x after, src after or None, [(returned value, "input"|"src"|"none")]).
PROBES = [
    ("read before, used after", "A1 clone of x[:-1], x[1:] = it",
     prog("a = x[:-1]", "r = a.clone()", "x[1:] = r", "return (x, r)"),
     sep(f32(0, 1, 2, 3), NOSRC), ([0, 0, 1, 2], None, [([0, 0, 1, 2], "input"), ([0, 1, 2], "none")])),
    ("read before, used after", "A2 x[:-1] * 1 read, x[1:] = it",
     prog("a = x[:-1]", "r = a * 1", "x[1:] = r", "return (r,)"),
     sep(f32(0, 1, 2, 3), NOSRC), ([0, 0, 1, 2], None, [([0, 1, 2], "none")])),
    ("read before, used after", "A3 r = x[1:] * 2; x[0:3] = r; x[1:].add_(r)",
     prog("a = x[1:]", "r = a * 2", "x[0:3] = r", "a.add_(r)", "return (x, r)"),
     sep(f32(1, 2, 3, 4), NOSRC), ([4, 10, 14, 12], None, [([4, 10, 14, 12], "input"), ([4, 6, 8], "none")])),
    ("read before, used after", "A4 transposed clone copied back",
     prog("t = x.transpose(0, 1)", "r = t.clone()", "x.copy_(r)", "return (x,)"),
     sep(f32(0, 1, 2, 3).view(2, 2), NOSRC), ([[0, 2], [1, 3]], None, [([[0, 2], [1, 3]], "input")])),
    ("mutation after the write", "B1 #198094 slice_scatter, x.zero_()",
     prog("y = torch.slice_scatter(x, src, 0, 1, 3, 1)", "x.zero_()", "return (y,)"),
     sep(f32(*range(8)).view(4, 2), f32(-1, -2, -3, -4).view(2, 2)),
     ([[0, 0]] * 4, [[-1, -2], [-3, -4]], [([[0, 1], [-1, -2], [-3, -4], [6, 7]], "none")])),
    ("mutation after the write", "B2 x[1:3] = src; src.add_(1)",
     prog("x[1:3] = src", "src.add_(1)", "return (x, src)"),
     sep(f32(0, 1, 2, 3), f32(5, 6)), ([0, 5, 6, 3], [6, 7], [([0, 5, 6, 3], "input"), ([6, 7], "src")])),
    ("mutation after the write", "B3 x[2:4] = x[0:2]; x[0:2].mul_(2)",
     prog("a = x[0:2]", "x[2:4] = a", "a.mul_(2)", "return (x,)"),
     sep(f32(1, 2, 3, 4), NOSRC), ([2, 4, 1, 2], None, [([2, 4, 1, 2], "input")])),
    ("mutation after the write", "B4 slice_scatter of x, then x.add_(1)",
     prog("y = torch.slice_scatter(x, src, 0, 0, 2, 1)", "x.add_(1)", "return (x, y)"),
     sep(f32(0, 1, 2, 3), f32(9, 9)), ([1, 2, 3, 4], [9, 9], [([1, 2, 3, 4], "input"), ([9, 9, 2, 3], "none")])),
    ("mutation after the write", "B5 src = x[1:3] (aliased): x[0:2] = src.clone(); src.add_(1)",
     prog("x[0:2] = src.clone()", "src.add_(1)", "return (x,)"),
     alias(f32(0, 1, 2, 3), 1, [2], [1]), ([1, 3, 3, 3], None, [([1, 3, 3, 3], "input")])),
    ("mutation after the write", "B6 x[0:] = src[0:]; src.add_(1) (#198131's shape)",
     prog("a = src[0:]", "x[0:] = a", "src.add_(1)", "return (x,)"),
     sep(f32(0, 0, 0, 0), f32(1, 2, 3, 4)), ([1, 2, 3, 4], [2, 3, 4, 5], [([1, 2, 3, 4], "input")])),
    ("operand a view of the same storage", "C1 x[0:2].add_(x[2:4]); x[2:4].mul_(x[0:2])",
     prog("a = x[0:2]", "b = x[2:4]", "a.add_(b)", "b.mul_(a)", "return (x,)"),
     sep(f32(1, 2, 3, 4), NOSRC), ([4, 6, 12, 24], None, [([4, 6, 12, 24], "input")])),
    ("operand a view of the same storage", "C2 x.real.sub_(x.imag)",
     prog("re = x.real", "im = x.imag", "re.sub_(im)", "return (x,)"),
     sep(torch.tensor([1 + 2j, 3 + 4j], dtype=torch.complex64), torch.zeros(1, dtype=torch.complex64)),
     ([-1 + 2j, -1 + 4j], None, [([-1 + 2j, -1 + 4j], "input")])),
    ("operand a view of the same storage", "C3 int16 halves of int32: hi.add_(lo)",
     prog("v = x.view(torch.int16)", "lo = v[0::2]", "hi = v[1::2]", "hi.add_(lo)", "return (x,)"),
     sep(torch.tensor([1, 2], dtype=torch.int32), torch.zeros(1, dtype=torch.int32)),
     ([65537, 131074], None, [([65537, 131074], "input")])),
    ("operand a view of the same storage", "C4 x.add_(x.transpose(0, 1)) (eager refuses)",
     prog("t = x.transpose(0, 1)", "x.add_(t)", "return (x,)"),
     sep(f32(0, 1, 2, 3).view(2, 2), NOSRC), "refused"),
    ("operand a view of the same storage", "C5 diagonal.copy_(first row) (overlap too hard to check)",
     prog("d = x.diagonal(0, 0, 1)", "r0 = x[0]", "d.copy_(r0)", "return (x,)"),
     sep(f32(*range(9)).view(3, 3), NOSRC), ([[0, 1, 2], [3, 1, 5], [6, 7, 2]], None, [([[0, 1, 2], [3, 1, 5], [6, 7, 2]], "input")])),
    ("operand a view of the same storage", "C6 x[2::2].copy_(x[0:6:2]) (overlap too hard to check)",
     prog("a = x[2::2]", "b = x[0:6:2]", "a.copy_(b)", "return (x,)"),
     sep(f32(*range(8)), NOSRC), ([0, 1, 0, 3, 2, 5, 4, 7], None, [([0, 1, 0, 3, 2, 5, 4, 7], "input")])),
    ("operand a view of the same storage", "C7 x[2::2].add_(x[0:6:2]) (overlap too hard to check)",
     prog("a = x[2::2]", "b = x[0:6:2]", "a.add_(b)", "return (x,)"),
     sep(f32(*range(8)), NOSRC), ([0, 1, 2, 3, 6, 5, 10, 7], None, [([0, 1, 2, 3, 6, 5, 10, 7], "input")])),
    ("fresh result comes back as an alias", "D1 slice_scatter returned",
     prog("y = torch.slice_scatter(x, src, 0, 0, 1, 1)", "return (y,)"),
     sep(f32(0, 1, 2, 3), f32(7)), ([0, 1, 2, 3], [7], [([7, 1, 2, 3], "none")])),
    ("fresh result comes back as an alias", "D2 x + 0 returned",
     prog("r = x + 0", "return (r,)"), sep(f32(0, 1, 2, 3), NOSRC), ([0, 1, 2, 3], None, [([0, 1, 2, 3], "none")])),
    ("fresh result comes back as an alias", "D3 x.flip twice returned",
     prog("r = x.flip((0,))", "q = r.flip((0,))", "return (q,)"),
     sep(f32(0, 1, 2, 3), NOSRC), ([0, 1, 2, 3], None, [([0, 1, 2, 3], "none")])),
    ("fresh result comes back as an alias", "D4 a view returned after a write through it",
     prog("a = x[1:]", "a.mul_(2)", "return (a,)"), sep(f32(0, 1, 2, 3), NOSRC),
     ([0, 2, 4, 6], None, [([2, 4, 6], "input")])),
    ("fresh result comes back as an alias", "D5 slice_scatter of x with x's own slice, x written after",
     prog("a = x[0:2]", "y = torch.slice_scatter(x, a, 0, 2, 4, 1)", "a.fill_(9)", "return (y, x)"),
     sep(f32(0, 1, 2, 3), NOSRC), ([9, 9, 2, 3], None, [([0, 1, 0, 1], "none"), ([9, 9, 2, 3], "input")])),
]


def verdict(source, make, expected, mode):
    x, src, separate = make()
    fn = sp.build(torch, source)
    try:
        returned = sp.run(torch, fn, x, src, MODES[mode])
    except Exception as exc:
        if expected == "refused":
            return "refused" if sp.is_refusal(exc) else "raised (not the refusal)"
        return "raised: " + " ".join(str(exc).split())[:80]
    if expected == "refused":
        got = "ran: x=%s" % x.tolist()
        return got
    want_x, want_src, want_ret = expected
    wrong = []
    if x.tolist() != want_x:
        wrong.append("x=%s" % x.tolist())
    if want_src is not None and separate and src.tolist() != want_src:
        wrong.append("src=%s" % src.tolist())
    desc = sp.describe_returns(torch, returned, x, src if separate else None)
    for i, (r, d, (value, al)) in enumerate(zip(returned, desc, want_ret)):
        if r.tolist() != value:
            wrong.append("ret%d=%s" % (i, r.tolist()))
        if d["aliases"] != al or d["disagreement"]:
            wrong.append("ret%d aliases %s%s" % (i, d["aliases"], " (%s)" % d["disagreement"]
                                                  if d["disagreement"] else ""))
    return "; ".join(wrong) or "ok"


def main(argv):
    modes = argv[1:] or list(MODES)
    if any(m not in MODES for m in modes):
        sys.exit("modes: " + " ".join(MODES))
    if not hasattr(torch, "compile"):
        modes = [m for m in modes if m == "eager"]
        print("# torch %s has no torch.compile: eager only" % torch.__version__)
    print("# torch %s, python %s, CPU" % (torch.__version__, sys.version.split()[0]))
    print("| shape | program | " + " | ".join(modes) + " |")
    print("|---|---|" + "---|" * len(modes))
    t0 = time.time()
    for shape, name, source, make, expected in PROBES:
        cells = [verdict(source, make, expected, m) for m in modes]
        print("| %s | %s | %s |" % (shape, name, " | ".join(cells)), flush=True)
    print("# %.0f s" % (time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
