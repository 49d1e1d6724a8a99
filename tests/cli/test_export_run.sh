#!/usr/bin/env bash
# What `ssfuzz export` writes runs by itself: exported scripts of a single write in every
# spelling and of program cases covering every step kind, and the repros of their `--issue`
# reports, each executed with fresh globals (tests/cli/lib/run_exported.py: one interpreter
# runs them all, a torch import costs seconds) under the python3 with torch (Debian's 1.13:
# eager only) and every python of SSFUZZ_TORCH_PYTHONS (default build/torch-*/bin/python)
# with torch.compile. A script's exit must be the worst verdict it printed (docs/triage.md's
# table: 1 differ, 2 error, 3 refused, 0 agree) and, for the cases pinned below, the
# documented one; a repro must run and print the values its report shows. A report has a
# repro only for a wrong run: wrong-python below is a release whose every run counts as wrong
# (the real python runs the script; its verdicts are then marked "differ"), so each spelling
# and program gets one; the values shown are still the real run's.
set -u
. "$(dirname "$0")/lib/common.sh"

runner=tests/cli/lib/run_exported.py
write=corpus/torch-144861-eager-shift-inner-4x6.json    # eager writes wrong values (setitem, copy, index-put)
spellings="setitem setitem-clone copy scatter-copy scatter-return clone-scatter index-put"
programs="examples/programs/read-before-write.json examples/programs/index-put-duplicates.json
          corpus/torch-program-198094-scatter-zero.json"

