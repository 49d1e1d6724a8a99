#!/usr/bin/env bash
# A real one-node Slurm (Debian's slurm-wlm and munge: scripts/deps.sh slurm) runs what users
# submit: examples/slurm/submit.sh sends a 4-task array of short campaigns (task 3 on a mutant,
# so there is something to find) and the merge job depending on it (afterany, with a ledger);
# the test waits (120 s at most) and checks one merged summary (4 of 4 shards), one reproducer
# per bug and the ledger. Then one long task is sent Slurm's SIGTERM (scancel --signal=TERM
# --full, as before a time limit or on preemption): the campaign must stop cleanly, write its
# summary, and the task end COMPLETED with exit 0; and one is requeued (scontrol requeue): it must
# restart and go on from where its shard stopped (fuzz --resume).
# The daemons run from a config in a temporary directory (proctrack/linuxproc, task/none,
# select/cons_tres, no accounting, state and spool there, SLURM_CONF exported): munged as the
# munge user (unless one already answers), slurmctld -D and slurmd -D, each stopped by its pid
# on exit. Skips, saying why, unless root with slurm-wlm and munge installed.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"
export PATH=$PATH:/usr/sbin:/sbin
[ "$(id -u)" = 0 ] || { echo "skip slurm: needs root (slurmd runs jobs as their user, munged as munge)"; exit 0; }
for c in slurmctld slurmd sbatch squeue scontrol munged munge; do
    command -v $c >/dev/null || { echo "skip slurm: $c not installed (scripts/deps.sh slurm: slurm-wlm, munge)"; exit 0; }
done
command -v python3 >/dev/null || { echo "skip slurm: python3 not installed"; exit 0; }
id munge >/dev/null 2>&1 || { echo "skip slurm: no munge user (reinstall munge)"; exit 0; }

