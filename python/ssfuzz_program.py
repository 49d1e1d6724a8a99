"""ssfuzz_program - a program (docs/programs.md) read from a short Python function.

    steps = ssfuzz_program.parse('''
    def program(x, src):
        a = x[:-1]
        r = a.clone()
        x[1:] = r
        return (x, r)
    ''')

The function is read through its syntax tree (`ast`): nothing is executed or
evaluated. Each line must be one step in the form the C printer writes (one
view, read, write, in-place op, index_put_ or the return per line); anything
else is refused with its line number and what is not supported. Standard
library only: `python3 ssfuzz_program.py FILE` prints the program as JSON.
Shapes are not known here: `ssfuzz` checks them when it reads the case.
"""
import ast
import json
import re
import sys
import warnings

__all__ = ["ProgramError", "parse"]

MAX_STEPS, MAX_NAMES, MAX_RETURN, MAX_SOURCE = 16, 32, 8, 1 << 16
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128")
INPLACE = ("add_", "sub_", "mul_", "zero_", "fill_", "copy_")
NAME_RE = re.compile(r"[a-z0-9_]{1,15}\Z")
# Names a printed program could not use for a value (the C side refuses them too).
RESERVED = ("torch", "program", "slice", "range", "print", "len", "tuple", "_")
WHOLE = object()                 # a `:` subscript item


class ProgramError(ValueError):
    """One line: `line N: the construct: the rule`."""


