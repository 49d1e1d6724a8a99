#!/usr/bin/env bash
# Shards and `ssfuzz merge` without a scheduler: --shard I/N and Slurm's array variables split
# one seed's cases (the shards' hits add up to the single campaign's), each shard writes its own
# summary into one shared --out, SIGTERM ends a campaign as its time limit would (summary
# written, exit 0 or 1) and --resume goes on from where it stopped; merge folds shard directories
# into one summary with one reproducer per bug, says which shards are missing, adds nothing twice
# when run again, and updates a ledger once.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"
command -v python3 >/dev/null || { echo "skip merge: python3 not installed"; exit 0; }
mut=emu:mut-alias-unchecked
py() {   # name file python-expression over d (the JSON file)
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2" 2>"$tmp/py.err"
    then pass "$1"; else fail "$1" "$(head -c 300 "$2" 2>/dev/null | tr '\n' ' ') $(tail -1 "$tmp/py.err")"; fi
}

# --- the partition: 3 shards of seed 7 are the single campaign's 9000 cases
for i in 0 1 2; do
    "$SSFUZZ" fuzz --seed 7 --shard $i/3 --cases 3000 -t $mut --out "$tmp/shared" -q >"$tmp/s$i.log" 2>&1
done
"$SSFUZZ" fuzz --seed 7 --cases 9000 -t $mut --out "$tmp/single" -q >"$tmp/single.log" 2>&1
hits() { python3 -c "import json,sys; print(sum(json.load(open(p))['hits'] for p in sys.argv[1:]))" "$@"; }
a=$(hits "$tmp"/shared/summary-shard-{0,1,2}.json) b=$(hits "$tmp/single/summary.json")
[ "$a" = "$b" ] && [ "$a" -gt 0 ] && pass "3 shards split seed 7's 9000 cases: $a hits, as one campaign" \
    || fail "shards partition" "shards $a hits, single $b"
grep -q 'reproduce: ssfuzz fuzz --seed 7 --shard 1/3 --cases 3000' "$tmp/s1.log" && pass "reproduce: names the shard" \
    || fail "reproduce: names the shard" "$(grep reproduce "$tmp/s1.log")"
[ ! -e "$tmp/shared/summary.json" ] && [ "$(ls "$tmp"/shared/*.json | grep -vc summary-shard)" = 1 ] \
    && pass "a shared --out: one summary per shard, one reproducer for the bug all found" \
    || fail "shared --out" "$(ls "$tmp/shared")"
repro=$(ls "$tmp"/shared/mismatch-*.json)
py "the reproducer's meta regenerates it: campaign seed and global case index" "$repro" \
    'd["meta"]["campaign_seed"] == "7" and "--shard" in d["meta"]["found_by"]'
"$SSFUZZ" replay "$tmp/shared" >"$tmp/replay.out" 2>&1; rc=$?
[ "$rc" = 1 ] && ! grep -q 'summary-shard' "$tmp/replay.out" && pass "replay DIR passes the shard summaries by" \
    || fail "replay DIR skips summary-shard-*.json" "exit $rc; $(head -3 "$tmp/replay.out")"

# --- the shard from Slurm's variables; the seed from the array's job id
SLURM_ARRAY_JOB_ID=4242 SLURM_ARRAY_TASK_ID=9 SLURM_ARRAY_TASK_MIN=8 SLURM_ARRAY_TASK_COUNT=4 \
    "$SSFUZZ" fuzz --cases 100 -t emu:reinplace --out "$tmp/env" -q >"$tmp/env.log" 2>&1
grep -q 'seed 4242, shard 1/4 (SLURM_ARRAY_TASK_ID)' "$tmp/env.log" && [ -f "$tmp/env/summary-shard-1.json" ] \
    && pass "SLURM_ARRAY_TASK_ID 9 of 4 from 8: shard 1/4, seed SLURM_ARRAY_JOB_ID" || fail "slurm env" "$(head -2 "$tmp/env.log")"
SLURM_ARRAY_TASK_ID=9 SLURM_ARRAY_TASK_MIN=8 SLURM_ARRAY_TASK_COUNT=4 \
    expect_rc "--shard none ignores the array" 0 "$SSFUZZ" fuzz --shard none --cases 50 -t emu:reinplace --out "$tmp/none" -q
