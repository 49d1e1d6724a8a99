#!/usr/bin/env bash
# Options declared once: every command's --help (generated from its option table in
# harness/cli/) lists exactly the options it accepts. Probes the binary: each listed
# option is accepted (a value option asks for its value, a flag goes on to --help),
# every other command's option and a made-up one are refused (exit 2, "unknown
# option"); each option named in the sources of a command or in a doc's
# `ssfuzz CMD ...` line is one CMD lists; every option the docs name is one some
# command or `ssfuzz help` lists (or another tool's, named below); docs/options.md
# is what scripts/options-doc.sh prints now.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
PY=${PYTHON:-python3}

if scripts/options-doc.sh "$SSFUZZ" >"$tmp/options.md" 2>"$tmp/err" && cmp -s "$tmp/options.md" docs/options.md; then
    pass "docs/options.md is current (make options-doc)"
else fail "docs/options.md is current (make options-doc)" "$(diff "$tmp/options.md" docs/options.md | head -5)"; fi

# Spellings: --name=VALUE, options after the words, grouped short flags, `--` ends options;
# a number past 2^64 and a 4-byte option past its range are one line naming the option.
"$SSFUZZ" gen --seed 5 --index 33 >"$tmp/a.json" 2>&1
"$SSFUZZ" gen --index=33 --seed=5 -o "$tmp/b.json" >/dev/null 2>&1
if cmp -s <(tr -d '\n' <"$tmp/a.json") <(tr -d '\n' <"$tmp/b.json"); then pass "gen: --seed=5 --index=33 -o F is --seed 5 --index 33"
else fail "gen: --seed=5 --index=33 -o F is --seed 5 --index 33"; fi
expect_rc "fuzz -qh: a group of short flags, -h last, prints the help" 0 "$SSFUZZ" fuzz -qh
expect_rc "replay -- --json: after --, --json is a case path" 2 "$SSFUZZ" replay -- --json
grep -q "^ssfuzz replay: --json: cannot open" "$tmp/err" && pass "replay -- --json: says the file --json cannot be opened" \
    || fail "replay -- --json: says the file --json cannot be opened" "$(head -2 "$tmp/err")"
expect_rc "fuzz --seed 2^64: usage error" 2 "$SSFUZZ" fuzz --seed 18446744073709551616
grep -qx "ssfuzz fuzz: --seed: must be a non-negative integer below 2^64 (got '18446744073709551616')" "$tmp/err" \
    && pass "fuzz --seed 2^64: one line naming --seed and its rule" || fail "fuzz --seed 2^64: one line" "$(cat "$tmp/err")"
expect_rc "fuzz -j 4294967297 (past 2^32): usage error" 2 "$SSFUZZ" fuzz -j 4294967297
grep -qx "ssfuzz fuzz: --jobs: must be in \[1, 256\]" "$tmp/err" && pass "fuzz -j 4294967297: names --jobs and its range" \
    || fail "fuzz -j 4294967297: names --jobs and its range" "$(cat "$tmp/err")"

if ! "$PY" -c '' 2>/dev/null; then echo "skip option probes: no $PY"; exit 0; fi
"$PY" - "$SSFUZZ" <<'PYEOF'
import glob, re, subprocess, sys
bin_ = sys.argv[1]
# Other tools' options the docs name (sbatch, scancel, squeue, scripts/deps.sh, exported
# scripts, benchmarks, perf, valgrind, check-jsonschema, examples/slurm/submit.sh).
FOREIGN = set("""--stage --toggle-collect --check-only --transposed --tool --reps --branch-sim --tasks
--signal --call-graph --sbatch --requeue --partition --optional --offline --me --gres --gpu --full
--expected-out --eager-cases --dependency --cpus-per-task --compile-cases --builtin-schema --array
--actual-out""".split())

