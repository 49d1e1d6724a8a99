"""ss_export_prog.py - the case-independent body of a program case's exported script.

The program run in each mode as the torch worker runs it, its result compared with the
reference's as harness/core/ss_program_cmp.c compares (storages, open elements, returned
values, their storage sharing), one verdict line per run, the automatic switch, the stage.
Not a module: ss_export_prog.c emits it after the case's constants (PROGRAM_SOURCE,
EXPECTED_*, ...) and ss_export_common.py, without this docstring."""


# ---- the program's runs: each mode as the torch engine runs it (harness/engines/ss_torch_worker.py)

def storages(device):
    base = make_storage(INPUT_BYTES, device)
    return base, (None if SRC_ALIASED else make_storage(SRC_BYTES, device))


def views(base, sbase):
    # x and src as the worker builds them: the case's views, src on x's storage when aliased
    x = base.as_strided(INPUT_VIEW['size'], INPUT_VIEW['stride'], INPUT_VIEW['storage_offset'])
    src = (base if sbase is None else sbase).as_strided(SRC_VIEW['size'], SRC_VIEW['stride'],
                                                         SRC_VIEW['storage_offset'])
    return x, src


def storage_id(t):
    # the storage itself (a view of an empty storage has no byte range to overlap)
    s = t.untyped_storage() if hasattr(t, 'untyped_storage') else t.storage().untyped()
    return s._cdata


def shares_of(d, r, st, sst):
    # bit 0: shares x's storage, bit 1: src's, as the worker reports it (storage identity
    # by byte range and by the storage object, or-ed with what a write through it changed)
    bits = {'input': 1, 'src': 2}
    shares = bits.get(d['aliases'], 0)
    for name in (d['write_through'] or 'none').split('+'):
        shares |= bits.get(name, 0)
    if storage_id(r) == storage_id(st):
        shares |= 1
    if sst is not None and storage_id(r) == storage_id(sst):
        shares |= 2
    return shares


Got = collections.namedtuple('Got', 'input src returns')
Run = collections.namedtuple('Run', 'label kind backend dynamic automatic device')


def runs_for(modes, devices):
    out, notes = [], []
    can_compile = hasattr(torch, 'compile')
    if not can_compile and any(m != 'eager' for m in modes):
        notes.append('torch.compile: not available (torch %s has no torch.compile)' % torch.__version__)
    for d in devices:
        for m in modes:
            if m == 'eager':
                out.append(Run('eager on %s' % d, 'eager', None, None, False, d))
                continue
            if not can_compile:
                continue
            backend, dynamic = BACKENDS[m]
            how = '' if backend == 'inductor' else 'backend=%r, ' % backend
            out.append(Run('torch.compile(%sdynamic=%s) on %s' % (how, dynamic, d), m, backend, dynamic, False, d))
            if m == 'compile-dynamic':
                out.append(Run('torch.compile, automatic switch on %s' % d, 'automatic', backend, None, True, d))
    return out, notes


def dense(shape, like, device, start):
    # a fresh tensor of `shape` laid out in the order of `like`'s strides,
    # holding start, start + 1, ... (wrapping at 100; alternating for bool)
    order = sorted(range(len(shape)), key=lambda d: (-like[d], d)) if len(like) == len(shape) else list(range(len(shape)))
    n = 1
    for s in shape:
        n *= s
    vals = torch.arange(start, start + n) % (2 if DTYPE == torch.bool else 100)
    t = vals.to(DTYPE).to(device).view([shape[d] for d in order])
    return t.permute([order.index(d) for d in range(len(shape))])


def grown(shape, k, only=None):
    return [s + k if s >= 2 and (only is None or i == only) else s for i, s in enumerate(shape)]


def size_pairs(xs, ss):
    # candidates for the automatic switch, in order: every dim of size >= 2 of x and of
    # src grown by 1..4, x's alone, src's alone, one dim at a time, then shrunk by 1
    # (sizes stay >= 2: dynamo specializes sizes 0 and 1)
    out = []
    for k in (1, 2, 3, 4, -1):
        out += [(grown(xs, k), grown(ss, k)), (grown(xs, k), ss), (xs, grown(ss, k))]
        for d in range(len(xs)):
            out.append((grown(xs, k, d), grown(ss, k, d) if len(ss) == len(xs) else ss))
            out.append((grown(xs, k, d), ss))
    seen, uniq = {(tuple(xs), tuple(ss))}, []
    for a, b in out:
        if min(a + b, default=2) >= 1 and (tuple(a), tuple(b)) not in seen:
            seen.add((tuple(a), tuple(b)))
            uniq.append((a, b))
    return uniq[:64]


