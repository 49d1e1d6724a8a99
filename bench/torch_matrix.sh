#!/usr/bin/env bash
# torch_matrix.sh - which spellings are safe on which PyTorch release: every
# spelling x mode (eager-cpu, compile-cpu, compile-dynamic-cpu) x torch
# (one python per release), a fixed budget of generated cases each, printed as
# a markdown table of findings (unique signatures / hits), refusals and cases/s.
#   bench/torch_matrix.sh [-j JOBS] [--eager-cases N] [--compile-cases N] [--seed S] PYTHON...
# (make torch-env TORCH=X gives one python per release.)
set -u
SSFUZZ=${SSFUZZ:-build/ssfuzz}
jobs=2 eager=2000 compiled=45 seed=1
while [ $# -gt 0 ]; do
    case $1 in
        -j) jobs=$2; shift 2 ;;
        --eager-cases) eager=$2; shift 2 ;;
        --compile-cases) compiled=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-j N] [--eager-cases N] [--compile-cases N] [--seed S] PYTHON..." >&2; exit 2; }
work=${TORCH_MATRIX_OUT:-$(mktemp -d)}
spellings="setitem setitem-clone copy scatter-copy scatter-return clone-scatter index-put"
modes=${TORCH_MATRIX_MODES:-eager-cpu compile-cpu compile-dynamic-cpu}
touch "$work/jobs"        # appended to: a second run adds rows to the same table
for py in "$@"; do
    ver=$("$py" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null) || { echo "skip $py: no torch" >&2; continue; }
    for m in $modes; do
        for s in $spellings; do
            n=$eager; case $m in compile*) n=$compiled ;; esac
            echo "$py $ver $m $s $n" >>"$work/jobs.new"
        done
    done
done
run_one() {   # py ver mode spelling cases
    local dir="$work/$2/$3/$4"
    mkdir -p "$dir"
    "$SSFUZZ" --python "$1" fuzz -t "torch:$3:$4" --seed "$seed" --cases "$5" --minimize-time 5 \
        -q -o "$dir" >"$dir/log" 2>&1
    echo "$?" >"$dir/rc"
}
export -f run_one; export SSFUZZ work seed
xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ <"$work/jobs.new"
cat "$work/jobs.new" >>"$work/jobs" && rm -f "$work/jobs.new"
python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
rows = {}
for line in open(os.path.join(work, "jobs")):
    py, ver, mode, spelling, n = line.split()
    d = os.path.join(work, ver, mode, spelling)
    if not os.path.exists(os.path.join(d, "rc")):
        continue                     # interrupted: not part of the table
    try:
        s = json.load(open(os.path.join(d, "summary.json")))
        s = s.get("totals", s)
    except Exception:
        rc = open(os.path.join(d, "rc")).read().strip()
        cell = "n/a" if rc == "3" else "error (exit %s)" % rc
    else:
        kinds = {}
        for f in s.get("findings", []):
            kinds[f["signature"]] = kinds.get(f["signature"], 0) + f["hits"]
        found = ", ".join("%s %d" % kv for kv in sorted(kinds.items())) or "none"
        cell = "%s; %d refused; %.1f/s" % (found, s.get("refused", 0), s.get("cases_per_second", 0))
    rows.setdefault((mode, spelling), {})[ver] = cell
vers = sorted({v for r in rows.values() for v in r}, key=lambda v: [int(x) for x in v.split(".")[:3] if x.isdigit()])
print("| mode | spelling | " + " | ".join("torch " + v for v in vers) + " |")
print("|---|---|" + "---|" * len(vers))
for (mode, spelling), r in rows.items():
    print("| %s | `%s` | %s |" % (mode, spelling, " | ".join(r.get(v, "") for v in vers)))
PY
echo "(runs in $work)" >&2
