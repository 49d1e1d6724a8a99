"""Programs in the printed Python form, each with the JSON steps
python/ssfuzz_program.py must read from it, the inputs it runs on and what
eager PyTorch does with it. Shared by tests/cli/test_python_program.sh
(parse, case files, explain round trip) and by anyone who wants examples.

Each entry: (name, source, steps, x, src, eager) where x is (dtype, shape),
src is (dtype, shape) of a separate storage or ("x", offset, sizes, strides)
for a view of x's storage, and eager is "ok" or "refused".
"""


def prog(*lines):
    return "def program(x, src):\n" + "".join("    %s\n" % line for line in lines)


def s(**kw):
    return kw


F4 = ("float32", [4, 4])
EXAMPLES = [
    ("a read through another view before the write, used after it",
     prog("a = x[:-1]", "r = a.clone()", "x[1:] = r", "return (x, r)"),
     [s(op="view", name="a", of="x", kind="slice", dim=0, start=None, end=-1, step=1),
      s(op="read", name="r", of="a", kind="clone"),
      s(op="write", into="x", spelling="setitem", src="r", dim=0, start=1, end=None, step=1),
      s(op="return", values=["x", "r"])],
     F4, ("float32", [3, 4]), "ok"),
    ("pytorch/pytorch#198094: x mutated after slice_scatter",
     prog("y = torch.slice_scatter(x, src, 0, 1, 3, 1)", "x.zero_()", "return (y,)"),
     [s(op="read", name="y", of="x", kind="slice_scatter", src="src", dim=0, start=1, end=3, step=1),
      s(op="inplace", into="x", kind="zero_"),
      s(op="return", values=["y"])],
     ("float32", [4, 2]), ("float32", [2, 2]), "ok"),
    ("src mutated after a setitem-clone write",
     prog("x[:, 0:2] = src.clone()", "src.add_(1)", "return (x, src)"),
     [s(op="write", into="x", spelling="setitem-clone", src="src", dim=1, start=0, end=2, step=1),
      s(op="inplace", into="src", kind="add_", operand=1),
      s(op="return", values=["x", "src"])],
     F4, ("float32", [4, 2]), "ok"),
    ("copy_ into a view of a view, a negative dim",
     prog("a = x[:, 1:]", "a[..., ::2].copy_(src)", "return (a,)"),
     [s(op="view", name="a", of="x", kind="slice", dim=1, start=1, end=None, step=1),
      s(op="write", into="a", spelling="copy", src="src", dim=-1, start=None, end=None, step=2),
      s(op="return", values=["a"])],
     ("float32", [2, 4]), ("float32", [2, 2]), "ok"),
    ("scatter-copy then clone-scatter",
     prog("x.copy_(torch.slice_scatter(x, src, 1, None, -2, 1))",
          "x.copy_(torch.slice_scatter(x.clone(), src, 1, 2, None, 1))", "return ()"),
     [s(op="write", into="x", spelling="scatter-copy", src="src", dim=1, start=None, end=-2, step=1),
      s(op="write", into="x", spelling="clone-scatter", src="src", dim=1, start=2, end=None, step=1)],
     F4, ("float32", [4, 2]), "ok"),
    ("the index-put spelling of a slice write, src on x's storage",
     prog("x.index_put_((torch.arange(x.shape[0]).view(-1, 1), torch.arange(x.shape[1])[1:3]), src)",
          "return (x,)"),
     [s(op="write", into="x", spelling="index-put", src="src", dim=1, start=1, end=3, step=1),
      s(op="return", values=["x"])],
     F4, ("x", 8, [4, 2], [1, 4]), "refused"),
    ("an in-place op whose operand is another view of the same storage",
     prog("a = x[0:2]", "b = x[2:4]", "a.add_(b)", "b.mul_(a)", "return (a, b)"),
     [s(op="view", name="a", of="x", kind="slice", dim=0, start=0, end=2, step=1),
      s(op="view", name="b", of="x", kind="slice", dim=0, start=2, end=4, step=1),
      s(op="inplace", into="a", kind="add_", operand="b"),
      s(op="inplace", into="b", kind="mul_", operand="a"),
      s(op="return", values=["a", "b"])],
     F4, ("float32", [1, 4]), "ok"),
    ("copy_ from the transpose of the same storage (refused)",
     prog("t = x.transpose(0, 1)", "x.copy_(t)", "return ()"),
     [s(op="view", name="t", of="x", kind="transpose", dim0=0, dim1=1),
      s(op="inplace", into="x", kind="copy_", operand="t")],
     F4, ("float32", [1, 4]), "refused"),
    ("index_put_ with duplicate indices, accumulating and not",
     prog("x.index_put_((torch.tensor([0, 2, 2]),), src, accumulate=True)",
          "x.index_put_((torch.tensor([3, 3]), torch.tensor([0, -1])), "
          "torch.tensor(2, dtype=x.dtype, device=x.device), accumulate=False)", "return (x,)"),
     [s(op="index_put", into="x", indices=[[0, 2, 2]], values="src", accumulate=True),
      s(op="index_put", into="x", indices=[[3, 3], [0, -1]], values=2, accumulate=False),
      s(op="return", values=["x"])],
     F4, ("float32", [3, 4]), "ok"),
    ("a dtype view, unfold, sum, an overlapping as_strided read",
     prog("v = x.view(torch.int32)", "u = v.unfold(1, 2, 2)", "s = torch.sum(u, 2, dtype=u.dtype)",
          "w = x.as_strided((2, 2), (1, 1), 3)", "r = w.clone()", "return (s, r)"),
     [s(op="view", name="v", of="x", kind="dtype", dtype="int32"),
      s(op="view", name="u", of="v", kind="unfold", dim=1, size=2, step=2),
      s(op="read", name="s", of="u", kind="sum", dim=2),
      s(op="view", name="w", of="x", kind="as_strided", sizes=[2, 2], strides=[1, 1], offset=3),
      s(op="read", name="r", of="w", kind="clone"),
      s(op="return", values=["s", "r"])],
     F4, ("float32", [1, 4]), "ok"),
    ("reads with constants, neg and flip on a diagonal",
     prog("a = x.diagonal(0, 0, 1)", "r = a + 2", "q = r - 3", "m = q * -2", "n = -m",
          "f = n.flip((0,))", "a.copy_(f)", "return (a, f)"),
     [s(op="view", name="a", of="x", kind="diagonal", offset=0, dim1=0, dim2=1),
      s(op="read", name="r", of="a", kind="add", value=2),
      s(op="read", name="q", of="r", kind="add", value=-3),
      s(op="read", name="m", of="q", kind="mul", value=-2),
      s(op="read", name="n", of="m", kind="neg"),
      s(op="read", name="f", of="n", kind="flip", dims=[0]),
      s(op="inplace", into="a", kind="copy_", operand="f"),
      s(op="return", values=["a", "f"])],
     F4, ("float32", [1, 4]), "ok"),
    ("real and imag of complex64",
     prog("re = x.real", "im = x.imag", "re.sub_(im)", "im.fill_(1)", "return (x,)"),
     [s(op="view", name="re", of="x", kind="real"),
      s(op="view", name="im", of="x", kind="imag"),
      s(op="inplace", into="re", kind="sub_", operand="im"),
      s(op="inplace", into="im", kind="fill_", operand=1),
      s(op="return", values=["x"])],
     ("complex64", [2, 2]), ("complex64", [1, 2]), "ok"),
    ("permute, select, fill_ and mul_",
     prog("p = x.permute(1, 0)", "c = p[:, 0]", "r = c * 2", "c.fill_(3)", "c.mul_(r)", "return (p, c)"),
     [s(op="view", name="p", of="x", kind="permute", dims=[1, 0]),
      s(op="view", name="c", of="p", kind="select", dim=1, index=0),
      s(op="read", name="r", of="c", kind="mul", value=2),
      s(op="inplace", into="c", kind="fill_", operand=3),
      s(op="inplace", into="c", kind="mul_", operand="r"),
      s(op="return", values=["p", "c"])],
     ("int16", [3, 3]), ("int16", [1, 3]), "ok"),
]

