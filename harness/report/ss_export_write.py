"""ss_export_write.py - the case-independent body of a single write's exported script.

`ssfuzz export --torch` of a write case: the torch engine's forms and modes mirrored, one
verdict per run, the automatic switch's second size, the first wrong compile stage. Not a
module: ss_export_script.c emits it after the case's constants, its function per spelling
and ss_export_common.py, without this docstring."""


SPELLINGS = {'setitem': setitem, 'setitem-clone': setitem_clone, 'copy': copy, 'scatter-copy': scatter_copy,
             'scatter-return': scatter_return, 'clone-scatter': clone_scatter, 'index-put': index_put}
FORMS = ('x-input', 'storage-input', 'two-inputs', 'user', 'user-two-inputs')
USER_FORMS = ('user', 'user-two-inputs')  # user code, not the engine's forms


def storages(device):
    base = make_storage(INPUT_BYTES, device)
    return base, (base if SRC_ALIASED else make_storage(SRC_BYTES, device))


def expected():
    # Snapshot semantics: read everything, scatter functionally, then write back
    # the written slice only: elements outside it stay byte for byte.
    base, sbase = storages('cpu')
    inp = torch.as_strided(base, **INPUT_VIEW)
    src = torch.as_strided(sbase, **SRC_VIEW)
    out = torch.slice_scatter(inp.clone(), src.clone(), dim=DIM, start=START, end=END, step=STEP)
    sl = (slice(None),) * (DIM % inp.dim()) + (slice(START, END, STEP),)
    inp[sl] = out[sl]
    return raw_bytes(base), None if SRC_ALIASED else raw_bytes(sbase)


# ---- the torch engine's forms: spec_of, make_program and inputs_for of
# harness/engines/ss_torch_program.py (SHARED), as the torch worker runs them

def view_tuple(v):
    return v['storage_offset'], tuple(v['size']), tuple(v['stride'])


IN_VIEW, SRC_VIEW_T = view_tuple(INPUT_VIEW), view_tuple(SRC_VIEW)


def write_spec(form, spelling):
    # form '' is eager's: x and src, two views (eager targets have no forms)
    return SHARED.spec_of(None, spelling, form, SRC_ALIASED, DIM, START, END, STEP, IN_VIEW, SRC_VIEW_T)


# ---- one run: a form, a spelling and how it is compiled

def program_for(form, spelling):
    # (function, inputs(storage, src storage) -> args, finish(storage, args, out))
    if form in USER_FORMS:
        # the case's line as user code (the --issue repro): x is the whole storage as X_SHAPE;
        # user-two-inputs passes the input view and src, indexed from it, as two arguments
        two = form == 'user-two-inputs'

        def args(st, sst):
            a = (st.view(X_SHAPE), None if SRC_ALIASED else sst.view(Y_SHAPE))
            return user_views(*a) if two else a

        def finish(st, a, out):
            if spelling == 'scatter-return' and two:
                a[0].copy_(out)  # outside the compiled region
            elif spelling == 'scatter-return':
                finish_scatter_return(a[0], a[1], out)
        return (TWO_INPUT_SPELLINGS if two else SPELLINGS)[spelling], args, finish
    p = write_spec(form, spelling)

    def inputs(st, sst):
        return SHARED.inputs_for(p, st, sst, IN_VIEW, SRC_VIEW_T)

    def finish(st, a, out):
        if len(out) == 2:  # scatter-return: y written back outside
            st.as_strided(IN_VIEW[1], IN_VIEW[2], IN_VIEW[0]).copy_(out[1])
    return SHARED.make_program(torch, p), inputs, finish


def dense(shape, like, dtype, device, start):
    # a fresh tensor of `shape` laid out in the order of `like`'s strides,
    # holding start, start + 1, ... (wrapping in dtype; alternating for bool)
    order = sorted(range(len(shape)), key=lambda d: (-like[d], d)) if like else list(range(len(shape)))
    n = 1
    for s in shape:
        n *= s
    vals = torch.arange(start, start + n) % 2 if dtype == torch.bool else torch.arange(start, start + n) % 100
    t = vals.to(dtype).to(device).view([shape[d] for d in order])
    return t.permute([order.index(d) for d in range(len(shape))])