def other_size(device):
    # (x, src) of other sizes the uncompiled program accepts, and their description; or (None, why)
    x, src = views(*storages(device))
    tried = 0
    for xs, ss in size_pairs(list(x.shape), list(src.shape)):
        tried += 1
        cand = (dense(xs, list(x.stride()), device, 0), dense(ss, list(src.stride()), device, 7))
        try:
            SHARED.run(torch, SHARED.build(torch, PROGRAM_SOURCE), *[a.clone() for a in cand])
        except Exception:
            continue
        return cand, 'x of shape %s, src of shape %s' % (xs, ss)
    return None, 'no other size of x and src that the program accepts (%d tried)' % tried


FIRST_CALL = {}  # the automatic switch's first inputs' shapes, by device


def execute(r, backend=None):
    # (Got, None, note) or (None, exception, note); note: the automatic switch's first size.
    # A fresh function per run: dynamo caches by code object.
    fn = SHARED.build(torch, PROGRAM_SOURCE)
    note = None
    try:
        if r.kind != 'eager':
            torch._dynamo.reset()
            fn = torch.compile(fn, backend=backend or r.backend, dynamic=r.dynamic, fullgraph=True)
            if r.automatic:
                first, note = other_size(r.device)
                if first is None:
                    return None, None, note
                FIRST_CALL[r.device] = [list(a.shape) for a in first]
                fn(*first)
                note = 'first called on ' + note
        base, sbase = storages(r.device)
        x, src = views(base, sbase)
        returned = SHARED.run(torch, fn, x, src)
        if r.device == 'cuda':
            torch.cuda.synchronize()
        described = SHARED.describe_returns(torch, returned, base, sbase)
        rets = [dict(d, shares=shares_of(d, t, base, sbase)) for d, t in zip(described, returned)]
        got = Got(raw_bytes(base), None if sbase is None else raw_bytes(sbase), rets)
    except Exception as e:
        return None, e, note
    return got, None, note


# ---- the comparison: harness/core/ss_program_cmp.c, mirrored

def open_at(storage, byte, n):
    return [o for o in OPEN if o['storage'] == storage and o['byte'] < byte + n and byte < o['byte'] + o['size']]


def allowed(storage, byte, n, want, got):
    # got may be the element at [byte, byte + n): the expected bytes, except where an
    # open element accepts any of its values
    if want == got:
        return True
    covered = [False] * n
    for o in open_at(storage, byte, n):
        lo, hi = max(byte, o['byte']), min(byte + n, o['byte'] + o['size'])
        if not any(v[lo - o['byte']:hi - o['byte']] == got[lo - byte:hi - byte] for v in o['values']):
            return False
        for b in range(lo - byte, hi - byte):
            covered[b] = True
    return all(covered[b] or want[b] == got[b] for b in range(n))


def n_allowed(storage, byte, n):
    hits = open_at(storage, byte, n)
    return len(hits[0]['values']) if hits else 1


def elem_size(dtype):
    return torch.empty(0, dtype=dtype).element_size()


def unravel(shape, q):
    idx = []
    for s in reversed(shape):
        idx.append(q % max(s, 1))
        q //= max(s, 1)
    return idx[::-1]


def brackets(idx):
    return '[%s]' % ', '.join(str(i) for i in idx) if idx else ''


SHARE_WORDS = {0: 'no input storage (a fresh tensor)', 1: "x's storage", 2: "src's storage", 3: "x's and src's storage"}


class Diff:
    # the first difference in words, whether it is an element's, and how many there are
    def __init__(self):
        self.first, self.element, self.count = None, False, 0

    def add(self, text, element=False):
        self.count += 1
        if self.first is None:
            self.first, self.element = text, element


def diff_storage(d, which, want, got):
    for i in range(0, len(want), ELEM_SIZE):
        if allowed(which, i, ELEM_SIZE, want[i:i + ELEM_SIZE], got[i:i + ELEM_SIZE]):
            continue
        text = None
        if d.first is None:
            k = i // ELEM_SIZE
            li = logical_index(k) if which == 'input' else None
            extra = n_allowed(which, i, ELEM_SIZE)
            text = '%s storage[%d]%s: expected %s%s, got %s' % (
                which, k, ' (x%s)' % brackets(li) if li else '', value(want[i:i + ELEM_SIZE], DTYPE),
                ' (or one of %d allowed values)' % extra if extra > 1 else '', value(got[i:i + ELEM_SIZE], DTYPE))
        d.add(text, True)


