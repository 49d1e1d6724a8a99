#!/usr/bin/env bash
# harness/engines/ss_torch_program.py's unit tests (tests/torch/test_program_module.py)
# under every python here that imports torch: Debian's python3 (1.13, eager only)
# and each build/torch-*/bin/python (torch.compile, the #198094 stage).
set -u
. "$(dirname "$0")/lib/common.sh"

n=0
for py in /usr/bin/python3 python3 build/torch-*/bin/python; do
    command -v "$py" >/dev/null 2>&1 || continue
    # one run per environment: venvs may share one interpreter binary, so its sys.prefix tells them apart
    real=$("$py" -c 'import sys; print(sys.prefix)' 2>/dev/null) || continue
    case " ${seen:-} " in *" $real "*) continue ;; esac
    seen="${seen:-} $real"
    if ! version=$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null); then
        echo "# $py does not import torch"; continue
    fi
    n=$((n + 1))
    "$py" tests/torch/test_program_module.py >"$tmp/out" 2>"$tmp/err"; rc=$?
    grep -E '^(not ok|skip|#)' "$tmp/out" | sed "s|^|# $py: |"
    if [ "$rc" = 0 ]; then pass "program module unit tests with torch $version ($py)"
    else fail "program module unit tests with torch $version ($py)" "exit $rc; $(grep -c '^not ok' "$tmp/out") failed; $(tail -2 "$tmp/err")"; fi
done
[ "$n" -gt 0 ] || echo "skip program module unit tests: no python here imports torch (apt-get install python3-torch)"
