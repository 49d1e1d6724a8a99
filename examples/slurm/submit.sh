#!/usr/bin/env bash
# Submits an ssfuzz campaign as a Slurm job array and the merge job that depends on it.
#
#   SSFUZZ=/shared/ssfuzz examples/slurm/submit.sh [options] OUT [FUZZ-OPTIONS...]
#
#   --gpu            gpu-array.sbatch (one GPU per task) instead of cpu-array.sbatch
#   --tasks N        array tasks, one shard each (default 8)
#   --time LIMIT     each task's time limit, as sbatch --time takes it (default 1:00:00);
#                    the campaign runs until a margin before it
#   --cpus N         CPUs per task, one fuzz worker each (default 4; GPU tasks: 2)
#   --ledger FILE    the merge job records the findings in this ledger (merge --update)
#   --sbatch ARG     one more sbatch option for both jobs (repeatable: --partition=..., --account=...)
#
# OUT must be on a filesystem every node sees (NFS, Lustre, GPFS, ...); logs go to OUT/logs/.
# Prints the two job ids; the merged OUT/summary.json is there when the second one ends.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${SSFUZZ:?set SSFUZZ to the ssfuzz binary, by a path every node can read}"
kind=cpu tasks=8 limit=1:00:00 cpus='' ledger='' extra=()
while [ $# -gt 0 ]; do
    case $1 in
    --gpu) kind=gpu ;;
    --tasks) tasks=$2; shift ;;
    --time) limit=$2; shift ;;
    --cpus) cpus=$2; shift ;;
    --ledger) ledger=$2; shift ;;
    --sbatch) extra+=("$2"); shift ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) echo "submit.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
out=${1:?usage: submit.sh [options] OUT [FUZZ-OPTIONS...] (--help)}
shift
case $tasks in '' | *[!0-9]* | 0) echo "submit.sh: --tasks must be a positive number" >&2; exit 2 ;; esac
[ -n "$cpus" ] || { [ $kind = gpu ] && cpus=2 || cpus=4; }
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)   # the jobs may start elsewhere: an absolute path
export SSFUZZ

array=$(sbatch --parsable --array="0-$((tasks - 1))" --time="$limit" --cpus-per-task="$cpus" \
        --output="$out/logs/%A_%a.out" ${extra[@]+"${extra[@]}"} "$here/$kind-array.sbatch" "$out" "$@")
array=${array%%;*}   # "JOBID;CLUSTER" on a federation
merge_args=()
[ -n "$ledger" ] && merge_args=(--ledger "$ledger" --update)
merge=$(sbatch --parsable --dependency="afterany:$array" --output="$out/logs/merge-%j.out" \
        ${extra[@]+"${extra[@]}"} "$here/merge.sbatch" "$out" ${merge_args[@]+"${merge_args[@]}"})
merge=${merge%%;*}
echo "array $array ($tasks $kind tasks), merge $merge (afterany), out $out"