[ -f "$tmp/none/summary.json" ] && pass "--shard none writes summary.json" || fail "--shard none" "$(ls "$tmp/none")"
SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3 \
    expect_rc "a task list (1,5,9) is no shard numbering" 2 "$SSFUZZ" fuzz --seed 1 --cases 10 -t emu:reinplace --out "$tmp/x" -q
grep -q 'SLURM_ARRAY_TASK_ID: task 5 is not one of 3 tasks' "$tmp/err" && pass "... and says so" || fail "task list message" "$(cat "$tmp/err")"
expect_rc "--shard needs --seed" 2 "$SSFUZZ" fuzz --shard 0/2 --cases 10 -t emu:reinplace --out "$tmp/x" -q
expect_rc "--shard 2/2 is out of range" 2 "$SSFUZZ" fuzz --seed 1 --shard 2/2 --cases 10 -t emu:reinplace --out "$tmp/x" -q
grep -q -- '--shard: I must be below N' "$tmp/err" && pass "... and says the rule" || fail "shard range message" "$(cat "$tmp/err")"
expect_rc "--resume with --first-case" 2 "$SSFUZZ" fuzz --seed 1 --resume --first-case 5 --cases 10 -t emu:reinplace --out "$tmp/x" -q

# --- SIGTERM to the whole process group (as Slurm sends it): summary, findings, exit 1 (findings)
setsid "$SSFUZZ" fuzz --seed 3 --shard 0/2 --time 60 -j 2 -t $mut --out "$tmp/term" -q >"$tmp/term.log" 2>&1 &
pid=$!
for _ in $(seq 1 50); do ls "$tmp"/term/mismatch-*.json >/dev/null 2>&1 && break; sleep 0.1; done
sleep 0.5
kill -TERM -- -"$pid"
wait "$pid"; rc=$?
[ "$rc" = 1 ] && pass "SIGTERM: exit 1 as at the time limit (a finding), not 143" || fail "SIGTERM exit" "exit $rc"
py "SIGTERM: the shard's summary says so and where to go on" "$tmp/term/summary-shard-0.json" \
    'd["stopped_by"] == "SIGTERM" and int(d["campaigns"][0]["next_case"]) > 0 and d["hits"] > 0'
grep -q 'crash\|timeout' "$tmp/term.log" && fail "SIGTERM to the workers is no crash finding" "$(grep -m1 'crash\|timeout' "$tmp/term.log")" \
    || pass "SIGTERM to the workers too: no crash finding"
setsid "$SSFUZZ" fuzz --seed 3 --time 60 -t emu:reinplace --out "$tmp/term0" -q >/dev/null 2>&1 &
pid=$!; sleep 1; kill -TERM -- -"$pid"; wait "$pid"; rc=$?
[ "$rc" = 0 ] && pass "SIGTERM without findings: exit 0" || fail "SIGTERM exit 0" "exit $rc"
next=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['campaigns'][0]['next_case'])" "$tmp/term/summary-shard-0.json")
"$SSFUZZ" fuzz --seed 3 --shard 0/2 --resume --cases 100 -t $mut --out "$tmp/term" -q >"$tmp/resume.log" 2>&1
grep -q "from case $next (--resume)" "$tmp/resume.log" && grep -q "reproduce: ssfuzz fuzz --seed 3 --shard 0/2 --first-case $next --cases 100" "$tmp/resume.log" \
    && pass "--resume goes on from the stopped run's next case ($next)" || fail "--resume" "$(head -1 "$tmp/resume.log"); $(grep reproduce "$tmp/resume.log")"
py "a requeued shard's file keeps both runs" "$tmp/term/summary-shard-0.json" 'len(d["campaigns"]) == 2'

# --- merge: the shared --out in place, then directories into one
expect_rc "merge the shared --out in place (findings: exit 1)" 1 "$SSFUZZ" merge "$tmp/shared"
py "merged summary: 9000 cases, 1 unique finding, 3 of 3 shards" "$tmp/shared/summary.json" \
    'd["cases"] == 9000 and d["unique_findings"] == 1 and d["shards"]["count"] == 3 and d["shards"]["missing"] == [] and len(d["campaigns"]) == 3'