class _Reader:
    def __init__(self, source):
        self.lines = source.splitlines()
        self.kinds = {"x": "view", "src": "view"}
        self.steps = []
        self.line = 0

    # ---- errors and leaves ------------------------------------------------------

    def fail(self, rule, node=None):
        line = getattr(node, "lineno", self.line)
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        text = text if len(text) <= 60 else text[:57] + "..."
        raise ProgramError("line %d: `%s`: %s" % (line, text, rule))

    def int_(self, node, what):
        neg = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
        v = node.operand if neg else node
        if not (isinstance(v, ast.Constant) and type(v.value) is int):
            self.fail("%s must be an integer literal" % what, node)
        value = -v.value if neg else v.value
        if not -(1 << 63) <= value < (1 << 63):
            self.fail("%s %d is out of the int64 range" % (what, value), node)
        return value

    def opt_int(self, node, what):
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
            return None
        return self.int_(node, what)

    def ints(self, node, what):
        """A tuple or list of integer literals."""
        if not isinstance(node, (ast.Tuple, ast.List)):
            self.fail("%s must be a tuple of integers" % what, node)
        return [self.int_(e, what) for e in node.elts]

    def name(self, node, want="any"):
        """A defined name; want "view" refuses reads."""
        if not isinstance(node, ast.Name):
            self.fail("expected a name (x, src or an earlier step's), not an expression", node)
        kind = self.kinds.get(node.id)
        if kind is None:
            self.fail("`%s` is not defined before this line (defined: %s)"
                      % (node.id, ", ".join(self.kinds)), node)
        if want == "view" and kind != "view":
            self.fail("`%s` is a read (a fresh tensor): only views (x, src, view steps) "
                      "can be viewed or written" % node.id, node)
        return node.id

    def new_name(self, node, kind):
        if not isinstance(node, ast.Name):
            self.fail("one name on the left, or a subscript of a view (a write)", node)
        n = node.id
        if not NAME_RE.match(n) or n in RESERVED:
            self.fail("name `%s`: 1..15 characters of [a-z0-9_], not one of %s" % (n, ", ".join(RESERVED)), node)
        if n in self.kinds:
            self.fail("`%s` is already defined: each step names a new value" % n, node)
        if len(self.kinds) >= MAX_NAMES:
            self.fail("more than %d names" % MAX_NAMES, node)
        self.kinds[n] = kind
        return n

    def is_torch(self, node, attr):
        return (isinstance(node, ast.Attribute) and node.attr == attr
                and isinstance(node.value, ast.Name) and node.value.id == "torch")

    def is_attr_of(self, node, attr, of):
        """node is `OF.attr` (OF.dtype, OF.device)."""
        return (isinstance(node, ast.Attribute) and node.attr == attr
                and isinstance(node.value, ast.Name) and node.value.id == of)

    def args(self, call, names, required, defaults=None):
        """call's positional and keyword arguments bound to names."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            self.fail("no *args or **kwargs", call)
        if len(call.args) > len(names):
            self.fail("at most %d arguments" % len(names), call)
        bound = dict(zip(names, call.args))
        for k in call.keywords:
            if k.arg not in names or k.arg in bound:
                self.fail("unexpected or repeated argument `%s`" % k.arg, call)
            bound[k.arg] = k.value
        for n in names[:required]:
            if n not in bound:
                self.fail("`%s` is required" % n, call)
        for n, v in (defaults or {}).items():
            bound.setdefault(n, ast.Constant(v))
        return bound

    # ---- subscripts ---------------------------------------------------------------

    def item(self, node):
        if isinstance(node, getattr(ast, "Index", ())):          # Python < 3.9
            node = node.value
        if isinstance(node, ast.Slice):
            if node.lower is None and node.upper is None and node.step is None:
                return WHOLE
            step = self.opt_int(node.step, "a slice step")
            if step is not None and step < 1:
                self.fail("a slice step must be >= 1", node)
            return ("slice", self.opt_int(node.lower, "a slice start"),
                    self.opt_int(node.upper, "a slice end"), 1 if step is None else step)
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            return Ellipsis
        return ("select", self.int_(node, "an index"))

    def sub(self, node):
        """(dim, item) of `V[:, :, item]` or `V[..., item, :, :]` (a negative dim)."""
        s = node.slice.value if isinstance(node.slice, getattr(ast, "Index", ())) else node.slice
        elts = s.dims if isinstance(s, getattr(ast, "ExtSlice", ())) else s.elts if isinstance(s, ast.Tuple) else [s]
        items = [self.item(e) for e in elts]                      # ExtSlice: Python < 3.9
        if items and items[0] is Ellipsis:
            rest = items[1:]
            if not rest or any(i is not WHOLE for i in rest[1:]) or rest[0] is Ellipsis:
                self.fail("after `...` one slice or index, then only `:`", node)
            dim, item = -len(rest), rest[0]
        else:
            if any(i is not WHOLE for i in items[:-1]):
                self.fail("one slice or index per line, after `:` for the dims before it "
                          "(chain views on separate lines)", node)
            dim, item = len(items) - 1, items[-1]
        if item is Ellipsis:
            self.fail("`...` only first", node)
        return dim, (("slice", None, None, 1) if item is WHOLE else item)

    def write_sub(self, node):
        dim, item = self.sub(node)
        if item[0] != "slice":
            self.fail("a write writes a slice (`V[0:1]`), not a selected index", node)
        return dict(dim=dim, start=item[1], end=item[2], step=item[3])

    # ---- statements ---------------------------------------------------------------

    def statement(self, st):
        self.line = st.lineno
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            target = st.targets[0]
            if isinstance(target, ast.Subscript):
                return self.setitem(target, st.value)
            return self.assign(target, st.value)
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            return self.call_statement(st.value)
        self.fail("not a step of a program (a view, read, write, in-place op, index_put_ "
                  "or return per line)", st)

    def setitem(self, target, value):
        into = self.name(target.value, "view")
        spelling = "setitem"
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr == "clone" and not value.args and not value.keywords):
            spelling, value = "setitem-clone", value.func.value
        return dict(op="write", into=into, spelling=spelling, src=self.name(value),
                    **self.write_sub(target))

    def assign(self, target, value):
        if isinstance(value, ast.Subscript):
            of = self.name(value.value, "view")
            dim, item = self.sub(value)
            step = dict(op="view", name=None, of=of, kind=item[0], dim=dim)
            if item[0] == "slice":
                step.update(start=item[1], end=item[2], step=item[3])
            else:
                step.update(index=item[1])
            return self.named(target, step)
        if isinstance(value, ast.Attribute) and value.attr in ("real", "imag"):
            return self.named(target, dict(op="view", name=None, of=self.name(value.value, "view"),
                                           kind=value.attr))
        if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub, ast.Mult)):
            k = self.int_(value.right, "the constant")
            kind = "mul" if isinstance(value.op, ast.Mult) else "add"
            k = -k if isinstance(value.op, ast.Sub) else k
            return self.named(target, dict(op="read", name=None, of=self.name(value.left),
                                           kind=kind, value=k))
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
            return self.named(target, dict(op="read", name=None, of=self.name(value.operand),
                                           kind="neg"))
        if isinstance(value, ast.Call):
            return self.named(target, self.call_value(value))
        self.fail("not a view or read of the program subset", value)

    def named(self, target, step):
        step["name"] = self.new_name(target, step["op"])
        return step

    def receiver(self, call):
        """(V, method) for `V.method(...)` or `torch.method(V, ...)` (call's args then start after V)."""
        f = call.func
        if not isinstance(f, ast.Attribute):
            self.fail("a call must be a tensor method or torch.FUNCTION", call)
        if isinstance(f.value, ast.Name) and f.value.id == "torch":
            if not call.args:
                self.fail("torch.%s needs its tensor first" % f.attr, call)
            v, rest = call.args[0], call.args[1:]
            return v, f.attr, ast.Call(func=f, args=rest, keywords=call.keywords)
        return f.value, f.attr, call

    def call_value(self, call):
        v, method, call = self.receiver(call)
        views = {"permute", "transpose", "diagonal", "unfold", "as_strided", "view", "real", "imag"}
        if method not in views | {"clone", "neg", "flip", "sum", "slice_scatter"}:
            self.fail("`%s` is not a view or read of the program subset" % method, call)
        of = self.name(v, "view" if method in views else "any")
        step = dict(op="view" if method in views else "read", name=None, of=of, kind=method)
        a = call.args
        if method in ("permute", "flip") and call.keywords:
            self.fail("%s takes its dims positionally: `%s.%s(1, 0)`" % (method, of, method), call)
        if method == "permute":
            dims = self.ints(a[0], "permute's dims") if len(a) == 1 and isinstance(a[0], (ast.Tuple, ast.List)) \
                else [self.int_(e, "a dim") for e in a]
            step.update(dims=dims)
        elif method == "transpose":
            b = self.args(call, ("dim0", "dim1"), 2)
            step.update(dim0=self.int_(b["dim0"], "dim0"), dim1=self.int_(b["dim1"], "dim1"))
        elif method == "diagonal":
            b = self.args(call, ("offset", "dim1", "dim2"), 0, {"offset": 0, "dim1": 0, "dim2": 1})
            step.update((k, self.int_(b[k], k)) for k in ("offset", "dim1", "dim2"))
        elif method == "unfold":
            b = self.args(call, ("dimension", "size", "step"), 3)
            step.update(dim=self.int_(b["dimension"], "dim"), size=self.int_(b["size"], "size"),
                        step=self.int_(b["step"], "step"))
        elif method == "as_strided":
            b = self.args(call, ("size", "stride", "storage_offset"), 2)
            if "storage_offset" not in b:
                self.fail("as_strided needs its storage offset (absolute in the storage)", call)
            step.update(sizes=self.ints(b["size"], "sizes"), strides=self.ints(b["stride"], "strides"),
                        offset=self.int_(b["storage_offset"], "the offset"))
        elif method == "view":
            if len(a) != 1 or call.keywords or not any(self.is_torch(a[0], d) for d in DTYPES):
                self.fail("a view step reinterprets as a dtype: `.view(torch.int16)`", call)
            step.update(kind="dtype", dtype=a[0].attr)
        elif method in ("real", "imag", "clone", "neg"):
            if a or call.keywords:
                self.fail("%s takes no argument" % method, call)
        elif method == "flip":
            dims = self.ints(a[0], "flip's dims") if len(a) == 1 and isinstance(a[0], (ast.Tuple, ast.List)) \
                else [self.int_(e, "a dim") for e in a]
            step.update(dims=dims)
        elif method == "sum":
            b = self.args(call, ("dim", "dtype"), 1)
            if "dtype" not in b or not self.is_attr_of(b["dtype"], "dtype", of):
                self.fail("sum keeps the dtype: `torch.sum(%s, DIM, dtype=%s.dtype)`" % (of, of), call)
            step.update(dim=self.int_(b["dim"], "dim"))
        elif method == "slice_scatter":
            b = self.args(call, ("src", "dim", "start", "end", "step"), 1,
                          {"dim": 0, "start": None, "end": None, "step": 1})
            step.update(self.scatter_args(b))
        else:
            self.fail("`%s` is not a view or read of the program subset" % method, call)
        return step

    def scatter_args(self, b):
        step = self.int_(b["step"], "step")
        if step < 1:
            self.fail("a slice step must be >= 1")
        return dict(src=self.name(b["src"]), dim=self.int_(b["dim"], "dim"),
                    start=self.opt_int(b["start"], "start"), end=self.opt_int(b["end"], "end"), step=step)

    def call_statement(self, call):
        f = call.func
        if not isinstance(f, ast.Attribute):
            self.fail("a statement is a method call on a view (`V.add_(1)`)", call)
        if isinstance(f.value, ast.Subscript) and f.attr == "copy_":
            if len(call.args) != 1 or call.keywords:
                self.fail("copy_ takes one argument", call)
            return dict(op="write", into=self.name(f.value.value, "view"), spelling="copy",
                        src=self.name(call.args[0]), **self.write_sub(f.value))
        into = self.name(f.value, "view")
        if f.attr == "index_put_":
            return self.index_put(into, call)
        if f.attr not in INPLACE:
            self.fail("`%s` is not an in-place op of the program subset (%s, index_put_)"
                      % (f.attr, ", ".join(INPLACE)), call)
        step = dict(op="inplace", into=into, kind=f.attr)
        if f.attr == "zero_":
            if call.args or call.keywords:
                self.fail("zero_ takes no argument", call)
            return step
        if len(call.args) != 1 or call.keywords:
            self.fail("%s takes one argument" % f.attr, call)
        arg = call.args[0]
        if f.attr == "copy_" and isinstance(arg, ast.Call) and self.is_torch(arg.func, "slice_scatter"):
            return self.scatter_copy(into, arg)
        if f.attr == "copy_" and not isinstance(arg, ast.Name):
            step["operand"] = self.constant_tensor(arg, into)
        elif isinstance(arg, ast.Name):
            step["operand"] = self.name(arg)
        else:
            step["operand"] = self.int_(arg, "the operand")
        return step

    def scatter_copy(self, into, call):
        b = self.args(call, ("input", "src", "dim", "start", "end", "step"), 2,
                      {"dim": 0, "start": None, "end": None, "step": 1})
        first, spelling = b["input"], "scatter-copy"
        if isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) and first.func.attr == "clone" \
                and not first.args and not first.keywords:
            first, spelling = first.func.value, "clone-scatter"
        if not (isinstance(first, ast.Name) and first.id == into):
            self.fail("`%s.copy_(torch.slice_scatter(...))` scatters into %s itself (or %s.clone())"
                      % (into, into, into), call)
        return dict(op="write", into=into, spelling=spelling, **self.scatter_args(b))

    def constant_tensor(self, node, into):
        """`torch.tensor(K)`, with dtype=INTO.dtype and device=INTO.device allowed."""
        if not (isinstance(node, ast.Call) and self.is_torch(node.func, "tensor") and len(node.args) == 1):
            self.fail("a constant operand here is `torch.tensor(K, dtype=%s.dtype, device=%s.device)` "
                      "or a name" % (into, into), node)
        for k in node.keywords:
            if k.arg not in ("dtype", "device") or not self.is_attr_of(k.value, k.arg, into):
                self.fail("torch.tensor's only arguments are dtype=%s.dtype, device=%s.device"
                          % (into, into), node)
        return self.int_(node.args[0], "the constant")

    def index_put(self, into, call):
        b = self.args(call, ("indices", "values", "accumulate"), 2)
        idx = b["indices"]
        if not isinstance(idx, ast.Tuple) or not idx.elts:
            self.fail("index_put_'s indices are a tuple of index tensors `(torch.tensor([0, 2]),)`", call)
        first = idx.elts[0]
        if isinstance(first, ast.Call) and (self.is_torch(first.func, "arange") or
                                            (isinstance(first.func, ast.Attribute) and first.func.attr == "view")) \
                or isinstance(first, ast.Subscript):
            if "accumulate" in b:
                self.fail("the index-put spelling of a slice write takes no accumulate", call)
            return dict(op="write", into=into, spelling="index-put", src=self.name(b["values"]),
                        **self.arange_index(into, idx.elts))
        indices = [self.index_list(e) for e in idx.elts]
        acc = b.get("accumulate", ast.Constant(False))
        if not (isinstance(acc, ast.Constant) and type(acc.value) is bool):
            self.fail("accumulate must be True or False", call)
        values = b["values"]
        values = self.name(values) if isinstance(values, ast.Name) else self.constant_tensor(values, into)
        return dict(op="index_put", into=into, indices=indices, values=values, accumulate=acc.value)

    def index_list(self, node):
        if not (isinstance(node, ast.Call) and self.is_torch(node.func, "tensor") and len(node.args) == 1
                and isinstance(node.args[0], ast.List)):
            self.fail("an index is `torch.tensor([i, ...])`", node)
        if any(not (k.arg == "dtype" and (self.is_torch(k.value, "int64") or self.is_torch(k.value, "long")))
               for k in node.keywords):
            self.fail("an index tensor's only argument is dtype=torch.int64", node)
        return self.ints(node.args[0], "an index")

    def arange_index(self, into, elts):
        """dim/start/end/step of `(torch.arange(V.shape[0]).view(-1, 1), torch.arange(V.shape[1])[s:e:k])`."""
        d = len(elts) - 1
        for i, e in enumerate(elts):
            want = "`torch.arange(%s.shape[%d])%s`" % (
                into, i, ".view(-1%s)" % (", 1" * (d - i)) if i < d else "[START:END:STEP]")
            if i < d:
                ok = (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "view"
                      and not e.keywords and [self.int_(a, "a view size") for a in e.args] == [-1] + [1] * (d - i))
                base = e.func.value if ok else None
            else:
                ok = isinstance(e, ast.Subscript)
                base = e.value if ok else None
            ok = ok and isinstance(base, ast.Call) and self.is_torch(base.func, "arange") and len(base.args) == 1 \
                and not base.keywords and isinstance(base.args[0], ast.Subscript) \
                and self.is_attr_of(base.args[0].value, "shape", into)
            if ok:
                s = base.args[0].slice
                s = s.value if isinstance(s, getattr(ast, "Index", ())) else s
                ok = isinstance(s, ast.Constant) and s.value == i and type(s.value) is int
            if not ok:
                self.fail("index tensor %d of the index-put spelling must be %s" % (i, want), e)
        last = elts[-1]
        item = self.item(last.slice)
        if item is WHOLE:
            item = ("slice", None, None, 1)
        if not isinstance(item, tuple) or item[0] != "slice":
            self.fail("the last index tensor is sliced: `torch.arange(%s.shape[%d])[START:END:STEP]`"
                      % (into, d), last)
        return dict(dim=d, start=item[1], end=item[2], step=item[3])

    def return_(self, st):
        self.line = st.lineno
        v = st.value
        if v is None or (isinstance(v, ast.Tuple) and not v.elts):
            return None
        names = [self.name(e) for e in (v.elts if isinstance(v, ast.Tuple) else [v])]
        if len(names) > MAX_RETURN:
            self.fail("at most %d returned values" % MAX_RETURN, st)
        return dict(op="return", values=names)


