#!/usr/bin/env bash
# Batched compile targets on a real PyTorch (make torch-env; CI builds it):
# `fuzz --batch K` runs up to K cases as one torch.compile, each judged as
# alone. summary.json's "batch" and the text summary say so; --batch out of
# [1, 128] is a usage error; a batched failure that fails alone is reported
# as usual (#198094, minimized, no meta.batch); one that shows only inside its
# batch (the worker's batch-corrupt hook) is written with meta.batch and
# replays inside that batch (also on meta.batch.target, meta.target left
# out), and a hostile meta.batch is named and the case run alone; an exception in a batch is bisected (the same findings as
# --batch 1); a worker crash in a batch is the crashing case's, not flaky.
# Faults come from the worker's test hooks (SSFUZZ_TEST_HOOKS=1).
set -u
. "$(dirname "$0")/lib/common.sh"

py="" ver=""
for cand in ${SSFUZZ_TORCH_PYTHONS:-build/torch-*/bin/python}; do
    [ -x "$cand" ] || continue
    ver=$("$cand" -c 'import torch; assert hasattr(torch, "compile"); print(torch.__version__.split("+")[0])' 2>/dev/null) \
        || continue
    py=$cand
    break
done
if [ -z "$py" ]; then echo "skip torch-batch: no venv with torch.compile (make torch-env; CI builds it)"; exit 0; fi
export SSFUZZ_PYTHON=$py
hooks() { SSFUZZ_TEST_HOOKS=1 SSFUZZ_TORCH_TEST_FAULT=$1 "${@:2}"; }
aot=torch:aot-eager-cpu:setitem-clone   # dynamo + AOTAutograd, no code generation: the fast compiled mode

# check NAME DIR EXPR: a Python expression over the summary `s` (and
# hits(kind), sigs(): the findings' (signature, schedule) set) must be True.
check() {
    local got
    got=$("$py" - "$2/summary.json" "$3" <<'EOF' 2>&1
import json, sys
s = json.load(open(sys.argv[1]))
def hits(kind):
    return sum(f["hits"] for f in s["findings"] if f["signature"] == kind)
def sigs():
    return sorted((f["signature"], f["schedule"], f["hits"]) for f in s["findings"])
print(eval(sys.argv[2]))
EOF
)
    [ "$got" = True ] && pass "$1" || fail "$1" "$3 is $got; $(tail -3 "$2.out" 2>/dev/null)"
}
# fuzz DIR ARGS...: a short campaign, its output in DIR.out
fuzz() {
    local dir=$1; shift
    "$SSFUZZ" fuzz --minimize-time 5 -o "$dir" "$@" >"$dir.out" 2>&1
}

# --batch: 1 to 128, else a usage error naming it, in one line.
for bad in 0 129 abc; do
    "$SSFUZZ" fuzz -t "$aot" --batch "$bad" --cases 1 -o "$tmp/bad-$bad" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "--batch" "$tmp/err" && [ ! -e "$tmp/bad-$bad/summary.json" ] \
        && pass "--batch $bad: a usage error, one line naming --batch" \
        || fail "--batch $bad: a usage error, one line naming --batch" "exit $rc; $(head -3 "$tmp/err")"
done

# An exception inside a batch (only int32 cases raise when compiled; seed 2's
# case 3 is int32, case 2 uint8: they make the second group): the batch is
# bisected down to cases run alone, so every case gets its verdict as alone:
# only `raised`, never a mismatch of a non-int32 case, and the same findings
# as one compile per case (--batch 1). One form, to keep it short.
for k in 8 1; do
    hooks compile-raise:dtype=int32 fuzz "$tmp/raise$k" -t "$aot" --schedule x-input --seed 2 --cases 4 \
        --large-per-mille 0 --batch $k --minimize-time 1
done
check "compile-raise in a batch: only raised findings, every case run" "$tmp/raise8" \
    'hits("raised") > 0 and {f["signature"] for f in s["findings"]} == {"raised"} and s["cases"] == 4 and s["errors"] == 0'
