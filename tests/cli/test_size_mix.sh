#!/usr/bin/env bash
# The size mix: (seed, index) -> case is a pure function of the generation
# options across separate runs (a few hundred cases, regenerated in the
# opposite order); the campaign summary gives each size class's share of the
# cases and of the time, in text and in summary.json, and `reproduce:` carries
# the mix.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"

opts=(--seed 77 --large-per-mille 250 --no-swarm)   # no swarm: no epoch switches large cases off
mkdir -p "$tmp/a" "$tmp/b" "$tmp/c"
for i in $(seq 0 299); do "$SSFUZZ" gen "${opts[@]}" --index "$i" -o "$tmp/a/$i.json" 2>/dev/null; done
for i in $(seq 299 -1 0); do "$SSFUZZ" gen "${opts[@]}" --index "$i" -o "$tmp/b/$i.json" 2>/dev/null; done
n=$(ls "$tmp/a" | wc -l)
if [ "$n" = 300 ] && diff -r "$tmp/a" "$tmp/b" >/dev/null; then pass "300 cases regenerate identically in a second run, in reverse order"
else fail "300 cases regenerate identically in a second run" "$n files; $(diff -rq "$tmp/a" "$tmp/b" | head -3)"; fi
large=$(grep -l '"numel":[[:space:]]*[0-9]\{7,\}' "$tmp/a"/*.json | wc -l)
[ "$large" -gt 30 ] && pass "--large-per-mille 250 draws large cases ($large of 300)" \
    || fail "--large-per-mille 250 draws large cases" "$large of 300 with a 7-digit numel"
for i in $(seq 0 299); do "$SSFUZZ" gen --seed 77 --large-per-mille 0 --no-swarm --index "$i" -o "$tmp/c/$i.json" 2>/dev/null; done
# meta names the options, so compare the cases without it
differ=$(python3 - "$tmp/a" "$tmp/c" <<'PY'
import json, os, sys
def case(d, i):
    c = json.load(open(os.path.join(d, "%d.json" % i)))
    c.pop("meta", None)
    return c
print(sum(case(sys.argv[1], i) != case(sys.argv[2], i) for i in range(300)))
PY
)
[ "${differ:-0}" -gt 0 ] \
    && pass "another size mix is another campaign ($differ of 300 cases differ)" \
    || fail "another size mix is another campaign" "${differ:-?} of 300 differ"

out="$tmp/out"
"$SSFUZZ" fuzz --seed 5 --cases 200 --jobs 2 --no-swarm --large-per-mille 300 --out "$out" -q >"$tmp/log" 2>&1; rc=$?
[ "$rc" = 0 ] && pass "a campaign with 30% large cases runs clean" || fail "campaign with large cases" "exit $rc; $(tail -3 "$tmp/log")"
if grep -q '^  sizes (storage elements): <=4Ki [0-9.]*% of cases, [0-9.<]*% of time;.* >1Mi [0-9.]*% of cases, [0-9.]*% of time$' "$tmp/log"
then pass "the summary gives each size class's share of cases and of time"
else fail "the summary's size line" "$(grep sizes "$tmp/log")"; fi
grep -q '^reproduce: .* --large-per-mille 300' "$tmp/log" && pass "reproduce: carries the size mix" \
    || fail "reproduce: carries the size mix" "$(grep reproduce: "$tmp/log")"
if python3 - "$out/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["size_classes"]
assert set(s) == {"up_to_4Ki", "up_to_64Ki", "up_to_1Mi", "over_1Mi"}, s
assert sum(v["cases"] for v in s.values()) == d["cases"] == 200, (s, d["cases"])
assert s["over_1Mi"]["cases"] >= 30, s   # about 60 of 200 drawn large
assert all(v["worker_seconds"] > 0 for v in s.values() if v["cases"]), s
# large cases cost far more per case than small ones
per = lambda k: s[k]["worker_seconds"] / s[k]["cases"]
assert per("over_1Mi") > 20 * per("up_to_4Ki"), s
PY
then pass "summary.json: cases and worker time per size class add up"
else fail "summary.json size_classes" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["size_classes"])' "$out/summary.json" 2>&1 | head -c 400)"; fi

# A mix equal to the generator's default but not to the target set's (emu-only
# campaigns default to 0) is still written out: rerunning `reproduce:`, or
# regenerating from meta.found_by with `ssfuzz gen`, must give the same cases.
"$SSFUZZ" fuzz --target emu:mut-alias-unchecked --seed 2 --cases 50 --large-per-mille 3 --out "$tmp/m" -q >"$tmp/m.log" 2>&1
repro=$(ls "$tmp"/m/*.json 2>/dev/null | grep -v summary.json | head -1)
if grep -q '^reproduce: .* --large-per-mille 3$' "$tmp/m.log" && [ -n "$repro" ] &&
   python3 -c 'import json,sys; assert "--large-per-mille 3" in json.load(open(sys.argv[1]))["meta"]["found_by"]' "$repro"
then pass "an explicit --large-per-mille 3 is kept in reproduce: and meta.found_by"
else fail "an explicit --large-per-mille 3 is kept" "$(grep reproduce: "$tmp/m.log"); ${repro:-no reproducer}"; fi

# A case that kills its worker is still counted in its size class (by the parent).
SSFUZZ_TEST_HOOKS=1 SSFUZZ_TEST_FAULT=crash:5 "$SSFUZZ" fuzz --target emu:reinplace --seed 3 --cases 20 --jobs 1 --out "$tmp/crash" -q >"$tmp/crash.log" 2>&1
if python3 - "$tmp/crash/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["hits"] >= 1, d
assert sum(v["cases"] for v in d["size_classes"].values()) == d["cases"] == 20, (d["cases"], d["size_classes"])
PY
then pass "a crashed case is counted in its size class"
else fail "a crashed case is counted in its size class" "$(tail -2 "$tmp/crash.log")"; fi