# Forms the reader takes that the examples above leave out: (source, steps).
PARSE_ONLY = [
    (prog("a = x[1:]", "a.copy_(torch.tensor(1, dtype=a.dtype, device=a.device))",
          "b = torch.as_strided(x, (2,), (2,), 0)", "r = torch.flip(b, (0,))", "c = x[-1]", "return (r, c)"),
     [s(op="view", name="a", of="x", kind="slice", dim=0, start=1, end=None, step=1),
      s(op="inplace", into="a", kind="copy_", operand=1),
      s(op="view", name="b", of="x", kind="as_strided", sizes=[2], strides=[2], offset=0),
      s(op="read", name="r", of="b", kind="flip", dims=[0]),
      s(op="view", name="c", of="x", kind="select", dim=0, index=-1),
      s(op="return", values=["r", "c"])]),
]

# Sources the reader must refuse, and a word its message must contain.
REFUSED = [
    (prog("for i in range(3):", "    x.add_(1)"), "line 2", "not a step"),
    (prog("a = x[1:][0:2]"), "line 2", "expected a name"),
    (prog("r = x.clone()", "r.add_(1)"), "line 3", "is a read"),
    (prog("x.foo_(1)"), "line 2", "not an in-place op"),
    (prog("a = q[1:]"), "line 2", "not defined"),
    (prog("a = x[1:]", "a = x[2:]"), "line 3", "already defined"),
    (prog("x[0] = src"), "line 2", "writes a slice"),
    (prog("x.add_(1.5)"), "line 2", "integer literal"),
    (prog("x.add_(99999999999999999999)"), "line 2", "int64"),
    (prog("r = torch.sum(x, 0)"), "line 2", "dtype=x.dtype"),
    (prog("return (x,)", "x.add_(1)"), "line 2", "last line"),
    ("import os\n" + prog("return (x,)"), "line 1", "top level"),
    (prog("a = x.as_strided((2,), (1,))"), "line 2", "storage offset"),
    (prog(*["x.add_(1)"] * 17), "line 18", "more than 16 steps"),
    (prog("a = x[1:"), "line 2", "line 2"),          # Python's own words differ by release
    (prog("x.index_put_((torch.tensor([0]),), 3)"), "line 2", "torch.tensor(K"),
    (prog("a = x.permute(dims=(1, 0))"), "line 2", "positionally"),
    (prog("exec('import os')"), "line 2", "method call"),
    (prog("a = eval('x')"), "line 2", "tensor method or torch.FUNCTION"),
]