# (groups ramp up from 2 cases to --batch: 4 cases are two batches of 2)
check "compile-raise in a batch: summary batch max 8, batches of more than one run" "$tmp/raise8" \
    's["batch"]["max"] == 8 and s["batch"]["batches"] >= 1 and s["batch"]["mean"] > 1'
got8=$(cd "$tmp/raise8" && ls *.json | grep -v summary.json | sort); got1=$(cd "$tmp/raise1" && ls *.json | grep -v summary.json | sort)
sig8=$(grep -v "^ *batches of" "$tmp/raise8.out" | grep -E "^  (raised|mismatch|crash|flaky|timeout) " | sed 's,/[^ ]*/,,')
sig1=$(grep -E "^  (raised|mismatch|crash|flaky|timeout) " "$tmp/raise1.out" | sed 's,/[^ ]*/,,')
[ -n "$got8" ] && [ "$got8" = "$got1" ] && [ "$sig8" = "$sig1" ] \
    && pass "compile-raise: --batch 8 finds what --batch 1 finds (same reproducers, same hits)" \
    || fail "compile-raise: --batch 8 finds what --batch 1 finds (same reproducers, same hits)" "batch 8: $got8 / $sig8; batch 1: $got1 / $sig1"
# --batch 1: one compile per case, as before batches.
check "--batch 1: summary batch max 1, no batches" "$tmp/raise1" \
    's["batch"] == {"max": 1, "batches": 0, "mean": 0}'
grep -q "batches of up to" "$tmp/raise1.out" && fail "--batch 1: the text summary says nothing of batches" "$(grep batches "$tmp/raise1.out")" \
    || pass "--batch 1: the text summary says nothing of batches"
grep -Eq "^  batches of up to 8 cases on compiled targets: [0-9]+ batch(es)?, [0-9.]+ runs each" "$tmp/raise8.out" \
    && pass "--batch 8: the text summary says the batches" \
    || fail "--batch 8: the text summary says the batches" "$(tail -4 "$tmp/raise8.out")"

# A batched failure that fails alone too is reported as usual: #198094's
# class (slice_scatter's result returned, then x zeroed) on the releases that
# have it, minimized, with no meta.batch.
if "$py" -c 'import sys, torch; v = torch.__version__.split("+")[0].split("."); sys.exit(0 if (int(v[0]), int(v[1])) >= (2, 14) else 1)'; then
    # (a minimization budget of its own: the check asks for a minimized
    # reproducer, and 5 s of compiles ran out on a loaded machine)
    fuzz "$tmp/sr" -t torch:compile-cpu:scatter-return --seed 1 --cases 4 --batch 8 --minimize-time 120
    "$py" - "$tmp/sr" <<'EOF' && pass "torch $ver: batched #198094 found, rerun alone, reported minimized without meta.batch" \
        || fail "torch $ver: batched #198094 found, rerun alone, reported minimized without meta.batch" "$(tail -4 "$tmp/sr.out")"
import glob, json, os, sys
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))
assert s["batch"]["max"] == 8 and s["batch"]["batches"] >= 1, s["batch"]
assert any(f["signature"] == "mismatch" and f["target"] == "torch:compile-cpu:scatter-return" for f in s["findings"])
files = glob.glob(os.path.join(d, "mismatch-*.json"))
assert files
for p in files:
    m = json.load(open(p))["meta"]
    assert "batch" not in m and m["minimized"] is True and "batch-only" not in p, (p, m.get("minimized"))
EOF
    grep -q "only inside its batch" "$tmp/sr.out" && fail "torch $ver: no #198094 finding called batch-only" "$(grep 'only inside' "$tmp/sr.out" | head -2)" \
        || pass "torch $ver: no #198094 finding called batch-only"
fi