def run(*args):
    p = subprocess.run([bin_, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr

def report(name, bad):
    print(("ok " + name) if not bad else "not ok %s: %s" % (name, "; ".join(bad[:5])))

OPT = re.compile(r"^  (?:-(\w), |    )--([a-z0-9-]+)(?: (\S+))?(?:  |$)")
def listed(text):   # {name: (short, takes_value)} from a --help
    out = {}
    for line in text.splitlines():
        m = OPT.match(line)
        if m: out[m.group(2)] = (m.group(1), m.group(3) is not None)
    return out

rc, top = run("help")
cmds = [l.split()[0] for l in top.splitlines() if re.match(r"^  [a-z]+ ", l) and l.split()[0] != "help"]
glob_opts = listed(top)
report("ssfuzz help lists the commands and the global options", [] if rc == 0 and cmds and glob_opts else ["exit %d" % rc])
table = {c: listed(run("help", c)[1]) for c in cmds}
everything = set(glob_opts).union(*[set(t) for t in table.values()])

bad = []
for c, opts in table.items():
    if run(c, "--help") != run("help", c) or "help" not in opts: bad.append(c + ": --help differs from help " + c)
    for name, (short, value) in opts.items():
        if name == "help": continue
        forms = ["--" + name] + (["-" + short] if short else [])
        for f in forms:
            if value:   # its last word: it asks for its value, by name
                rc, out = run(c, f)
                ok = rc == 2 and "--%s needs a value" % name in out
            else:       # a flag, then --help: 0 only when the flag was taken
                rc, out = run(c, f, "--help")
                ok = rc == 0
            if not ok: bad.append("%s %s: exit %d: %s" % (c, f, rc, out.strip()[:80]))
    for g in glob_opts:   # taken out before the command sees them: each asks for its path
        rc, out = run(c, "--" + g)
        if rc != 2 or "unknown option" in out: bad.append("%s --%s: %s" % (c, g, out.strip()[:80]))
report("every option a command's --help lists is accepted (and each global one)", bad)

bad = []
for c, opts in table.items():
    for name in sorted(everything - set(opts) - set(glob_opts) | {"no-such-option", "targe", "help=1"}):
        rc, out = run(c, "--" + name)
        if rc != 2 or "ssfuzz %s: unknown option '--%s'" % (c, name) not in out:
            bad.append("%s --%s: exit %d: %s" % (c, name, rc, out.strip()[:80]))
    short = {s for s, _ in opts.values() if s}
    for s in sorted(set("tojqhZ") - short - {"h"}):
        rc, out = run(c, "-" + s)
        if rc != 2 or "unknown option" not in out: bad.append("%s -%s: exit %d" % (c, s, rc))
report("an option a command's --help does not list is refused (exit 2, unknown option)", bad)

# Sources: the strings of cli_CMD.c name only CMD's options and the global ones (merge
# runs triage with triage's, triage runs explain with explain's); what ss_gen_opts.c
# prints back, fuzz and gen both take.
bad = []
srcs = {"harness/cli/cli_%s.c" % c: [c] for c in cmds}
srcs["harness/campaign/ss_gen_opts.c"] = ["fuzz", "gen"]
for path, owners in srcs.items():
    strings = " ".join(re.findall(r'"(?:[^"\\\n]|\\.)*"', open(path).read()))
    for o in sorted(set(re.findall(r"--([a-z][a-z0-9-]*)", strings))):
        for c in owners:
            runs = {"merge": "triage", "triage": "explain"}.get(c)
            allowed = set(table[c]) | set(glob_opts) | (set(table[runs]) if runs else set())
            if o not in allowed: bad.append("%s: --%s is not an option of %s" % (path, o, c))
report("each option the sources name is one its command lists", bad)

# Docs: every --option is ssfuzz's (or another tool's above); after `ssfuzz CMD` on a
# line, up to the end of the command, each one is CMD's or global.
bad = []
docs = ["README.md"] + sorted(glob.glob("docs/*.md"))
for path in docs:
    for n, line in enumerate(open(path), 1):
        for o in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", line):
            if o not in everything and "--" + o not in FOREIGN:
                bad.append("%s:%d: --%s is no command's option" % (path, n, o))
        for m in re.finditer(r"ssfuzz (%s)\b([^`|;&#>)]*)" % "|".join(cmds), line):
            for o in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", m.group(2)):
                if o not in table[m.group(1)] and o not in glob_opts:
                    bad.append("%s:%d: ssfuzz %s --%s: not an option of %s" % (path, n, m.group(1), o, m.group(1)))
report("each option the docs name is listed by the command they name it for", bad)

# The scripts, examples, workflows and make files that run ssfuzz: after `ssfuzz CMD`
# (`"$SSFUZZ" CMD`) on a line, each option is CMD's or global.
bad, found = [], 0
runners = sorted(set(glob.glob("scripts/*.sh") + glob.glob("examples/**/*.sh", recursive=True) +
                     glob.glob("examples/**/*.sbatch", recursive=True) + glob.glob("examples/**/*.yml", recursive=True) +
                     glob.glob(".github/workflows/*.yml") + glob.glob("*.mk") + glob.glob("*/*.mk") + ["Makefile"]))
for path in runners:
    for n, line in enumerate(open(path, errors="replace"), 1):
        for m in re.finditer(r"(?i:ssfuzz)\}?\"? (%s)\b([^|;&#>)`]*)" % "|".join(cmds), line):
            found += 1
            for o in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", m.group(2)):
                if o not in table[m.group(1)] and o not in glob_opts:
                    bad.append("%s:%d: ssfuzz %s --%s: not an option of %s" % (path, n, m.group(1), o, m.group(1)))
report("each option the scripts, examples and workflows give a command is one it lists (%d runs in %d files)" % (found, len(runners)), bad if found else ["no run found"])

# docs/fuzzing.md's option table (written by hand: what a campaign's options mean) has a
# row for each option fuzz takes, and none for another.
rows = set()
for line in open("docs/fuzzing.md"):
    if line.startswith("| `-"): rows |= set(re.findall(r"--([a-z][a-z0-9-]*)", line.split("|")[1]))
want = set(table["fuzz"]) - {"help"}
report("docs/fuzzing.md's option table has a row for each fuzz option",
       ["missing --" + o for o in sorted(want - rows)] + ["not fuzz's: --" + o for o in sorted(rows - want)])
PYEOF