def other_shapes(shape):
    # candidates for the automatic switch, in order: every dim of size >= 2 grown
    # by 1..4, one dim grown by 1..4, then shrunk by 1..2 (sizes stay >= 2: dynamo
    # specializes sizes 0 and 1)
    out = []
    for k in (1, 2, 3, 4):
        out.append([s + k if s >= 2 else s for s in shape])
    for k in (1, 2, 3, 4, -1, -2):
        for d in range(len(shape)):
            if shape[d] >= 2 and shape[d] + k >= 2:
                out.append([s + k if i == d else s for i, s in enumerate(shape)])
    seen, uniq = set(), []
    for s in out:
        if tuple(s) != tuple(shape) and tuple(s) not in seen:
            seen.add(tuple(s))
            uniq.append(s)
    return uniq


def other_size(form, spelling, device):
    # (inputs, description) of another valid size of the same program, or (None, why)
    fn, args, _ = program_for(form, spelling)
    st, sst = storages(device)
    case_args = args(st, sst)
    if form == 'storage-input':
        if st.numel() == 0:
            return None, 'the input storage is empty'
        grown = (torch.cat([st, st]), None if sst is None else torch.cat([sst, sst]) if sst.numel() else sst)
        return grown, 'storages twice as long (%d elements)' % grown[0].numel()
    x, src = case_args[0], (case_args[1] if len(case_args) > 1 else None)
    # src of the two-input user form is the written slice, as in the engine's two-inputs
    p = None if form == 'user' else write_spec('two-inputs' if form in USER_FORMS else form, spelling)
    tried = 0
    for shape in other_shapes(list(x.shape)):
        tried += 1
        x2 = dense(shape, list(x.stride()), DTYPE, device, 0)
        if src is None:
            cand = (x2, None) if form == 'user' else (x2,)
        else:
            if p is not None:  # src has the written slice's shape
                want = list(x2[(slice(None),) * p.dim + (slice(START, END, STEP),)].shape)
            elif src.dim() == x.dim():  # user code: y resized as x is, dim by dim
                want = [n + a - b for n, a, b in zip(src.shape, shape, x.shape)]
            else:
                want = list(src.shape)
            if min(want, default=1) <= 0:
                continue
            cand = (x2, dense(want, list(src.stride()), DTYPE, device, 7))
        try:
            fn(*[a.clone() if a is not None else None for a in cand])
        except Exception as e:
            if not SHARED.is_refusal(e):
                continue
        return cand, 'x of shape %s' % list(shape)
    return None, 'no other size of x that the program accepts (%d shapes tried)' % tried


Run = collections.namedtuple('Run', 'label kind form device compiled dynamic automatic backend')


def runs_for(modes, forms, devices):
    out, notes = [], []
    can_compile = hasattr(torch, 'compile')
    if not can_compile and any(m != 'eager' for m in modes):
        notes.append('torch.compile: not available (torch %s has no torch.compile)' % torch.__version__)
    for d in devices:
        if 'eager' in modes:
            for f in sorted(set(f if f in USER_FORMS else '' for f in forms)):
                out.append(Run('eager on %s%s' % (d, ', ' + f if f else ''), 'eager', f, d, False, None, False,
                               None))
        if not can_compile:
            continue
        for f in forms:
            for m in MODES[1:]:  # in this order, whatever the order asked for
                if m not in modes:
                    continue
                backend, dynamic = BACKENDS[m]
                how = '' if backend == 'inductor' else 'backend=%r, ' % backend
                out.append(Run('torch.compile(%sdynamic=%s) on %s, %s' % (how, dynamic, d, f), m, f, d, True,
                               dynamic, False, backend))
                if m == 'compile-dynamic':
                    out.append(Run('torch.compile, automatic switch on %s, %s' % (d, f), 'automatic', f, d, True,
                                   None, True, backend))
    return out, notes


FIRST_CALL = {}  # the automatic switch's first inputs' shapes, by form


def run(r, spelling, backend=None):
    # (final storages, None, note) or (None, exception, note); note: the automatic switch's first size
    fn, args, finish = program_for(r.form, spelling)
    note = None
    try:
        if r.compiled:
            torch._dynamo.reset()
            fn = torch.compile(fn, backend=backend or r.backend, dynamic=r.dynamic, fullgraph=True)
            if r.automatic:
                first, note = other_size(r.form, spelling, r.device)
                if first is None:
                    return None, None, note
                FIRST_CALL[r.form] = [None if a is None else list(a.shape) for a in first]
                fn(*first)
                note = 'first called on ' + note
        base, sbase = storages(r.device)
        a = args(base, sbase)
        out = fn(*a)
        finish(base, a, out)
        if r.device == 'cuda':
            torch.cuda.synchronize()
    except Exception as e:
        return None, e, note
    return (raw_bytes(base), None if SRC_ALIASED else raw_bytes(sbase)), None, note