def must_share(ev):
    if not ev['view']:
        return 0
    if SRC_ALIASED:
        return 3
    return 1 if ev['storage'] == 'input' else 2


def diff_value(d, i, ev, av):
    name = 'returned value %d (%s)' % (i, ev['name'])
    dtype = getattr(torch, ev['dtype'])
    if av['dtype'] != ev['dtype']:
        d.add('%s has another dtype than %s' % (name, ev['dtype']))
        return
    es = elem_size(dtype)
    if list(av['shape']) != list(ev['shape']) or len(av['bytes']) != len(ev['values']):
        d.add('%s has another shape or size than expected' % name)
        return
    want = must_share(ev)
    ok = ((av['shares'] & want) == want or (SRC_ALIASED and av['shares'])) if want else av['shares'] == 0
    if not ok:
        d.add('%s shares %s but must share %s' % (name, SHARE_WORDS[av['shares'] & 3], SHARE_WORDS[want]))
    n = len(ev['values']) // es
    for q, off in enumerate(view_offsets(ev) if ev['view'] else range(n)):
        e, a = ev['values'][q * es:(q + 1) * es], av['bytes'][q * es:(q + 1) * es]
        good = allowed(ev['storage'], off * es, es, e, a) if ev['view'] else e == a
        if good:
            continue
        text = None
        if d.first is None:
            extra = n_allowed(ev['storage'], off * es, es) if ev['view'] else 1
            text = '%s%s: expected %s%s, got %s' % (
                name, brackets(unravel(ev['shape'], q)), value(e, dtype),
                ' (or one of %d allowed values)' % extra if extra > 1 else '', value(a, dtype))
        d.add(text, True)


def view_offsets(ev):
    # a returned view's elements in order, as element offsets in its storage
    for idx in itertools.product(*[range(s) for s in ev['shape']]):
        yield ev['offset'] + sum(i * st for i, st in zip(idx, ev['stride']))


def compare(got):
    # the first difference in words and the count, or (None, 0)
    d = Diff()
    diff_storage(d, 'input', EXPECTED_INPUT, got.input)
    if not SRC_ALIASED:
        diff_storage(d, 'src', EXPECTED_SRC, got.src)
    if len(got.returns) != len(RETURNS):
        d.add('returned %d values, expected %d' % (len(got.returns), len(RETURNS)))
    else:
        for i, (ev, av) in enumerate(zip(RETURNS, got.returns)):
            diff_value(d, i, ev, av)
    if d.first is None:
        return None, 0
    if not d.element:  # an alias fact, a dtype, a shape or the count: said as the harness says it
        return d.first, d.count
    return '%s; %d element%s differ%s' % (d.first, d.count, '' if d.count == 1 else 's', 's' if d.count == 1 else ''), d.count


# ---- verdicts

def eager_error(r):
    # what eager says of the same program: None when it runs
    got, err, _ = execute(r._replace(kind='eager', automatic=False))
    return err


def verdict(r, got, err):
    # (exit code, word, line) for one run; compiled exceptions judged as the worker does
    if err is not None:
        if r.kind == 'eager':
            if SHARED.is_refusal(err):
                return EXIT_REFUSED, 'refused', 'REFUSED (overlap check): %s' % one_line(err)
            return EXIT_ERROR, 'error', 'ERROR: %s' % one_line(err)
        e2 = eager_error(r)
        if e2 is None:
            return EXIT_DIFFER, 'raised', 'RAISED: compiled raises %s; eager runs it' % one_line(err)
        if SHARED.is_refusal(err) and SHARED.is_refusal(e2):
            return EXIT_REFUSED, 'refused', 'REFUSED (overlap check), eager too: %s' % one_line(err)
        t1, t2 = ' '.join(str(err).split()), ' '.join(str(e2).split())
        if (type(err) is type(e2) and str(err) == str(e2)) or (t2 and t2 in t1):
            return EXIT_ERROR, 'error', 'ERROR: compiled and eager raise the same: %s' % one_line(e2)
        return EXIT_DIFFER, 'raised', 'RAISED: compiled raises %s; eager raises %s' % (one_line(err), one_line(e2))
    if EXPECTED_STATUS == 'refused':
        return EXIT_AGREE, 'agree', ('agree: ran; the reference refuses program[%d] (%s), as PyTorch documents: '
                                     'nothing past it to compare' % (REFUSED_STEP, REFUSED_WHY))
    d, _ = compare(got)
    if d is None:
        return EXIT_AGREE, 'agree', 'agree: final storages, %d returned value%s and their storage sharing' % (
            len(RETURNS), '' if len(RETURNS) == 1 else 's')
    return EXIT_DIFFER, 'differ', 'DIFFER: ' + d


