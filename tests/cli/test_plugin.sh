#!/usr/bin/env bash
# Plugins (include/ssfuzz_plugin.h) end to end: the naive example is found and
# minimized, replays with --plugin and says "not loaded" without it; bad
# plugins fail to load in one line (exit 2) or become findings while the
# campaign goes on; the CUDA example builds and is unavailable without a GPU.
set -u
. "$(dirname "$0")/lib/common.sh"
PY=${PYTHON:-python3}
CC=${CC:-cc}

if ! make -s plugins >"$tmp/make.log" 2>&1 || [ ! -f build/plugins/naive.so ]; then
    fail "make plugins" "$(tail -3 "$tmp/make.log")"; exit 0
fi
pass "make plugins builds the host example"
NAIVE=build/plugins/naive.so

# --- the host example: an aliasing mismatch within 10 s, minimized, replayable ---
"$SSFUZZ" fuzz --plugin "$NAIVE" --target naive:copy --seed 1 --time 10 -q -o "$tmp/r" >"$tmp/fuzz.out" 2>&1
rc=$?
small=$(ls "$tmp"/r/mismatch-naive_copy-*.json 2>/dev/null | head -1)
if [ "$rc" = 1 ] && [ -n "$small" ] && "$PY" - "$small" <<'PYEOF'
import json, os, sys
c = json.load(open(sys.argv[1]))
assert len(c["input"]["sizes"]) == 1, c["input"]
n = max(c["storage"]["numel"], c.get("src_storage", {}).get("numel", 0))
assert n <= 4, n
assert c["src"]["storage"] == "input", c["src"]
m = c["meta"]
assert m["signature"] == "mismatch" and m["minimized"] is True and m["target"] == "naive:copy", m
assert m["plugin"]["name"] == "naive" and m["plugin"]["kernel"] == "copy", m["plugin"]
assert os.path.samefile(m["plugin"]["path"], "build/plugins/naive.so"), m["plugin"]["path"]
PYEOF
then pass "naive:copy: aliasing mismatch in 10 s, minimized to 1-D, <= 4 elements, meta.plugin"
else fail "naive:copy finding" "exit $rc; $(tail -3 "$tmp/fuzz.out"); $(ls "$tmp/r" 2>&1 | head -5)"; fi
grep -q "reproduce: .*--plugin .*naive.so --target naive:copy" "$tmp/fuzz.out" \
    && pass "the reproduce line loads the plugin" || fail "reproduce line" "$(grep reproduce "$tmp/fuzz.out")"
if [ -n "$small" ]; then
    for bin in "$SSFUZZ" "$SSFUZZ_ASAN"; do
        expect_rc "replay with --plugin: mismatch (exit 1) [$bin]" 1 "$bin" replay --plugin "$NAIVE" "$small"
        grep -q "MISMATCH naive:copy" "$tmp/out" "$tmp/err" && pass "replay runs the reproducer's plugin target" \
            || fail "replay runs naive:copy" "$(cat "$tmp/err")"
        expect_rc "replay without the plugin: exit 3 [$bin]" 3 "$bin" replay "$small"
        if grep -q "plugin naive is not loaded.*--plugin .*naive.so" "$tmp/out" "$tmp/err"; then
            pass "without the plugin: says not loaded, names the path"
        else fail "not loaded line" "$(cat "$tmp/out" "$tmp/err")"; fi
    done
    SSFUZZ_PLUGINS=$NAIVE expect_rc "SSFUZZ_PLUGINS loads it too" 1 "$SSFUZZ" replay "$small"
    expect_rc "explain without the plugin: exit 3" 3 "$SSFUZZ" explain "$small"
    grep -q "plugin naive is not loaded" "$tmp/out" "$tmp/err" && pass "explain says not loaded" || fail "explain not loaded" "$(cat "$tmp/err")"
    expect_rc "explain with the plugin marks its wrong cells (exit 1)" 1 "$SSFUZZ" --plugin "$NAIVE" explain "$small"
    grep -q "^naive:copy: mismatch" "$tmp/out" && pass "explain runs naive:copy" || fail "explain naive:copy" "$(tail -3 "$tmp/out")"
    expect_rc "regress without the plugin: exit 3" 3 "$SSFUZZ" regress "$small"
    expect_rc "minimize with the plugin" 0 "$SSFUZZ" minimize --plugin "$NAIVE" "$small" -t naive:copy -o "$tmp/again.json"
fi
expect_rc "a plugin target without its plugin is unknown (exit 2)" 2 "$SSFUZZ" fuzz --target naive:copy --cases 1
"$SSFUZZ" --plugin "$NAIVE" targets >"$tmp/targets" 2>&1
grep -q "^naive:copy  *plugin  *available$" "$tmp/targets" && pass "targets lists naive:copy" || fail "targets" "$(tail -3 "$tmp/targets")"