# A failure only its batch shows: the hook flips the first storage byte of
# every case run inside a batch, never alone. Seed 3's cases 0 and 1 make the
# first group (2 cases, both of native dtypes: a complex case and a native
# one are compiled apart, each alone), case 2 a group of its own, whose forms
# run one by one (one case makes no batch to record): no finding for it.
hooks batch-corrupt:1 fuzz "$tmp/bc" -t "$aot" --seed 3 --cases 3 --large-per-mille 0 --batch 4 --keep-variants
bos=$(ls "$tmp"/bc/mismatch-*-batch-only-*.json 2>/dev/null)
bo=$(echo "$bos" | head -1)
if [ -n "$bo" ]; then pass "batch-corrupt: ...-batch-only-HASH.json reproducers"
else fail "batch-corrupt: ...-batch-only-HASH.json reproducers" "$(ls "$tmp/bc"; tail -3 "$tmp/bc.out")"; bo=/nonexistent; fi
# sizes: "FILE SIZE" per reproducer, after checking its meta.batch
sizes=$("$py" - "$tmp/bc" $bos 2>"$tmp/bn.err" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
assert s["unique_findings"] == 2 and s["hits"] == 2, (s["unique_findings"], s["hits"])
indexes = set()
for p in sys.argv[2:]:
    r = json.load(open(p))
    b = r["meta"]["batch"]
    indexes.add(int(r["meta"]["case_index"]))
    assert 2 <= b["size"] <= 4 and 0 <= b["position"] < b["size"], b
    assert b["schedules"] == ["x-input", "storage-input", "two-inputs"], b["schedules"]
    assert isinstance(b["cases"], list) and len(b["cases"]) == b["size"] - 1
    assert all("dtype" in c and "meta" not in c for c in b["cases"])
    assert r["meta"]["minimized"] is False, r["meta"]
    assert "only inside a batch of %d cases" % b["size"] in r["meta"]["detail"], r["meta"]["detail"]
    print(p, b["size"])
assert indexes == {0, 1}, indexes
EOF
) && pass "batch-corrupt: meta.batch records size, position, schedules and the other cases; none for a case alone" \
  || fail "batch-corrupt: meta.batch records size, position, schedules and the other cases; none for a case alone" \
          "$(tail -2 "$tmp/bn.err")"
bn=$(echo "$sizes" | awk -v f="$bo" '$1 == f { print $2 }')
grep -q "^finding .* -> $bo;.*only inside its batch of ${bn:-X} cases" "$tmp/bc.out" \
    && pass "batch-corrupt: the finding line says only inside its batch" \
    || fail "batch-corrupt: the finding line says only inside its batch" "$(grep '^finding' "$tmp/bc.out" | head -2)"
# Replayed with the hook: each inside its recorded batch, where it fails again.
hooks batch-corrupt:1 "$SSFUZZ" replay -t "$aot" $bos >"$tmp/rb.out" 2>"$tmp/rb.err"; rc=$?
ok=1
while read -r f n; do
    grep -q "^$f: $aot run inside its recorded batch of $n cases (meta.batch)" "$tmp/rb.out" \
        && grep -q "^$f: MISMATCH $aot" "$tmp/rb.out" || ok=0
done <<<"$sizes"
[ "$rc" = 1 ] && [ "$ok" = 1 ] && [ -n "$sizes" ] && ! grep -q "run alone" "$tmp/rb.err" \
    && pass "batch-only replay with the hook: run inside its batch, MISMATCH, exit 1" \
    || fail "batch-only replay with the hook: run inside its batch, MISMATCH, exit 1" "exit $rc; $(tail -3 "$tmp/rb.out") $(tail -2 "$tmp/rb.err")"

# Hostile meta.batch: each edit is named in one line (FILE: meta.batch.FIELD:
# rule; run alone) and the case runs alone, agreeing without the hook. The
# untouched reproducer replays in its batch and agrees. One replay for all.
"$py" - "$bo" "$tmp/h" <<'EOF'
import copy, json, os, sys
r = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
def edit(name, f):
    e = copy.deepcopy(r)
    if f:
        f(e["meta"]["batch"])
    else:
        e["meta"]["batch"] = 7
    json.dump(e, open(os.path.join(sys.argv[2], name + ".json"), "w"))
