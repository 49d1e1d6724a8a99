#!/usr/bin/env bash
# The drop-in CI files: .github/workflows/nightly.yml and examples/gitlab-ci/gitlab-nightly.yml parse as
# YAML, carry what the README promises (schedule, nightly script, SARIF permission, uploads
# that run on failure, build cache, JUnit reports); .github/workflows/shards.yml runs a matrix of
# shards (as many as SHARDS says, each uploading its directory) and a merge job over their
# artifacts (even when a shard failed, one ledger update, SARIF); all validate against the workflow schemas
# (check-jsonschema, vendored SchemaStore schemas) and pass zizmor's audits (offline).
# Each tool that is missing skips its checks with the package to install.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"
gh=.github/workflows/nightly.yml gl=examples/gitlab-ci/gitlab-nightly.yml sh=.github/workflows/shards.yml
LINT=build/tools/lint/bin

if ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
    echo "skip workflow YAML checks: python3-yaml not installed (scripts/deps.sh lint)"
else
    /usr/bin/python3 - "$gh" "$gl" "$sh" >"$tmp/py.out" 2>&1 <<'PY'
import sys, yaml
gh, gl, sh = (yaml.safe_load(open(p)) for p in sys.argv[1:4])
def check(name, cond):
    print(("ok " if cond else "not ok ") + name)
on = gh.get(True, gh.get("on"))   # YAML 1.1 reads the key `on` as True
check("github: scheduled", bool(on and on.get("schedule") and on["schedule"][0].get("cron")))
job = gh["jobs"]["nightly"]
steps = job["steps"]
runs = " ".join(s.get("run", "") for s in steps)
check("github: runs scripts/nightly.sh", "scripts/nightly.sh" in runs)
check("github: security-events: write", job.get("permissions", {}).get("security-events") == "write")
uses = {s.get("uses", "").split("@")[0]: s for s in steps if "uses" in s}
sarif = uses.get("github/codeql-action/upload-sarif")
check("github: SARIF upload runs on failure", bool(sarif) and "always()" in str(sarif.get("if", ""))
      and sarif["with"]["sarif_file"].endswith("nightly.sarif"))
art = uses.get("actions/upload-artifact")
check("github: artifacts (JUnit, reports) upload on failure", bool(art) and "always()" in str(art.get("if", ""))
      and "reports/nightly" in art["with"]["path"])
check("github: build cached", any(s.get("uses", "").startswith("actions/cache@") and s["with"]["path"] == "build"
                                  for s in steps))
j = gl["ssfuzz-nightly"]
check("gitlab: runs scripts/nightly.sh", any("scripts/nightly.sh" in s for s in j["script"]))
check("gitlab: artifacts on failure with JUnit", j["artifacts"]["when"] == "always"
      and any(p.endswith("findings.xml") for p in j["artifacts"]["reports"]["junit"]))
fz, mg = sh["jobs"]["fuzz"], sh["jobs"]["merge"]
shards = fz["strategy"]["matrix"]["shard"]
check("shards: the matrix lists shards 0..SHARDS-1", shards == list(range(int(sh["env"]["SHARDS"]))))
check("shards: a failed shard does not cancel the others", fz["strategy"].get("fail-fast") is False)
runs = " ".join(s.get("run", "") for s in fz["steps"])
check("shards: each runs fuzz --shard SHARD/SHARDS of one seed",
      '--shard "$SHARD/$SHARDS"' in runs and '--seed "$SEED"' in runs and fz["env"]["SHARD"] == "${{ matrix.shard }}")
up = [s for s in fz["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
check("shards: each uploads its directory, also on failure", len(up) == 1 and "always()" in str(up[0].get("if", ""))
      and up[0]["with"]["name"].startswith("ssfuzz-shard-"))
check("shards: merge runs after every shard, even a failed one", mg["needs"] == "fuzz" and "always()" in str(mg.get("if", "")))
down = [s for s in mg["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
check("shards: merge downloads every shard's artifact", len(down) == 1 and down[0]["with"]["pattern"] == "ssfuzz-shard-*")
mruns = " ".join(s.get("run", "") for s in mg["steps"])
check("shards: one ssfuzz merge with one ledger update", mruns.count("ssfuzz merge") == 1 and "--ledger" in mruns and "--update" in mruns)
msarif = [s for s in mg["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
check("shards: SARIF uploaded on failure, with its permission", len(msarif) == 1 and "always()" in str(msarif[0].get("if", ""))
      and mg["permissions"].get("security-events") == "write")
PY
    cat "$tmp/py.out"
    grep -q '^ok \|^not ok ' "$tmp/py.out" || fail "workflow YAML parses" "$(tail -3 "$tmp/py.out")"
fi

if [ ! -x "$LINT/check-jsonschema" ]; then
    echo "skip workflow schemas: check-jsonschema not installed (PyPI; scripts/deps.sh lint)"
else
    for pair in "$gh:vendor.github-workflows" "$sh:vendor.github-workflows" "$gl:vendor.gitlab-ci"; do
        f=${pair%%:*} schema=${pair#*:}
        if "$LINT/check-jsonschema" --builtin-schema "$schema" "$f" >"$tmp/cj.out" 2>&1; then pass "$f matches $schema"
        else fail "$f matches $schema" "$(tail -5 "$tmp/cj.out" | tr '\n' ' ')"; fi
    done
fi

if [ ! -x "$LINT/zizmor" ]; then
    echo "skip zizmor audit: zizmor not installed (PyPI; scripts/deps.sh lint)"
else
    for f in "$gh" "$sh"; do
        if "$LINT/zizmor" --offline --config .github/zizmor.yml "$f" >"$tmp/z.out" 2>&1; then
            pass "zizmor --offline $f: no findings"
        else
            fail "zizmor --offline $f" "$(grep -E '^(error|warning)' "$tmp/z.out" | sort | uniq -c | tr '\n' ' ')"
        fi
    done
fi
