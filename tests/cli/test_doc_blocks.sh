#!/usr/bin/env bash
# Every shell block (```sh, ```bash, ```console, ```shell) in README.md and
# docs/*.md is either run by a test or says why it is not, on the line just
# before its fence:
#   <!-- run by: tests/cli/test_X.sh -->     a test that really runs those commands
#   <!-- not run here: REASON -->            e.g. needs a GPU, a 60-second campaign
# Checks: (a) no shell block lacks both (each failure names FILE:LINE); (b) a
# `run by:` names a script that exists and mentions the doc file (this script
# reads every doc, so it qualifies for all of them); (c) the blocks marked
# `run by: tests/cli/test_doc_blocks.sh` run here, one "ok"/"not ok" line each.
#
# How (c) runs a block: the blocks of one doc file run in order in one scratch
# directory (each starts where the previous one ended, so `cd mine` carries),
# which links corpus/, examples/ and python/ from the checkout. `build/ssfuzz`
# (and `$SS/build/ssfuzz`) stand for the binary under test ($SSFUZZ),
# `/path/to/ssfuzz` and $SS for this checkout. A block passes when it ends
# within BLOCK_TIMEOUT seconds (default 60) and no command in it exits above 1:
# ssfuzz's 0 and 1 are results (agree, a finding), 2 and 3 are errors
# (usage or invalid case, target unavailable), as the README's exit codes say.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
root=$PWD
case $SSFUZZ in /*) ;; *) SSFUZZ=$root/$SSFUZZ ;; esac
BLOCK_TIMEOUT=${BLOCK_TIMEOUT:-60}
self=tests/cli/test_doc_blocks.sh
docs=(README.md docs/*.md)

# Split the docs into blocks: $tmp/blocks/N.sh holds block N's text, and
# $tmp/index one line per shell block: N FILE LINE KIND ARG (tab-separated;
# KIND run, notrun or none; LINE is the fence's).
mkdir -p "$tmp/blocks"
awk -v dir="$tmp/blocks" '
    FNR == 1 { fence = 0; prev = "" }
    /^```/ {
        if (!fence) {
            fence = 1; shell = ($0 ~ /^```(sh|bash|console|shell)[ \t]*$/)
            if (shell) {
                n++; out = dir "/" n ".sh"; printf "" > out
                kind = "none"; arg = ""
                if (match(prev, /^<!-- run by: [^ ]+ -->$/)) { kind = "run"; arg = prev; sub(/^<!-- run by: /, "", arg); sub(/ -->$/, "", arg) }
                else if (match(prev, /^<!-- not run here: .*[^ ].* -->$/)) { kind = "notrun"; arg = prev; sub(/^<!-- not run here: /, "", arg); sub(/ -->$/, "", arg) }
                printf "%d\t%s\t%d\t%s\t%s\n", n, FILENAME, FNR, kind, arg
            }
            prev = $0; next
        }
        fence = 0; if (shell) close(out); shell = 0; prev = $0; next
    }
    fence && shell { print > out }
    { prev = $0 }
' "${docs[@]}" >"$tmp/index"
total=$(wc -l <"$tmp/index")
[ "$total" -ge 5 ] || fail "shell blocks found in README.md and docs/" "only $total"

# (a) every shell block is marked
bad=0
while IFS=$'\t' read -r n file line kind arg; do
    [ "$kind" = none ] || continue
    bad=$((bad + 1))
    fail "$file:$line: shell block marked" "put <!-- run by: tests/cli/test_X.sh --> or <!-- not run here: REASON --> on the line before its fence"
done <"$tmp/index"
[ "$bad" = 0 ] && pass "every shell block in README.md and docs/ is marked ($total blocks)"

# (b) every `run by:` names an existing test that mentions the doc
bad=0
while IFS=$'\t' read -r n file line kind arg; do
    [ "$kind" = run ] || continue
    if [ ! -f "$arg" ]; then
        bad=$((bad + 1)); fail "$file:$line: run by $arg" "no such script"
    elif [ "$arg" != "$self" ] && ! grep -qF "$file" "$arg"; then
        bad=$((bad + 1)); fail "$file:$line: run by $arg" "the script does not mention $file"
    fi
done <"$tmp/index"
[ "$bad" = 0 ] && pass "every run-by marker names a test that exists and reads its doc"

# (c) run this script's blocks
ran=0
while IFS=$'\t' read -r n file line kind arg; do
    [ "$kind" = run ] && [ "$arg" = "$self" ] || continue
    ran=$((ran + 1))
    work=$tmp/run/${file//\//_}
    if [ ! -d "$work" ]; then
        mkdir -p "$work"
        ln -s "$root/corpus" "$root/examples" "$root/python" "$work/"
        echo "$work" >"$work.cwd"
    fi
    fails=$tmp/fails.$n
    : >"$fails"
    {
        echo 'ssfuzz_doc() { "$SSFUZZ" "$@"; local rc=$?; [ "$rc" -le 1 ] || echo "ssfuzz $*: exit $rc" >>"$DOC_FAILS"; return "$rc"; }'
        echo "trap 'rc=\$?; [ \"\$rc\" -le 1 ] || echo \"\$BASH_COMMAND: exit \$rc\" >>\"\$DOC_FAILS\"' ERR"
        echo 'trap '\''pwd >"$DOC_CWD"'\'' EXIT'
        printf 'cd %q || exit 2\n' "$(cat "$work.cwd")"
        sed -e 's|/path/to/ssfuzz|$SS|g' -e 's|\$SS/build/ssfuzz|ssfuzz_doc|g' -e 's|build/ssfuzz|ssfuzz_doc|g' "$tmp/blocks/$n.sh"
    } >"$tmp/script.$n"
    SS=$root SSFUZZ=$SSFUZZ DOC_FAILS=$fails DOC_CWD=$work.cwd \
        timeout "$BLOCK_TIMEOUT" bash "$tmp/script.$n" >"$tmp/out.$n" 2>&1
    rc=$?
    name="doc block $file:$line runs"
    if [ "$rc" = 124 ]; then
        fail "$name" "timed out after ${BLOCK_TIMEOUT}s"
    elif [ "$rc" -gt 1 ] || [ -s "$fails" ]; then
        fail "$name" "exit $rc; $(head -3 "$fails" | tr '\n' ' ')$(tail -2 "$tmp/out.$n" | tr '\n' ' ' | cut -c1-300)"
    else
        pass "$name"
    fi
done <"$tmp/index"
[ "$ran" -ge 1 ] || fail "blocks run by $self" "none marked"