def nan_pair(a, b):
    # both elements NaN in every component whose bits differ: a quieted signalling
    # NaN or a changed payload (ssfuzz's nan-payload verdict), not a wrong value
    if not (DTYPE.is_floating_point or DTYPE.is_complex):
        return False
    comp = {torch.complex64: torch.float32, torch.complex128: torch.float64}.get(DTYPE, DTYPE)
    parts = 2 if DTYPE.is_complex else 1
    w = len(a) // parts
    for k in range(parts):
        x, y = a[k * w:(k + 1) * w], b[k * w:(k + 1) * w]
        if x == y:
            continue
        fx = torch.frombuffer(bytearray(x), dtype=torch.uint8).view(comp)[0].item()
        fy = torch.frombuffer(bytearray(y), dtype=torch.uint8).view(comp)[0].item()
        if fx == fx or fy == fy:
            return False
    return True


def first_difference(want, got):
    # (the first wrong value in words, or None; how many elements differ only in NaN bits)
    nans = 0
    for which, w, g in (('input', want[0], got[0]), ('src', want[1], got[1])):
        if w is None or w == g:
            continue
        diff = [i for i in range(0, len(w), ELEM_SIZE) if w[i:i + ELEM_SIZE] != g[i:i + ELEM_SIZE]]
        wrong = [i for i in diff if not nan_pair(w[i:i + ELEM_SIZE], g[i:i + ELEM_SIZE])]
        nans += len(diff) - len(wrong)
        if not wrong:
            continue
        k = wrong[0] // ELEM_SIZE
        elem = lambda b: value(b[k * ELEM_SIZE:(k + 1) * ELEM_SIZE], DTYPE)
        where = ''
        if which == 'input':
            li = logical_index(k)
            where = ' (input index %s)' % li if li is not None else ' (outside the input view)'
        return '%s storage[%d]%s: expected %s, got %s; %d element%s differ%s' % (
            which, k, where, elem(w), elem(g), len(diff), '' if len(diff) == 1 else 's', '' if len(diff) != 1 else 's'), nans
    return None, nans


def eager_raises(r, spelling):
    # what eager says of the same program in the same form: None when it runs
    got, err, _ = run(r._replace(compiled=False, automatic=False), spelling)
    return err


def verdict(r, spelling, got, err, want):
    # (exit code, word, line) for one run; compiled exceptions judged as the worker does
    if err is not None:
        if INVALID and SHARED.is_refusal(err):
            return EXIT_AGREE, 'agree', 'agree: rejects the invalid case, as ssfuzz does (%s)' % one_line(err)
        if not r.compiled:
            if SHARED.is_refusal(err):
                return EXIT_REFUSED, 'refused', 'REFUSED (overlap check): %s' % one_line(err)
            return EXIT_ERROR, 'error', 'ERROR: %s' % one_line(err)
        e2 = eager_raises(r, spelling)
        if e2 is None:
            return EXIT_DIFFER, 'raised', 'RAISED: compiled raises %s; eager runs it' % one_line(err)
        if SHARED.is_refusal(err) and SHARED.is_refusal(e2):
            return EXIT_REFUSED, 'refused', 'REFUSED (overlap check), eager too: %s' % one_line(err)
        return EXIT_ERROR, 'error', 'ERROR: %s (eager: %s)' % (one_line(err), one_line(e2))
    if INVALID:
        return EXIT_DIFFER, 'differ', ('ACCEPTED-INVALID: ran a case whose input view has internal overlap '
                                       '(ssfuzz rejects it; there is no expectation to compare)')
    d, nans = first_difference(want, got)
    if d is None and nans:
        return EXIT_AGREE, 'nan-payload', ('NAN-PAYLOAD: %d element%s differ only in NaN bits (quiet bit or payload; '
                                           'not a wrong value, as ssfuzz counts it)' % (nans, '' if nans == 1 else 's'))
    if d is None:
        return EXIT_AGREE, 'agree', 'agree: final storages identical, %d bytes' % (len(want[0]) + len(want[1] or b''))
    return EXIT_DIFFER, 'differ', 'DIFFER: ' + d