expect_rc "merge again: nothing twice" 1 "$SSFUZZ" merge "$tmp/shared"
py "... the same totals" "$tmp/shared/summary.json" 'd["cases"] == 9000 and len(d["campaigns"]) == 3'
mkdir -p "$tmp/art"
for i in 0 1 2 3; do   # a CI matrix: one artifact directory per shard; shard 3 never ran
    [ $i = 3 ] && continue
    t=$mut; [ $i = 2 ] && t=emu:reinplace
    "$SSFUZZ" fuzz --seed 11 --shard $i/4 --cases 2000 -t $t --out "$tmp/art/shard-$i" -q >/dev/null 2>&1
done
expect_rc "merge with a shard missing: exit 2, merged all the same" 2 "$SSFUZZ" merge -o "$tmp/m" "$tmp"/art/shard-*
grep -q 'incomplete: 1 of 4 shards have no summary (shard 3)' "$tmp/err" && pass "... names the missing shard" || fail "missing shard message" "$(cat "$tmp/err")"
py "merged from 3 artifacts: one reproducer for the bug two shards found" "$tmp/m/summary.json" \
    'd["unique_findings"] == 1 and d["cases"] == 6000 and d["shards"]["missing"] == [3] and d["findings"][0]["reproducer"].startswith(sys.argv[1].rsplit("/", 1)[0])'
[ "$(ls "$tmp"/m/mismatch-*.json | wc -l)" = 1 ] && pass "one file per bug in OUT" || fail "one file per bug" "$(ls "$tmp/m")"
expect_rc "merge: several directories need -o" 2 "$SSFUZZ" merge "$tmp"/art/shard-0 "$tmp"/art/shard-1
expect_rc "merge: --update needs --ledger" 2 "$SSFUZZ" merge --update "$tmp/shared"
expect_rc "merge: a file is no directory" 2 "$SSFUZZ" merge -o "$tmp/m2" "$repro"

# --- one ledger update for all shards: new, then known
"$SSFUZZ" fuzz --seed 11 --shard 3/4 --cases 2000 -t emu:reinplace --out "$tmp/art/shard-3" -q >/dev/null 2>&1
expect_rc "merge --ledger --update: a new finding (exit 1)" 1 "$SSFUZZ" merge -o "$tmp/m" --ledger "$tmp/known/ledger.json" --update "$tmp"/art/shard-* -- --recheck-time 5
grep -q '^new .*mismatch|emu:mut-alias-unchecked' "$tmp/out" && py "the ledger holds the merged finding" "$tmp/known/ledger.json" \
    'len(d["findings"]) == 1 and d["findings"][0]["status"] == "open"' || fail "ledger new" "$(cat "$tmp/out")"
expect_rc "merge again with the ledger: known only (exit 0)" 0 "$SSFUZZ" merge -o "$tmp/m" --ledger "$tmp/known/ledger.json" --update "$tmp"/art/shard-*
grep -q 'triage: 0 new, 0 regressed, 1 known' "$tmp/out" && pass "... triage says known" || fail "ledger known" "$(tail -2 "$tmp/out")"

# --- the CI matrix's merge step: every artifact under one directory, triage's outputs after --
mkdir -p "$tmp/dl"
for i in 0 1 2 3; do cp -r "$tmp/art/shard-$i" "$tmp/dl/ssfuzz-shard-$i"; done
expect_rc "merge a directory of artifacts, triage's --junit after --" 1 "$SSFUZZ" merge -o "$tmp/ci" "$tmp/dl" \
    --ledger "$tmp/ci-known/ledger.json" --update -- --junit "$tmp/ci/findings.xml" --verdict "$tmp/ci/verdict.json"
py "... 4 of 4 shards found under it" "$tmp/ci/summary.json" 'd["shards"]["present"] == 4 and d["cases"] == 8000'
[ -s "$tmp/ci/findings.xml" ] && py "... and triage wrote its verdict" "$tmp/ci/verdict.json" '"new" in json.dumps(d)' \
    || fail "triage outputs after --" "$(ls "$tmp/ci")"