SSFUZZ=$(cd "$(dirname "$SSFUZZ")" && pwd)/$(basename "$SSFUZZ")
d="$tmp/slurm"
mkdir -p "$d/state" "$d/spool" "$d/log"
chmod 755 "$tmp" "$d"
pids=()
cleanup() {   # the daemons this test started, by pid
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT

# Two free ports (another Slurm may run here).
read -r p1 p2 < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
cat >"$d/slurm.conf" <<EOF
ClusterName=ssfuzz-test
SlurmctldHost=$host
SlurmctldPort=$p1
SlurmdPort=$p2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
KillWait=10
NodeName=$host CPUs=$(nproc) RealMemory=512 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$d/slurm.conf"

t0=$(date +%s.%N)
if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    echo "# munged already answers: using it"
else
    mkdir -p /run/munge && chown munge:munge /run/munge && chmod 755 /run/munge
    runuser -u munge -- munged -F >"$d/log/munged.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 50); do munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi
slurmctld -D -f "$SLURM_CONF" >"$d/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$d/log/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 1 150); do state=$(sinfo -h -o %T 2>/dev/null); [ "$state" = idle ] && break; sleep 0.1; done
if [ "$state" != idle ]; then
    fail "a one-node Slurm starts" "node '$state' after 15 s; $(tail -3 "$d/log/slurmctld.log" "$d/log/slurmd.log" 2>&1 | tr '\n' ' ')"
    exit 0
fi
pass "a one-node Slurm starts: node idle in $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"

# waits until none of the jobs is queued or running; 0, or 1 after `limit` seconds
wait_jobs() {   # limit jobid...
    local limit=$1 ids; shift
    ids=$(IFS=,; echo "$*")
    local q
    for _ in $(seq 1 $((limit * 5))); do
        q=$(squeue -h -j "$ids" 2>&1) && [ -z "$q" ] && return 0
        sleep 0.2
    done
    return 1
}
job_field() { scontrol show job "$1" 2>/dev/null | grep -o "$2=[^ ]*" | head -n 1 | cut -d= -f2; }

# --- a 4-task array (task 3 on a mutant) and its merge job, through submit.sh
out="$tmp/campaign"
t1=$(date +%s.%N)
if ! SSFUZZ_TASK_TARGETS="emu:reinplace emu:reinplace emu:index emu:mut-alias-unchecked" \
    bash examples/slurm/submit.sh --tasks 4 --cpus 1 --time 2 --ledger "$tmp/known/ledger.json" "$out" \
    --cases 20000 >"$tmp/submit.out" 2>&1; then
    fail "submit.sh submits the array and the merge" "$(cat "$tmp/submit.out")"
    exit 0
fi
array=$(sed -n 's/^array \([0-9]*\) .*, merge \([0-9]*\) .*/\1/p' "$tmp/submit.out")
merge=$(sed -n 's/^array \([0-9]*\) .*, merge \([0-9]*\) .*/\2/p' "$tmp/submit.out")
pass "submit.sh: $(cat "$tmp/submit.out")"
if wait_jobs 120 "$array" "$merge"; then
    pass "the array and the merge ran in $(python3 -c "import time; print(round(time.time() - $t1, 1))") s"
else
    fail "the array and the merge end within 120 s" "$(squeue -h 2>&1 | head -5 | tr '\n' ' ')"
fi
bad=
for i in 0 1 2 3; do
    ec=$(job_field "${array}_$i" ExitCode) st=$(job_field "${array}_$i" JobState)
    [ "$ec" = 0:0 ] && [ "$st" = COMPLETED ] || bad="$bad task $i: $st $ec: $(tail -3 "$out/logs/${array}_$i.out" 2>&1 | tr '\n' ' ')"
done
[ -z "$bad" ] && pass "4 tasks ended COMPLETED, exit 0:0 (task 3's findings too)" || fail "4 tasks completed with exit 0" "$bad"
py() {   # name file python-expression over d (the JSON file)
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2" 2>"$tmp/py.err"
    then pass "$1"; else fail "$1" "$(head -c 300 "$2" 2>/dev/null | tr '\n' ' ') $(tail -1 "$tmp/py.err")"; fi
}
py "one merged summary: 4 of 4 shards, 80000 cases, seed from the array's job id" "$out/summary.json" \
    "d['shards'] == {'count': 4, 'present': 4, 'missing': [], 'mixed_counts': False} and d['cases'] == 80000 and d['seed'] == '$array' and len(d['campaigns']) == 4"
py "merged: the mutant's bug once" "$out/summary.json" \
    'd["unique_findings"] == 1 and any(f["target"] == "emu:mut-alias-unchecked" and f["reproducer"] for f in d["findings"])'
n=$(ls "$out"/mismatch-*.json 2>/dev/null | wc -l)
[ "$n" = 1 ] && pass "one reproducer for the bug" || fail "one reproducer for the bug" "$n files: $(ls "$out")"
py "the ledger records it, open" "$tmp/known/ledger.json" \
    'len(d["findings"]) == 1 and d["findings"][0]["target"] == "emu:mut-alias-unchecked" and d["findings"][0]["status"] == "open"'
grep -q '^new .*emu:mut-alias-unchecked' "$out/logs/merge-$merge.out" && pass "the merge job's triage calls it new" \
    || fail "merge job log" "$(tail -5 "$out/logs/merge-$merge.out")"

# --- Slurm's SIGTERM (as before a time limit, or on preemption): a clean stop, exit 0
out2="$tmp/term"
mkdir -p "$out2/logs"
job=$(SSFUZZ=$SSFUZZ sbatch --parsable --array=0-0 --time=5 --cpus-per-task=1 --output="$out2/logs/%A_%a.out" \
      examples/slurm/cpu-array.sbatch "$out2" --target emu:reinplace 2>"$tmp/sb.err")
job=${job%%;*}
for _ in $(seq 1 100); do [ "$(job_field "${job}_0" JobState)" = RUNNING ] && break; sleep 0.2; done
sleep 3
scancel --signal=TERM --full "${job}_0"
if wait_jobs 60 "$job"; then pass "SIGTERM: the task ended"; else fail "SIGTERM: the task ends within 60 s" "$(squeue -h)"; fi
ec=$(job_field "${job}_0" ExitCode) st=$(job_field "${job}_0" JobState)
[ "$ec" = 0:0 ] && [ "$st" = COMPLETED ] && pass "SIGTERM: COMPLETED, exit 0:0" || fail "SIGTERM exit" "$st $ec $(cat "$tmp/sb.err")"
py "SIGTERM: the shard's summary written, stopped by SIGTERM, with where to go on" "$out2/summary-shard-0.json" \
    'd["stopped_by"] == "SIGTERM" and d["cases"] > 0 and int(d["campaigns"][0]["next_case"]) > 0'
grep -q 'ssfuzz task 0 of 1 .*s left' "$out2/logs/${job}_0.out" && pass "the campaign's time came from the job's limit" \
    || fail "time from the limit" "$(head -3 "$out2/logs/${job}_0.out")"

# --- a requeued task (scontrol requeue; preemption with PreemptMode=REQUEUE alike) goes on
out3="$tmp/requeue"
mkdir -p "$out3/logs"
job=$(SSFUZZ=$SSFUZZ sbatch --parsable --array=0-0 --time=5 --cpus-per-task=1 --open-mode=append \
      --output="$out3/logs/%A_%a.out" examples/slurm/cpu-array.sbatch "$out3" --target emu:reinplace --time 3)
job=${job%%;*}
for _ in $(seq 1 100); do [ "$(job_field "${job}_0" JobState)" = RUNNING ] && break; sleep 0.2; done
sleep 2
scontrol requeue "${job}_0"
for _ in $(seq 1 100); do [ "$(job_field "${job}_0" JobState)" = PENDING ] && break; sleep 0.2; done
scontrol update JobId="${job}_0" StartTime=now   # Slurm holds a requeued job about two minutes
if wait_jobs 60 "$job"; then pass "requeue: the task ran again and ended"; else fail "requeue: ends within 60 s" "$(squeue -h)"; fi
[ "$(job_field "${job}_0" Restarts)" = 1 ] && grep -q 'restart 1' "$out3/logs/${job}_0.out" \
    && pass "requeue: restarted once (SLURM_RESTART_COUNT 1)" || fail "requeue restarts" "$(tail -3 "$out3/logs/${job}_0.out")"
py "requeue: the second run went on where the stopped one left off" "$out3/summary-shard-0.json" \
    'len(d["campaigns"]) == 2 and d["campaigns"][0]["stopped_by"] == "SIGTERM" and int(d["campaigns"][0]["next_case"]) > 0 and d["campaigns"][1]["first_case"] == d["campaigns"][0]["next_case"]'
