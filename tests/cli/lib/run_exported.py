"""run_exported.py - runs many exported scripts and --issue repros in one interpreter, each as if fresh.

Usage: python run_exported.py MANIFEST. Each MANIFEST line is tab-separated:
  script NAME WANT PATH ARG...  an `ssfuzz export --torch` script, run with ARGs as __main__;
                                its exit must be the worst of the verdicts it printed (1 DIFFER,
                                RAISED or ACCEPTED-INVALID, then 2 ERROR, 3 REFUSED, 0 agree;
                                docs/triage.md) and, unless WANT is '-', WANT
  repro NAME CHECK MD           the code block under "## Reproduce" of an `export --issue` report,
                                run as __main__: it must not raise, and (CHECK shown: run by the
                                python that wrote the report) its last line must be the values the
                                report shows: its `actual:` line, else (the run was right, nothing
                                read back) what the repro's comment expects; CHECK runs: any line
One interpreter runs them all (a torch import costs seconds); each gets fresh globals, so a name
only the generator's own code defines still fails. Prints "ok NAME" or "not ok NAME: why" per
line (tests/cli/lib/common.sh's protocol) and the exit codes seen; exits 0."""
import contextlib
import io
import re
import runpy
import sys
import traceback

import torch

VERDICT = re.compile(r'^ssfuzz-export: (?:.*?: )?(agree|DIFFER|RAISED|ACCEPTED-INVALID|ERROR|REFUSED)\b', re.M)
CODE = {'agree': 0, 'DIFFER': 1, 'RAISED': 1, 'ACCEPTED-INVALID': 1, 'ERROR': 2, 'REFUSED': 3}
ORDER = (1, 2, 3, 0)   # the worst first, as the scripts rank their runs


def fresh():
    # no compiled graph or guard of one job serves the next
    if hasattr(torch, '_dynamo'):
        torch._dynamo.reset()


def execute(run):
    """(exit code, stdout, None) or (None, stdout, the uncaught exception's last line)."""
    out = io.StringIO()
    fresh()
    try:
        with contextlib.redirect_stdout(out):
            run()
    except SystemExit as e:
        return (e.code if isinstance(e.code, int) else 0 if e.code is None else 1), out.getvalue(), None
    except BaseException:
        return None, out.getvalue(), traceback.format_exc().strip().splitlines()[-1]
    return 0, out.getvalue(), None


def script(name, want, path, *args):
    def run():
        sys.argv = [path] + list(args)
        runpy.run_path(path, run_name='__main__')
    rc, out, crash = execute(run)
    if crash:
        return 'raised %s' % crash, None
    codes = [CODE[v] for v in VERDICT.findall(out)]
    if not codes:
        return 'no verdict line: %r' % out[-300:], rc
    worst = min(codes, key=ORDER.index)
    if rc != worst:
        return 'exit %s, but the worst verdict printed is %d: %r' % (rc, worst, out[-300:]), rc
    if want != '-' and rc != int(want):
        return 'exit %s, documented for this case %s: %r' % (rc, want, out[-300:]), rc
    return None, rc


def section(md, title):
    m = re.search(r'^## %s\n(.*?)(?=^## |\Z)' % re.escape(title), md, re.M | re.S)
    return m.group(1) if m else ''


def repro(name, check, path):
    try:
        md = open(path, encoding='utf-8').read()
    except OSError as e:
        return 'no report: %s' % e, None
    code = re.search(r'^```python\n(.*?)^```$', section(md, 'Reproduce'), re.M | re.S)
    if not code:
        return 'no repro in %s: %r' % (path, md[:200]), None
    src = code.group(1)
    rc, out, crash = execute(lambda: exec(compile(src, name, 'exec'), {'__name__': '__main__'}))
    if crash or rc:
        return 'the repro %s (%s):\n%s' % ('raised ' + crash if crash else 'exited %s' % rc, out[-200:], src), None
    lines = out.strip().splitlines()
    got = lines[-1] if lines else ''
    shown = dict(re.findall(r'^(expected|actual): +(.*)$', section(md, 'Expected and actual'), re.M))
    comment = re.search(r'#\s*expected\s+(.*)$', src.strip().splitlines()[-1])
    want = got if check == 'runs' else shown.get('actual') or (comment.group(1) if comment else None)
    if want is None:
        return 'the report shows no values', 0
    if got != want:
        return 'the repro printed %s, the report says %s' % (got, want), 0
    return None, 0


def main():
    seen = set()
    for line in open(sys.argv[1], encoding='utf-8'):
        kind, name, *rest = line.rstrip('\n').split('\t')
        why, rc = (script if kind == 'script' else repro)(name, *rest)
        seen.add(rc)
        print('ok %s' % name if why is None else 'not ok %s: %s' % (name, ' '.join(why.split())[:600]))
        sys.stdout.flush()
    print('exits seen: %s' % ' '.join(str(c) for c in sorted(c for c in seen if c is not None)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
