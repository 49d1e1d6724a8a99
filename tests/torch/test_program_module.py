"""Unit tests of harness/engines/ss_torch_program.py on hand-written programs,
with whatever torch the running python has (>= 1.13; the compile parts are
skipped, with the reason printed, where torch has no torch.compile).

usage: python3 tests/torch/test_program_module.py
Prints "ok NAME" / "not ok NAME: why" / "skip NAME: why"; exit 0 when nothing
failed, 1 on a failure, 77 without torch.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "harness", "engines"))
import ss_torch_program as sp  # noqa: E402

# What its loaders do (the worker from its argv, exported scripts from the constants ssfuzz
# writes): the compiled stages in their order, as harness/engines/ss_torch_modes.h has them
# (tests/test_torch_modes.c holds the worker's copy of the table to this same order).
sp.STAGES = (("eager", "dynamo"), ("aot_eager", "aot"), ("inductor", "inductor"))

try:
    import torch
except ImportError:
    print("skip test_program_module: torch is not importable by", sys.executable)
    sys.exit(77)

FAILED = []


def report(name, ok, why=""):
    print("ok %s" % name if ok else "not ok %s: %s" % (name, why))
    if not ok:
        FAILED.append(name)


def f32(*v):
    return torch.tensor(v, dtype=torch.float32)


def prog(*lines):
    return "def program(x, src):\n" + "".join("    %s\n" % l for l in lines)


# name, source, make() -> (base, x, src, src_base or None),
# expected final base (list), expected returns [(list, aliases)], or "refused"
CASES = [
    ("aliased shift after a clone read",
     prog("a = x[:-1]", "r = a.clone()", "x[1:] = r", "return (x, r)"),
     lambda: (lambda b: (b, b, b[:0], None))(f32(0, 1, 2, 3)),
     [0, 0, 1, 2], [([0, 0, 1, 2], "input"), ([0, 1, 2], "none")]),
    ("copy_ with a partially overlapping operand is refused",
     prog("a = x[1:]", "b = x[:-1]", "a.copy_(b)", "return ()"),
     lambda: (lambda b: (b, b, b[:0], None))(f32(0, 1, 2, 3)), None, "refused"),
    ("setitem of an overlapping transposed view is refused",
     prog("a = x.transpose(0, 1)", "x[:] = a", "return ()"),
     lambda: (lambda b: (b, b.view(2, 2), b[:0], None))(f32(0, 1, 2, 3)), None, "refused"),
    ("a write into a stride-0 view is refused",
     prog("a = x.as_strided((2, 2), (0, 1), 0)", "a.add_(1)", "return ()"),
     lambda: (lambda b: (b, b, b[:0], None))(f32(0, 1, 2, 3)), None, "refused"),
    ("index_put_ with duplicates (accumulate)",
     prog("x.index_put_((torch.tensor([0, 2, 2]),), src, accumulate=True)", "return (x,)"),
     lambda: (lambda b, s: (b, b, s, s))(f32(0, 1, 2, 3), f32(5, 6, 7)),
     [5, 1, 15, 3], [([5, 1, 15, 3], "input")]),
    ("index_put_ with duplicates (no accumulate: one of the values)",
     prog("x.index_put_((torch.tensor([0, 2, 2]),), src, accumulate=False)", "return ()"),
     lambda: (lambda b, s: (b, b, s, s))(f32(0, 1, 2, 3), f32(5, 6, 7)),
     ([5, 1, 6, 3], [5, 1, 7, 3]), []),
    ("int32 storage viewed as int16",
     prog("a = x.view(torch.int16)", "a.add_(1)", "return (a,)"),
     lambda: (lambda b: (b, b, b[:0], None))(torch.tensor([1, 2], dtype=torch.int32)),
     [65538, 65539], [([2, 1, 3, 1], "input")]),
    ("float32 storage viewed as uint8, one byte written",
     prog("a = x.view(torch.uint8)", "b = a[3:4]", "b.fill_(0)", "return (b,)"),
     lambda: (lambda b: (b, b, b[:0], None))(f32(1.0, 2.0)),
     [2.0 ** -126, 2.0], [([0], "input")]),
    ("real and imag of complex64",
     prog("a = x.real", "b = x.imag", "a.copy_(b)", "return (a, b)"),
     lambda: (lambda b: (b, b, b[:0], None))(torch.tensor([1 + 2j, 3 + 4j], dtype=torch.complex64)),
     [2 + 2j, 4 + 4j], [([2, 4], "input"), ([2, 4], "input")]),
    ("a returned slice_scatter result is fresh",
     prog("y = torch.slice_scatter(x, src, 0, 1, 3, 1)", "return (y,)"),
     lambda: (lambda b, s: (b, b.view(4, 2), s.view(2, 2), s))(f32(*range(8)), f32(-1, -2, -3, -4)),
     list(range(8)), [([[0, 1], [-1, -2], [-3, -4], [6, 7]], "none")]),
    ("the slice_scatter of #198094, x zeroed after it (eager)",
     prog("y = torch.slice_scatter(x, src, 0, 1, 3, 1)", "x.zero_()", "return (y,)"),
     lambda: (lambda b, s: (b, b.view(4, 2), s.view(2, 2), s))(f32(*range(8)), f32(-1, -2, -3, -4)),
     [0] * 8, [([[0, 1], [-1, -2], [-3, -4], [6, 7]], "none")]),
    ("a returned view of x aliases input",
     prog("a = x[1:]", "a.mul_(2)", "return (a,)"),
     lambda: (lambda b: (b, b, b[:0], None))(f32(0, 1, 2, 3)),
     [0, 2, 4, 6], [([2, 4, 6], "input")]),
    ("a returned view of a separate src aliases src",
     prog("b = src.transpose(0, 1)", "return (b,)"),
     lambda: (lambda b, s: (b, b, s.view(2, 2), s))(f32(0, 1), f32(1, 2, 3, 4)),
     [0, 1], [([[1, 3], [2, 4]], "src")]),
    ("an in-place op whose operand is the same view (full overlap is allowed)",
     prog("x.add_(x)", "return ()"),
     lambda: (lambda b: (b, b, b[:0], None))(f32(0, 1, 2, 3)), [0, 2, 4, 6], []),
    ("unfold read summed along its window",
     prog("a = x.unfold(0, 2, 1)", "r = torch.sum(a, 1, dtype=a.dtype)", "return (r,)"),
     lambda: (lambda b: (b, b, b[:0], None))(torch.tensor([1, 2, 3], dtype=torch.int16)),
     [1, 2, 3], [([3, 5], "none")]),
    ("bool flip written back, diagonal filled",
     prog("r = x.flip((0,))", "x.copy_(r)", "d = src.diagonal(0, 0, 1)", "d.fill_(1)",
          "return (r, d)"),
     lambda: (lambda b, s: (b, b, s.view(2, 2), s))(torch.tensor([True, False, False]),
                                                    torch.zeros(4, dtype=torch.bool)),
     [False, False, True], [([False, False, True], "none"), ([True, True], "src")]),
    ("src on x's storage: a read through src before x is written",
     prog("r = src + 1", "x.copy_(r)", "return (x, r)"),
     lambda: (lambda b: (b, b[0:2], b[2:4], None))(torch.tensor([1, 2, 3, 4], dtype=torch.uint8)),
     [4, 5, 3, 4], [([4, 5], "input"), ([4, 5], "none")]),
]


def as_list(t):
    return t.tolist()


def check_case(name, source, make, want_base, want_ret, compile_mode=None):
    fn = sp.build(torch, source)
    base, x, src, src_base = make()
    try:
        returned = sp.run(torch, fn, x, src, compile_mode)
    except Exception as exc:
        if want_ret == "refused":
            return sp.is_refusal(exc), "raised but not a refusal: %s" % exc
        return False, "raised %s" % exc
    if want_ret == "refused":
        return False, "ran without the refusal"
    got = as_list(base)
    if isinstance(want_base, tuple) and got not in [list(w) for w in want_base]:
        return False, "storage %s, not one of %s" % (got, want_base)
    if not isinstance(want_base, tuple) and got != want_base:
        return False, "storage %s, expected %s" % (got, want_base)
    desc = sp.describe_returns(torch, returned, base, src_base)
    if len(desc) != len(want_ret):
        return False, "%d values returned, expected %d" % (len(desc), len(want_ret))
    for i, (d, (values, alias), r) in enumerate(zip(desc, want_ret, returned)):
        if as_list(r) != values:
            return False, "returned[%d] = %s, expected %s" % (i, as_list(r), values)
        if d["bytes"] != sp.tensor_bytes(torch, torch.tensor(values, dtype=r.dtype)):
            return False, "returned[%d] bytes %r" % (i, d["bytes"])
        if d["dtype"] != str(r.dtype)[6:] or d["shape"] != list(r.shape):
            return False, "returned[%d] dtype/shape %s %s" % (i, d["dtype"], d["shape"])
        if d["aliases"] != alias or d["write_through"] != alias or d["disagreement"]:
            return False, "returned[%d] aliases %s, write-through %s, expected %s" % (
                i, d["aliases"], d["write_through"], alias)
    if as_list(base) != got:
        return False, "describe_returns left the storage changed: %s" % as_list(base)
    return True, ""


def test_build():
    for bad, why in (("x = 1\n", "no def"), (prog("return ()") + "y = 2\n", "a statement beside it"),
                     ("def other(x, src):\n    return ()\n", "another name"), ("def program(:\n", "syntax")):
        try:
            sp.build(torch, bad)
        except ValueError:
            report("build refuses source with %s" % why, True)
        else:
            report("build refuses source with %s" % why, False, "accepted")


def test_refusal_patterns():
    msgs = ["unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the operation.",
            "more than one element of the written-to tensor refers to a single memory location"]
    wrapped = RuntimeError("Failed running call_method copy_")
    wrapped.__cause__ = RuntimeError(msgs[0])
    ok = all(sp.is_refusal(RuntimeError(m)) for m in msgs) and sp.is_refusal(wrapped) \
        and not sp.is_refusal(RuntimeError("shape mismatch")) and "ss_torch_refusals" in sp.refusals_c()
    report("is_refusal knows the refusals, through a wrapping exception too", ok)


def test_write_through_disagreement():
    base = f32(0, 1, 2, 3)
    d = sp.describe_returns(torch, (base[2:2],), base)[0]
    report("an empty returned view: storage identity only", d["aliases"] == "input"
           and d["write_through"] is None and d["disagreement"] is None, str(d))
    # Two checks that disagree cannot be built from Python tensors: make the
    # storage identity lie about a fresh tensor, so the write-through check must
    # contradict it, and the contradiction be reported.
    fresh, real_span = base.clone(), sp._span
    sp._span = lambda t: real_span(base) if t is fresh else real_span(t)
    try:
        d = sp.describe_returns(torch, (fresh,), base)[0]
    finally:
        sp._span = real_span
    report("storage identity and write-through disagreeing is reported",
           d["aliases"] == "input" and d["write_through"] == "none" and "changed none" in (d["disagreement"] or "")
           and base.tolist() == [0, 1, 2, 3] and fresh.tolist() == [0, 1, 2, 3], str(d))


def test_compile():
    if not hasattr(torch, "compile"):
        print("skip compile tests: torch %s has no torch.compile" % torch.__version__)
        return
    for name, source, make, want_base, want_ret in (CASES[0], CASES[3], CASES[9], CASES[11]):
        ok, why = check_case(name, source, make, want_base, want_ret, ("aot_eager", None))
        report("aot_eager: " + name, ok, why)
    sp.reset()
    fn = sp.build(torch, CASES[0][1])
    a = sp._compiled(torch, fn, "aot_eager", None)
    same = a is sp._compiled(torch, sp.build(torch, CASES[0][1]), "aot_eager", None)
    report("compiled programs are cached per source, backend and dynamic",
           same and a is not sp._compiled(torch, fn, "eager", None))
    # pytorch/pytorch#198094: the slice_scatter result read before x.zero_().
    name, source, make, want_base, want_ret = CASES[10]
    want = [[0, 1], [-1, -2], [-3, -4], [6, 7]]

    def inputs():
        _, x, src, _ = make()
        return x, src

    def expected_ok(o):
        return o.error is None and as_list(o.returned[0]) == want and as_list(o.inputs[0]) == [[0, 0]] * 4

    stage, checks = sp.stage_of(torch, sp.build(torch, source), inputs, expected_ok)
    print("# #198094 on torch %s: stage %s, checks %s" % (torch.__version__, stage, checks))
    if torch.__version__.startswith("2.15."):
        report("stage_of puts #198094 in inductor on torch 2.15", stage == "inductor", str(checks))
    else:
        print("skip stage_of #198094 verdict: measured on torch 2.15 only (this is %s)" % torch.__version__)
    # An expectation no run meets (as when eager itself is wrong): the
    # uncompiled run is judged first and no backend is compiled.
    stage, checks = sp.stage_of(torch, sp.build(torch, source), inputs, lambda o: False)
    report("stage_of names eager when the run without compile is wrong", stage == "eager" and
           checks == [("none", False, None)], "%s %s" % (stage, checks))


def main():
    print("# torch %s, python %s" % (torch.__version__, sys.version.split()[0]))
    test_build()
    test_refusal_patterns()
    for name, source, make, want_base, want_ret in CASES:
        ok, why = check_case(name, source, make, want_base, want_ret)
        report("eager: " + name, ok, why)
    test_write_through_disagreement()
    test_compile()
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