edit("size-1", lambda b: b.__setitem__("size", 1))
edit("size-500", lambda b: b.__setitem__("size", 500))
edit("size-x", lambda b: b.__setitem__("size", "x"))
edit("size-half", lambda b: b.__setitem__("size", 3.5))
edit("position", lambda b: b.__setitem__("position", b["size"]))
edit("position-neg", lambda b: b.__setitem__("position", -1))
edit("cases-object", lambda b: b.__setitem__("cases", {"a": 1}))
edit("cases-count", lambda b: b["cases"].pop())
edit("cases-entry", lambda b: b["cases"].__setitem__(0, "x"))
edit("case-dtype", lambda b: b["cases"][0].__setitem__("dtype", "int7"))
edit("schedules", lambda b: b.__setitem__("schedules", "x-input"))
edit("target-type", lambda b: b.__setitem__("target", 5))
edit("not-object", None)
# The batch's target named in meta.batch.target, meta.target left out (as a
# corpus case does): replayed on that target, it still runs inside its batch.
e = copy.deepcopy(r)
e["meta"]["batch"]["target"] = e["meta"].pop("target")
json.dump(e, open(os.path.join(sys.argv[2], "batch-target.json"), "w"))
EOF
"$SSFUZZ" replay -t "$aot" "$bo" "$tmp"/h/*.json >"$tmp/rh.out" 2>"$tmp/rh.err"; rc=$?
[ "$rc" = 0 ] && grep -q "^$bo: $aot run inside its recorded batch of $bn cases (meta.batch)" "$tmp/rh.out" \
        && grep -q "^$bo: ok: " "$tmp/rh.out" \
    && pass "batch-only replay without the hook: run inside its batch, agrees, exit 0" \
    || fail "batch-only replay without the hook: run inside its batch, agrees, exit 0" "exit $rc; $(tail -3 "$tmp/rh.out") $(tail -3 "$tmp/rh.err")"
for spec in "size-1 size" "size-500 size" "size-x size" "size-half size" "position position" "position-neg position" \
            "cases-object cases" "cases-count cases" "cases-entry cases" "case-dtype cases\[0\]\.dtype" \
            "schedules schedules" "target-type target" "not-object"; do
    set -- $spec
    f=$tmp/h/$1.json field=meta.batch${2:+.$2}
    lines=$(grep -c "^$f: " "$tmp/rh.err")
    [ "$lines" = 1 ] && grep -q "^$f: $field: .*; run alone$" "$tmp/rh.err" && grep -q "^$f: ok: " "$tmp/rh.out" \
            && ! grep -q "^$f: .*recorded batch" "$tmp/rh.out" \
        && pass "hostile meta.batch ($1): one line naming $field, the case run alone" \
        || fail "hostile meta.batch ($1): one line naming $field, the case run alone" "$(grep "^$f: " "$tmp/rh.err" "$tmp/rh.out" | head -4)"
done

grep -q "^$tmp/h/batch-target.json: $aot run inside its recorded batch of $bn cases (meta.batch)" "$tmp/rh.out" \
        && grep -q "^$tmp/h/batch-target.json: ok: " "$tmp/rh.out" && ! grep -q "^$tmp/h/batch-target.json: " "$tmp/rh.err" \
    && pass "meta.batch.target without meta.target: run inside its batch on that target" \
    || fail "meta.batch.target without meta.target: run inside its batch on that target" "$(grep "batch-target" "$tmp/rh.out" "$tmp/rh.err" | head -3)"

# A worker crash inside a batch (every int32 case kills the worker; seed 10's
# case 1 is int32, case 0 not): the batch's cases are rerun alone in a fresh
# worker, the int32 one crashes again: a crash finding, and no case of the
# batch is blamed as flaky. One form, to keep the worker restarts few.
hooks crash:dtype=int32 fuzz "$tmp/crash" -t "$aot" --schedule x-input --seed 10 --cases 2 --large-per-mille 0 \
    --batch 2 --minimize-time 1
check "crash in a batch: a crash finding, none flaky, the campaign completes" "$tmp/crash" \
    'sigs() == [("crash", "x-input", 1)] and s["cases"] == 2 and s["stopped_by"] == "cases" and s["batch"]["batches"] == 1'