# The programs cover every step kind of docs/programs.md.
# shellcheck disable=SC2086
kinds=$(python3 -c 'import json, sys
print(" ".join(sorted({s["op"] for f in sys.argv[1:] for s in json.load(open(f))["program"]})))' $programs)
[ "$kinds" = "index_put inplace read return view write" ] && pass "the programs run here cover every step kind ($kinds)" \
    || fail "the programs run here cover every step kind" "they have: $kinds"

py=""
for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$(command -v "$cand"); break; fi
done
if [ -z "$py" ]; then echo "skip exported scripts run: no python3 that imports torch (apt-get install python3-torch)"; exit 0; fi
mapfile -t cpys < <(compile_pythons)

# The scripts: every spelling of the write, each program, and cases whose exit is documented.
for s in $spellings; do "$SSFUZZ" export --torch "$write" --spelling "$s" -o "$tmp/w-$s.py" || fail "export --spelling $s"; done
declare -A program_of   # a program's name: its case
for p in $programs; do
    program_of[$(basename "$p" .json)]=$p
    "$SSFUZZ" export --torch "$p" -o "$tmp/p-$(basename "$p" .json).py" || fail "export $p"
done
names=${!program_of[*]}
"$SSFUZZ" export --torch corpus/kv-cache-separate.json -o "$tmp/agree.py"       # src apart from x: right everywhere
"$SSFUZZ" export --torch corpus/same-ptr-transpose.json -o "$tmp/refused.py"    # eager's overlap check raises

cat >"$tmp/wrong-python" <<'SH'
#!/bin/sh
# a release where every run is wrong: $REAL_PY runs the script, its verdicts become "differ"
"$REAL_PY" "$@"
out="" prev=""
for a in "$@"; do [ "$prev" = --actual-out ] && out=$a; prev=$a; done
[ -z "$out" ] || "$REAL_PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    r["verdict"] = "differ"
json.dump(d, open(sys.argv[1], "w"))' "$out"
exit 1
SH
chmod +x "$tmp/wrong-python"

# issue NAME REAL_PY PYTHON CASE ARG...: the report $tmp/NAME.md, written by export --issue.
issue() {
    local name=$1 real=$2 python=$3 case=$4; shift 4
    REAL_PY=$real "$SSFUZZ" --python "$python" export --issue "$tmp/$name.md" -q "$case" "$@" 2>"$tmp/$name.err" ||
        echo "not ok issue $name: exit $?: $(tail -2 "$tmp/$name.err")"
}
# The reports, two at a time (each runs its script twice, a fresh interpreter each): every spelling
# and program as wrong; the write's real eager bug (index-put: its repro once called a helper only
# the exported script defined); under each torch.compile python, a compiled repro (the decorator).
lane() {
    local i=0 s n k
    for s in $spellings; do [ $((i++ % 2)) = "$1" ] && issue "i-$s" "$py" "$tmp/wrong-python" "$write" --spelling "$s"; done
    for n in $names; do [ $((i++ % 2)) = "$1" ] && issue "i-$n" "$py" "$tmp/wrong-python" "${program_of[$n]}"; done
    [ $((i++ % 2)) = "$1" ] && issue real-index-put "$py" "$py" "$write" --spelling index-put --mode eager
    for k in "${!cpys[@]}"; do
        [ $((i++ % 2)) = "$1" ] && issue "c$k-index-put" "${cpys[$k]}" "$tmp/wrong-python" "$write" --spelling index-put --mode dynamo-eager
        [ $((i++ % 2)) = "$1" ] && issue "c$k-program" "${cpys[$k]}" "$tmp/wrong-python" examples/programs/read-before-write.json --mode dynamo-eager
    done
    return 0
}
lane 0 & lane 1; wait

# manifest PYTHON MODES PROGRAM_MODES CHECK [REPORT...]: the runner's lines for one python.
manifest() {
    local p=$1 modes=$2 pmodes=$3 check=$4 s n f; shift 4
    for s in $spellings; do   # eager setitem reads overwritten elements (docs/triage.md): exit 1
        printf 'script\t%s w-%s\t%s\t%s\t--mode\t%s\t--form\tall\t--device\tcpu\n' "$p" "$s" \
            "$([ "$s $modes" = "setitem all" ] && echo 1 || echo -)" "$tmp/w-$s.py" "$modes"
    done
    for n in $names; do printf 'script\t%s p-%s\t-\t%s\t--mode\t%s\t--device\tcpu\n' "$p" "$n" "$tmp/p-$n.py" "$pmodes"; done
    printf 'script\t%s agree (exit 0)\t0\t%s\t--mode\teager\t--device\tcpu\n' "$p" "$tmp/agree.py"
    printf 'script\t%s refused (exit 3)\t3\t%s\t--mode\teager\t--device\tcpu\n' "$p" "$tmp/refused.py"
    printf 'script\t%s unwritable --actual-out (exit 2)\t2\t%s\t--mode\teager\t--device\tcpu\t--actual-out\t%s\n' \
        "$p" "$tmp/agree.py" "$tmp/no/such/dir/a.json"
    for s in $spellings; do printf 'repro\t%s repro i-%s\t%s\t%s\n' "$p" "$s" "$check" "$tmp/i-$s.md"; done
    for n in $names; do printf 'repro\t%s repro i-%s\t%s\t%s\n' "$p" "$n" "$check" "$tmp/i-$n.md"; done
    printf 'repro\t%s repro real-index-put\t%s\t%s\n' "$p" "$check" "$tmp/real-index-put.md"
    for f in "$@"; do printf 'repro\t%s repro %s\tshown\t%s\n' "$p" "$(basename "$f" .md)" "$f"; done
}
# run PYTHON MODES PROGRAM_MODES CHECK [REPORT...]: the runner's verdicts; the exits the scripts gave
run() {
    manifest "$@" >"$tmp/manifest"
    "$1" "$runner" "$tmp/manifest" 2>"$tmp/run.err" || fail "$1 ran $runner" "$(tail -3 "$tmp/run.err")"
}
# the reports were written under $py: their repros print the values shown; eager there gives every
# documented exit (a torch.compile python's may have fixed what makes exit 1 here). The compile
# pythons run the writes' scripts under dynamo (the backends with no C++ to build: CI time),
# programs under aot_eager too, the eager repros, and their own compiled ones.
out=$(run "$py" all all shown)
echo "$out" | grep -v '^exits seen: '
echo "$out" | grep -qx 'exits seen: 0 1 2 3' && pass "$py: exits 0, 1, 2 and 3 each seen" ||
    fail "$py: exits 0, 1, 2 and 3 each seen" "$(echo "$out" | grep '^exits seen')"
for k in "${!cpys[@]}"; do
    run "${cpys[$k]}" dynamo-eager dynamo-eager,aot-eager runs "$tmp/c$k-index-put.md" "$tmp/c$k-program.md" | grep -v '^exits seen: '
done