# --- plugins that do not load: one line, exit 2 ---
plugin() {   # NAME BODY: build $tmp/NAME.so from a C body that includes the header
    printf '#include <stdint.h>\n#include <string.h>\n#include <unistd.h>\n#include "ssfuzz_plugin.h"\n%s\n' "$2" >"$tmp/$1.c"
    "$CC" -std=c11 -O1 -g -fPIC -shared -Iinclude "$tmp/$1.c" -o "$tmp/$1.so" 2>"$tmp/$1.cc" \
        || fail "compile $1" "$(head -3 "$tmp/$1.cc")"
}
desc() {     # PLUGIN-NAME KERNEL RUN [ABI] [SIZE]: a descriptor and its entry point
    printf 'static const ssfuzz_kernel ks[] = {{"%s", SSFUZZ_MEMORY_HOST, %s}};
SSFUZZ_PLUGIN_EXPORT const ssfuzz_plugin *ssfuzz_plugin_v1(void) {
    static const ssfuzz_plugin p = {%s, %s, "%s", ks, 1, 0, 0};
    return &p;
}' "$2" "$3" "${5:-sizeof(ssfuzz_plugin)}" "${4:-SSFUZZ_PLUGIN_ABI_VERSION}" "$1"
}
OKRUN='static int ok(const ssfuzz_case *c, char *m, size_t n) { (void)c; (void)m; (void)n; return SSFUZZ_OK; }'
plugin nosym "int not_the_entry_point(void) { return 1; }"
plugin abi "$OKRUN $(desc abi k ok 99)"
plugin size "$OKRUN $(desc size k ok SSFUZZ_PLUGIN_ABI_VERSION 8)"
plugin dup "$OKRUN $(desc naive copy ok)"
plugin builtin "$OKRUN $(desc emu reinplace ok)"
printf 'not an ELF file\n' >"$tmp/text.so"
bad_load() {  # NAME PATTERN ARGS...: exit 2, exactly one line on stderr, matching PATTERN
    local name=$1 pat=$2; shift 2
    for bin in "$SSFUZZ" "$SSFUZZ_ASAN"; do
        "$bin" "$@" targets >"$tmp/out" 2>"$tmp/err"; local rc=$?
        if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "$pat" "$tmp/err"; then pass "$name [$bin]"
        else fail "$name [$bin]" "exit $rc; $(cat "$tmp/err")"; fi
    done
}
bad_load "missing file" "plugin .*nope.so: cannot open" --plugin "$tmp/nope.so"
bad_load "not a library (dlopen error)" "cannot load:" --plugin "$tmp/text.so"
bad_load "missing symbol" "no symbol ssfuzz_plugin_v1" --plugin "$tmp/nosym.so"
bad_load "wrong ABI version" "ABI version 99, this ssfuzz speaks version 1" --plugin "$tmp/abi.so"
bad_load "struct_size mismatch names both numbers" "struct_size is 8 bytes, this ssfuzz's is [0-9]" --plugin "$tmp/size.so"
bad_load "duplicate plugin target" "duplicate target naive:copy (already loaded from .*naive.so)" \
    --plugin "$NAIVE" --plugin "$tmp/dup.so"
bad_load "a plugin target shadowing a built-in" "duplicate target emu:reinplace (a built-in target)" \
    --plugin "$tmp/builtin.so"
SSFUZZ_PLUGINS="$tmp/abi.so" expect_rc "a bad SSFUZZ_PLUGINS entry: exit 2" 2 "$SSFUZZ" targets
grep -q "SSFUZZ_PLUGINS" "$tmp/err" && pass "the error says it came from SSFUZZ_PLUGINS" || fail "env error" "$(cat "$tmp/err")"
expect_rc "the same plugin twice is loaded once" 0 "$SSFUZZ" --plugin "$NAIVE" --plugin "$NAIVE" targets

# --- plugins that misbehave: findings, and the campaign goes on ---
# Each is correct (a staged copy) except on cases whose input storage has 7 elements.
GOOD='static void staged(const ssfuzz_case *c) {
    static unsigned char tmp[1 << 20];
    unsigned char *d = c->input_storage; const unsigned char *s = c->src_storage;
    const ssfuzz_view *in = &c->input, *sv = &c->src;
    int dim = (int)(c->dim < 0 ? c->dim + in->ndim : c->dim);
    int64_t st = !c->has_start ? 0 : c->start < 0 ? c->start + in->sizes[dim] : c->start, n = 1, e = (int64_t)c->elem_size;
    st = st < 0 ? 0 : st > in->sizes[dim] ? in->sizes[dim] : st;
    for (int k = 0; k < sv->ndim; k++) n *= sv->sizes[k];
    if (n * e > (int64_t)sizeof tmp) return;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; i < n; i++) {
            int64_t r = i, so = sv->offset, dof = in->offset;
            for (int k = sv->ndim - 1; k >= 0; k--) {
                int64_t j = r % sv->sizes[k]; r /= sv->sizes[k];
                so += j * sv->strides[k]; dof += (k == dim ? st + j * c->step : j) * in->strides[k];
            }
            if (pass == 0) memcpy(tmp + i * e, s + so * e, (size_t)e);
            else memcpy(d + dof * e, tmp + i * e, (size_t)e);
        }
}'
plugin segv "$GOOD
static int run(const ssfuzz_case *c, char *m, size_t n) { (void)m; (void)n;
    if (c->input_numel == 7) *(volatile int *)0 = 1;
    staged(c); return SSFUZZ_OK; }