def _function(tree):
    """The one `def program(x, src)` of the module (import torch lines allowed beside it)."""
    defs = []
    for st in tree.body:
        if isinstance(st, ast.FunctionDef):
            defs.append(st)
        elif not (isinstance(st, ast.Import) and [a.name for a in st.names] == ["torch"]
                  and st.names[0].asname is None):
            raise ProgramError("line %d: only `def program(x, src):` (and `import torch`) at the top level"
                               % st.lineno)
    if len(defs) != 1 or defs[0].name != "program":
        raise ProgramError("line %d: the source defines one function, `program`"
                           % (defs[1].lineno if len(defs) > 1 else defs[0].lineno if defs else 1))
    fn = defs[0]
    a = fn.args
    if [p.arg for p in a.args] != ["x", "src"] or a.vararg or a.kwarg or a.kwonlyargs or a.defaults \
            or getattr(a, "posonlyargs", None) or fn.decorator_list:
        raise ProgramError("line %d: the function is exactly `def program(x, src):`" % fn.lineno)
    return fn


def parse(source):
    """The program's steps (a list of dicts, the case format's `program`) from
    the source of `def program(x, src): ...`. ProgramError names the line."""
    if not isinstance(source, str):
        raise ProgramError("the program source must be text")
    if len(source) > MAX_SOURCE:
        raise ProgramError("the program source is %d characters; at most %d" % (len(source), MAX_SOURCE))
    try:
        with warnings.catch_warnings():          # Python's own SyntaxWarnings are noise here
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except SyntaxError as exc:
        raise ProgramError("line %s: %s" % (exc.lineno, exc.msg) if exc.lineno else
                           "the program source does not parse: %s" % exc.msg)
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ProgramError("the program source does not parse: %s" % type(exc).__name__)
    fn = _function(tree)
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]                               # a docstring
    r = _Reader(source)
    try:
        for i, st in enumerate(body):
            if isinstance(st, ast.Return):
                if i != len(body) - 1:
                    r.fail("return is the last line", st)
                step = r.return_(st)
            else:
                step = r.statement(st)
            if step is not None:
                if len(r.steps) == MAX_STEPS:
                    r.fail("more than %d steps" % MAX_STEPS, st)
                r.steps.append(step)
    except RecursionError:
        raise ProgramError("line %d: nested too deeply" % r.line)
    if not r.steps:
        raise ProgramError("line %d: a program has 1..%d steps; this one has none" % (fn.lineno, MAX_STEPS))
    return r.steps


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: ssfuzz_program.py FILE|-   (prints the program as JSON)\n")
        return 2
    path = argv[1]
    try:
        source = sys.stdin.read() if path == "-" else open(path).read()
        print(json.dumps(parse(source)))
    except (OSError, UnicodeDecodeError) as exc:
        sys.stderr.write("%s: %s\n" % (path, exc))
        return 2
    except ProgramError as exc:
        sys.stderr.write("%s: %s\n" % (path, exc))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