def stage(r):
    # the first stage that is wrong: eager itself (no compile: the compiled run only
    # inherits it), else reruns under the backends that stop earlier. Eager right or
    # raising (its overlap refusal), the backends decide.
    eager = r._replace(kind='eager', automatic=False)
    got, err, _ = execute(eager)
    if err is None and verdict(eager, got, err)[0] != EXIT_AGREE:
        return 'eager', ['no compile wrong too']
    seen = []
    for backend, name in STAGES:
        if backend == r.backend:
            return name, seen
        got, err, _ = execute(r, backend)
        code = verdict(r._replace(backend=backend), got, err)[0]
        seen.append('%s %s' % (backend, 'agrees' if code == EXIT_AGREE else 'wrong' if err is None else 'raises'))
        if code != EXIT_AGREE:
            return name, seen
    return 'inductor', seen


# ---- output

def returns_doc(rets):
    return [{'dtype': a['dtype'], 'shape': list(a['shape']), 'bytes': a['bytes'].hex(), 'shares': a.get('shares')}
            for a in rets]


def main():
    ap = argparse.ArgumentParser(description='Reproduce an ssfuzz program case with PyTorch.')
    ap.add_argument('--mode', default=MODE, help='%s, all (comma-separated)' % ', '.join(MODES))
    ap.add_argument('--device', default=DEVICE, choices=['cpu', 'cuda', 'all'])
    ap.add_argument('--stage', action='store_true', help='for a wrong compiled run, the first wrong stage')
    ap.add_argument('--expected-out', help='write the expected result (hex) as JSON')
    ap.add_argument('--actual-out', help='write every run\'s result (hex) and verdict as JSON')
    args = ap.parse_args()
    modes = words(ap, args.mode, MODES, 'mode', ALL_MODES)
    devices = ['cpu'] + (['cuda'] if torch.cuda.is_available() else []) if args.device == 'all' else [args.device]
    if args.expected_out:
        write_json(args.expected_out, {'status': EXPECTED_STATUS, 'refused_step': REFUSED_STEP,
                                       'input': hexs(EXPECTED_INPUT), 'src': hexs(EXPECTED_SRC),
                                       'returns': [{'name': r['name'], 'dtype': r['dtype'], 'shape': list(r['shape']),
                                                    'view': r['view'], 'bytes': r['values'].hex()} for r in RETURNS]})
    body = [line.strip() for line in PROGRAM_SOURCE.splitlines()[1:] if line.strip()]
    print('%s: program (%s): %s' % (TAG, SPELLING, '; '.join(body)))
    if EXPECTED_STATUS == 'refused':
        print('%s: expected: PyTorch refuses program[%d] (%s)' % (TAG, REFUSED_STEP, REFUSED_WHY))
    if INEXACT is not None:
        print('%s: note: %s: a compiler may round such values otherwise' % (TAG, INEXACT))
    runs, notes = runs_for(modes, devices)
    for n in notes:
        print('%s: %s' % (TAG, n))
    if any(r.kind != 'eager' for r in runs):
        configure_dynamo()
    worst, actual = EXIT_AGREE, []
    for r in runs:
        got, err, note = execute(r)
        entry = {'mode': r.label, 'kind': r.kind, 'backend': r.backend, 'form': None, 'device': r.device}
        if got is None and err is None:  # the automatic switch without another size
            print('%s: %s: automatic switch: not tried (%s)' % (TAG, r.label, note))
            actual.append(dict(entry, verdict='not-tried', note=note))
            continue
        code, word, line = verdict(r, got, err)
        label = r.label + (' (%s)' % note if note else '')
        print('%s: %s: %s' % (TAG, label, line))
        worst = max(worst, code, key=WORST.get)
        entry.update({'verdict': word, 'line': line, 'note': note, 'rejected': got is None,
                      'error': None if err is None else one_line(err),
                      'input': hexs(got and got.input), 'src': hexs(got.src if got else None),
                      'returns': returns_doc(got.returns) if got else None})
        if r.automatic:
            entry['first_call_shapes'] = FIRST_CALL.get(r.device)
        if args.stage and r.kind != 'eager' and word in ('differ', 'raised'):
            entry['stage'], seen = stage(r)
            entry['stage_seen'] = seen
            print('%s: %s: first wrong stage: %s (%s)' % (TAG, label, entry['stage'], ', '.join(seen) or
                                                          'the first backend'))
        actual.append(entry)
    return finish(args, runs, worst, SPELLING, actual, notes)


if __name__ == '__main__':
    sys.exit(main())