$(desc segv k run)"
plugin hang "$GOOD
static int run(const ssfuzz_case *c, char *m, size_t n) { (void)m; (void)n;
    while (c->input_numel == 7) pause();
    staged(c); return SSFUZZ_OK; }
$(desc hang k run)"
plugin guard "$GOOD
static int run(const ssfuzz_case *c, char *m, size_t n) { (void)m; (void)n;
    staged(c); if (c->input_numel == 7) ((unsigned char *)c->input_storage)[-1] ^= 1;
    return SSFUZZ_OK; }
$(desc guard k run)"
plugin err "$GOOD
static int run(const ssfuzz_case *c, char *m, size_t n) {
    if (c->input_numel == 7) { strncpy(m, \"out of shared memory\", n - 1); return SSFUZZ_ERROR; }
    staged(c); return SSFUZZ_OK; }
$(desc err k run)"
misbehave() {  # NAME WHAT FILE-PREFIX BIN EXTRA...: a finding of that kind, and all 300 cases run
    local name=$1 what=$2 prefix=$3 bin=$4; shift 4
    rm -rf "$tmp/m"
    "$bin" fuzz --plugin "$tmp/$name.so" --target "$name:k" --seed 3 --cases 300 --minimize-time 2 -q \
        -o "$tmp/m" "$@" >"$tmp/m.out" 2>&1
    local rc=$?
    if [ "$rc" = 1 ] && ls "$tmp"/m/"$prefix"-"$name"_k-*.json >/dev/null 2>&1 && grep -q "^fuzz: 300 cases" "$tmp/m.out" \
       && ! ls "$tmp"/m/mismatch-* >/dev/null 2>&1; then
        pass "a plugin that $what: $prefix finding, campaign goes on [$bin]"
    else fail "plugin $name [$bin]" "exit $rc; $(tail -4 "$tmp/m.out"); $(ls "$tmp/m")"; fi
}
misbehave segv "segfaults" crash "$SSFUZZ"
misbehave segv "segfaults" crash "$SSFUZZ_ASAN"
misbehave hang "hangs" timeout "$SSFUZZ" --case-timeout 2
misbehave guard "writes into the guard band" guard-band-write "$SSFUZZ"
misbehave guard "writes into the guard band" guard-band-write "$SSFUZZ_ASAN"
misbehave err "returns SSFUZZ_ERROR" crash "$SSFUZZ"
grep -q "out of shared memory" "$tmp"/m/crash-err_k-*.json && pass "an error status keeps the plugin's message" \
    || fail "error message kept" "$(grep detail "$tmp"/m/*.json | head -2)"

# --- the CUDA example: builds here with nvcc; without a GPU, unavailable with the reason ---
if [ -f build/plugins/naive_cuda.so ]; then
    pass "the CUDA example builds (nvcc)"
    "$SSFUZZ" --plugin build/plugins/naive_cuda.so targets >"$tmp/t" 2>&1
    line=$(grep "^naive_cuda:copy " "$tmp/t" | sed 's/^naive_cuda:copy *plugin *//')
    if nvidia-smi >/dev/null 2>&1; then
        expect_rc "naive_cuda:copy fuzzes on the GPU" 1 "$SSFUZZ" fuzz --plugin build/plugins/naive_cuda.so \
            --target naive_cuda:copy --seed 1 --time 20 -q -o "$tmp/cu"
    elif [ -n "$line" ] && [ "$line" != available ]; then
        pass "naive_cuda:copy is unavailable without a GPU, with a reason: $line"
        expect_rc "fuzzing it without a GPU: exit 3" 3 "$SSFUZZ" fuzz --plugin build/plugins/naive_cuda.so \
            --target naive_cuda:copy --cases 5 -o "$tmp/cu"
    else fail "naive_cuda:copy availability" "$line"; fi
else
    command -v nvcc >/dev/null && fail "the CUDA example builds" "$(tail -3 "$tmp/make.log")" \
        || echo "skip the CUDA example: nvcc not found"
fi
