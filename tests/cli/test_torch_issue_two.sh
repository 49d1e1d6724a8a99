#!/usr/bin/env bash
# `export --issue` of a two-inputs finding with src aliased (docs/torch.md, "export --issue"): the
# bug may show only when x and src reach the compiled function as two inputs viewing one storage,
# so the one-input user repro agrees. The report then writes the two-input user form
# (`def f(x, src)`, the storage as `base`, the call on two views of it) and says which form
# reproduced; its code block, run in a fresh interpreter of each release that has the bug
# (corpus/torch-inductor-aliased-inputs-shift-clone.json: 2.14.1 and 2.15.0), prints the wrong
# values. Every python of SSFUZZ_TORCH_PYTHONS (default build/torch-*/bin/python) with
# torch.compile is tried; without one the compile checks skip, and a torch without compile
# (Debian's 1.13) still gets a clean report.
set -u
. "$(dirname "$0")/lib/common.sh"

case_two=corpus/torch-inductor-aliased-inputs-shift-clone.json
repro_of() { awk '/^```python$/{f=1; next} /^```$/{f=0} f' "$1"; }

mapfile -t pys < <(compile_pythons)

# Without torch.compile the script runs nothing in the case's mode: a clean report, no repro claimed.
if /usr/bin/python3 -c 'import torch, sys; sys.exit(1 if hasattr(torch, "compile") else 0)' 2>/dev/null; then
    "$SSFUZZ" --python /usr/bin/python3 export --issue "$tmp/eager.md" -q "$case_two" 2>"$tmp/e"; rc=$?
    [ "$rc" = 0 ] && grep -q '^# ssfuzz: the case did not run as user code' "$tmp/eager.md" &&
        pass "export --issue of a two-inputs finding under a torch without compile: a clean report, exit 0" ||
        fail "export --issue without torch.compile" "exit $rc: $(cat "$tmp/e") $(head -3 "$tmp/eager.md")"
fi
if [ ${#pys[@]} = 0 ]; then
    echo "skip torch-issue-two compile checks: no python with torch.compile in ${SSFUZZ_TORCH_PYTHONS:-build/torch-*/bin/python} (make torch-env)"
    exit 0
fi

args=()
for p in "${pys[@]}"; do args+=(--python "$p"); done
"$SSFUZZ" "${args[@]}" export --issue "$tmp/two.md" -q "$case_two" 2>"$tmp/e"; rc=$?
repro_of "$tmp/two.md" >"$tmp/repro.py"
n=$(grep -c . "$tmp/repro.py")
if [ "$rc" = 0 ] && [ "$n" -le 10 ] && grep -qx 'def f(x, src):' "$tmp/repro.py" && grep -qx '    x\[:, :1\] = src.clone()' "$tmp/repro.py" &&
   grep -q '^base = torch.arange(61, dtype=torch.int8)$' "$tmp/repro.py" && grep -q '^f(.*base.*, .*base.*)$' "$tmp/repro.py" &&
   grep -q '^# torch.compile writes wrong values for `x\[:, :1\] = src.clone()` with `x` and `src` two inputs viewing one storage' "$tmp/two.md" &&
   grep -q '^The repro is the two-input user form (`user-two-inputs`).*The one-input form .* agrees here\.$' "$tmp/two.md" &&
   ! grep -q 'did \*\*not\*\* reproduce' "$tmp/two.md" && grep -q 'user-two-inputs: differ, stage inductor' "$tmp/two.md"
then pass "export --issue of a two-inputs finding: a $n-line repro with def f(x, src) on two views of base, the form named"
else fail "export --issue of a two-inputs finding" "exit $rc, $n repro lines: $(cat "$tmp/e") $(head -24 "$tmp/two.md")"; fi
want=$(sed -n 's/.*# expected \(\[.*\]\)$/\1/p' "$tmp/repro.py")
for p in "${pys[@]}"; do
    ver=$("$p" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null)
    got=$("$p" "$tmp/repro.py" 2>/dev/null)
    case $ver in
    2.14.*|2.15.*)   # the releases the corpus case is wrong on (its expect.fail: torch >=2.14)
        [ "$want" = "[25, 30, 35]" ] && [ "$got" = "[0, 5, 10]" ] &&
            pass "export --issue: the two-input repro, run by hand under torch $ver, prints $got (expected $want)" ||
            fail "export --issue: the two-input repro reproduces under torch $ver" "printed '$got', expected '$want'" ;;
    *) [ -n "$got" ] && pass "export --issue: the two-input repro runs under torch $ver (prints $got; expected $want)" ||
           fail "export --issue: the two-input repro runs under torch $ver" "printed nothing" ;;
    esac
done

# A finding in another form runs the one-input user form alone, as before: found in x-input, this
# case agrees everywhere (user-two-inputs, which is wrong, is not run), so there is nothing to report.
sed 's/"form": "two-inputs"/"form": "x-input"/' "$case_two" >"$tmp/x-input.json"
"$SSFUZZ" --python "${pys[0]}" export --issue "$tmp/one.md" -q "$tmp/x-input.json" 2>"$tmp/e"; rc=$?
if [ "$rc" = 0 ] && grep -q '^# ssfuzz: no wrong result here: nothing to report' "$tmp/one.md" &&
   grep -q 'x-input: agree; torch.compile(dynamic=False) on cpu, user: agree |$' "$tmp/one.md" && ! grep -q 'two-inputs' "$tmp/one.md"
then pass "export --issue of the same case found in form x-input: the one-input user form only, nothing to report"
else fail "export --issue of an x-input finding runs the one-input form only" "exit $rc: $(cat "$tmp/e") $(cat "$tmp/one.md")"; fi