def stage(r, spelling, want):
    # the first stage that is wrong: eager itself (no compile: the compiled run only
    # inherits it), dynamo (backend eager), aot (aot_eager: functionalization), else
    # inductor; a run under one of those backends stops at its own. Eager right or
    # raising (its overlap refusal), the backends decide.
    got, err, _ = run(r._replace(compiled=False, automatic=False), spelling)
    if err is None and first_difference(want, got)[0] is not None:
        return 'eager', ['no compile wrong too']
    seen = []
    for backend, name in STAGES:
        if backend == r.backend:
            return name, seen
        got, err, _ = run(r, spelling, backend)
        ok = err is None and not INVALID and first_difference(want, got)[0] is None
        seen.append('%s %s' % (backend, 'agrees' if ok else 'wrong' if err is None else 'raises'))
        if not ok:
            return name, seen
    return 'inductor', seen


def main():
    ap = argparse.ArgumentParser(description='Reproduce an ssfuzz case with PyTorch.')
    ap.add_argument('--mode', default=MODE, help='%s, all (comma-separated)' % ', '.join(MODES))
    ap.add_argument('--form', default=FORM, help='%s, all (comma-separated)' % ', '.join(FORMS))
    ap.add_argument('--device', default=DEVICE, choices=['cpu', 'cuda', 'all'])
    ap.add_argument('--spelling', choices=sorted(SPELLINGS), default=SPELLING)
    ap.add_argument('--stage', action='store_true', help='for a wrong compiled run, the first wrong stage')
    ap.add_argument('--expected-out', help='write the expected final storages (hex) as JSON')
    ap.add_argument('--actual-out', help='write every run\'s final storages (hex) and verdict as JSON')
    args = ap.parse_args()
    modes = words(ap, args.mode, MODES, 'mode', ALL_MODES)
    forms = words(ap, args.form, FORMS, 'form')
    devices = ['cpu'] + (['cuda'] if torch.cuda.is_available() else []) if args.device == 'all' else [args.device]
    want, why = None, None
    if not INVALID:
        try:
            want = expected()
        except Exception as e:
            why = one_line(e)
    if args.expected_out:
        write_json(args.expected_out, {'rejected': want is None, 'input': hexs(want and want[0]),
                                       'src': hexs(want[1] if want else None)})
    print('%s: program (%s): %s' % (TAG, args.spelling, PROGRAMS[args.spelling]))
    if why is not None:
        print('%s: ERROR: could not compute the expected result: %s' % (TAG, why))
        return EXIT_ERROR
    runs, notes = runs_for(modes, forms, devices)
    for n in notes:
        print('%s: %s' % (TAG, n))
    if any(r.compiled for r in runs):
        configure_dynamo()
    worst, actual = EXIT_AGREE, []
    for r in runs:
        got, err, note = run(r, args.spelling)
        entry = {'mode': r.label, 'kind': r.kind, 'backend': r.backend, 'form': r.form or None, 'device': r.device}
        if got is None and err is None:  # the automatic switch without another size
            print('%s: %s: automatic switch: not tried (%s)' % (TAG, r.label, note))
            actual.append(dict(entry, verdict='not-tried', note=note))
            continue
        code, word, line = verdict(r, args.spelling, got, err, want)
        label = r.label + (' (%s)' % note if note else '')
        print('%s: %s: %s' % (TAG, label, line))
        worst = max(worst, code, key=WORST.get)
        entry.update({'verdict': word, 'note': note, 'rejected': got is None,
                      'error': None if err is None else one_line(err),
                      'input': hexs(got and got[0]), 'src': hexs(got[1] if got else None)})
        if r.automatic:
            entry['first_call_shapes'] = FIRST_CALL.get(r.form)
        if args.stage and r.compiled and word in ('differ', 'raised') and not INVALID:
            entry['stage'], seen = stage(r, args.spelling, want)
            entry['stage_seen'] = seen
            print('%s: %s: first wrong stage: %s (%s)' % (TAG, label, entry['stage'], ', '.join(seen) or
                                                          'the first backend'))
        actual.append(entry)
    return finish(args, runs, worst, args.spelling, actual, notes)


if __name__ == '__main__':
    sys.exit(main())
