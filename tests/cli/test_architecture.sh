#!/usr/bin/env bash
# docs/architecture.md holds for this tree (scripts/check_arch_doc.py): every source file
# under harness/, reference/, kernels/, include/ is named in it, every file it names exists,
# every function or macro it names in backticks is in the sources, each rule of "Where each
# rule lives" is in the files its row names, its layer table is the Makefile's LAYERS, and
# the torch engine's counts ("its 80 targets", "ten modes by eight spellings") are what
# `ssfuzz targets` lists. ARCH_DOC checks another copy of the page. Then the checker is
# shown to fail on copies of the page with one claim made false each.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
doc=${ARCH_DOC:-docs/architecture.md}
if ! command -v python3 >/dev/null; then echo "skip architecture: no python3"; exit 0; fi
layers=$(make -s print-layers 2>/dev/null)
targets=()   # the checker's second argument: `ssfuzz targets` output, when the binary runs
if [ -x "$SSFUZZ" ] && "$SSFUZZ" targets >"$tmp/targets" 2>/dev/null; then targets=("$tmp/targets")
else echo "skip torch-count: no runnable $SSFUZZ"; fi

# The page itself: the checker's own ok / not ok lines.
LAYERS=$layers python3 scripts/check_arch_doc.py "$doc" "${targets[@]}" | grep -v '^skip torch-count: no `ssfuzz'

# Each check fails on a copy with one claim made false (the checker reads a copy's
# Markdown links as the page's, from docs/).
mutant() {   # name check-name sed-expression: the check must fail on the edited copy
    local name=$1 check=$2 expr=$3 copy=$tmp/architecture.md
    sed -e "$expr" docs/architecture.md >"$copy"
    if cmp -s docs/architecture.md "$copy"; then fail "$name" "the edit changed nothing"; return; fi
    LAYERS=$layers python3 scripts/check_arch_doc.py "$copy" "${targets[@]}" >"$tmp/m" 2>&1
    local rc=$?
    if [ "$rc" != 0 ] && grep -q "^not ok $check" "$tmp/m"; then pass "$name"
    else fail "$name" "exit $rc; $(grep -v '^ok ' "$tmp/m" | head -3 | tr '\n' ';')"; fi
}
mutant "a source file left unnamed is caught" files-named 's/`ss_overlap.c`/`ss_overlap_gone.c`/g; s/ss_overlap\.c/ss_overlap_gone.c/g'
mutant "a renamed file is caught" paths-exist 's/`harness\/core\/ss_program_cmp.c`/`harness\/core\/ss_program_compare.c`/'
mutant "a bare name outside its row's folder is caught" paths-exist 's/^| `kernels\/ss_emu.c`, `ss_emu_tile.c`/| `kernels\/ss_emu.c`, `ss_emu_tiles.c`/'
mutant "a made-up function is caught" functions-exist 's/`ss_slice_clamp`/`ss_slice_clamps`/'
mutant "a renamed static function is caught" functions-exist 's/`judge_write`/`judge_writes`/'
mutant "a rule placed in the wrong file is caught" rules-located 's/`check_src` in `harness\/core\/ss_plan_build.c`/`check_src` in `harness\/core\/ss_overlap.c`/'
mutant "a layer table out of order is caught" layer-order 's/^| `reference\/` |/| `kernels-x\/` |/'
if [ ${#targets[@]} -gt 0 ]; then
    mutant "a wrong target count is caught" torch-count 's/its 80 targets/its 81 targets/'
    mutant "a wrong mode count is caught" torch-count 's/ten modes by eight spellings/nine modes by eight spellings/'
fi
