"""ss_export_common.py - the Python both kinds of exported script (a single write, a program) share.

The exit codes, the shared module (SHARED), storages from bytes, result
bytes, one-line errors, dynamo's configuration, the atomic JSON write, the exit. Not a module:
ss_export_script.c and ss_export_prog.c emit it after a case's constants (DTYPE, INPUT_VIEW,
...) and before their own body, without this docstring; tests/cli/test_python_sources.sh
lints it inside exported scripts."""

EXIT_AGREE, EXIT_DIFFER, EXIT_ERROR, EXIT_REFUSED = 0, 1, 2, 3
WORST = {EXIT_AGREE: 0, EXIT_REFUSED: 1, EXIT_ERROR: 2, EXIT_DIFFER: 3}
TAG = 'ssfuzz-export'


def load_shared():
    # harness/engines/ss_torch_program.py (SHARED_SOURCE), the module the torch worker loads
    # too: one list of PyTorch's overlap refusals, one way to describe returned values, one write's
    # spellings; its lines go to linecache, so a traceback through it shows them
    import linecache
    linecache.cache['ss_torch_program.py'] = (len(SHARED_SOURCE), None, SHARED_SOURCE.splitlines(True),
                                              'ss_torch_program.py')
    module = types.ModuleType('ss_torch_program')
    exec(compile(SHARED_SOURCE, 'ss_torch_program.py', 'exec'), module.__dict__)
    module.STAGES = STAGES
    return module


SHARED = load_shared()


def value(b, dtype):
    # "9.0 (0x41100000)": the element as Python prints it, next to its bits
    v = torch.frombuffer(bytearray(b), dtype=torch.uint8).view(dtype)[0].item()
    return '%r (0x%s)' % (v, b[::-1].hex())


def logical_index(k):
    # the x index that lands on storage element k, if any (searched, so any layout works)
    size, stride, off = INPUT_VIEW['size'], INPUT_VIEW['stride'], INPUT_VIEW['storage_offset']
    n = 1
    for s in size:
        n *= s
    if n > 1 << 20:
        return None
    for idx in itertools.product(*[range(s) for s in size]):
        if off + sum(i * st for i, st in zip(idx, stride)) == k:
            return list(idx)
    return None


def words(ap, text, choices, what, every=None):
    # a comma-separated --mode/--form value: known words, each once, `all` for `every`
    out = []
    for w in text.split(','):
        w = w.strip()
        if w == 'all':
            out += [c for c in every or choices if c not in out]
        elif w in choices:
            out += [] if w in out else [w]
        else:
            ap.error('--%s: unknown %s %r (%s, all)' % (what, what, w, ', '.join(choices)))
    return out


def make_storage(raw, device):
    t = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
    return t.view(DTYPE).to(device)


def raw_bytes(t):
    t = t.detach().cpu().contiguous().view(torch.uint8)
    try:
        return t.numpy().tobytes()
    except Exception:  # no numpy
        return bytes(t.tolist())


def one_line(e):
    # the whole message on one line, never cut
    return '%s: %s' % (type(e).__name__, ' '.join(str(e).split()))


def configure_dynamo():
    # as the torch worker: a compiled run never falls back to eager after recompiles
    import torch._dynamo as dynamo
    for name in ('cache_size_limit', 'recompile_limit', 'accumulated_cache_size_limit',
                 'accumulated_recompile_limit'):
        if hasattr(dynamo.config, name):
            setattr(dynamo.config, name, 1 << 30)
    if hasattr(dynamo.config, 'suppress_errors'):
        dynamo.config.suppress_errors = False


def finish(args, runs, worst, spelling, actual, notes):
    # the script's exit: worst over the runs, an error when none ran; --actual-out gets every run
    if not runs:
        print('%s: ERROR: no mode to run (--mode %s)' % (TAG, args.mode))
        worst = EXIT_ERROR
    if args.actual_out:
        write_json(args.actual_out, {'spelling': spelling, 'torch': torch.__version__, 'runs': actual, 'notes': notes,
                                     'python': sys.version.split()[0], 'platform': platform.platform()})
    return worst


def hexs(b):
    return None if b is None else b.hex()


def write_json(path, obj):
    try:
        write_json_atomic(path, obj)
    except (OSError, TypeError, ValueError) as e:
        print('%s: ERROR: cannot write %s: %s' % (TAG, path, one_line(e)))
        sys.exit(EXIT_ERROR)


def write_json_atomic(path, obj):
    # atomically: a temp file next to path, then rename; never a half-written file
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix='.ssfuzz-export-', dir=d)
    try:
        with os.fdopen(fd, 'w') as f:
            json.dump(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

