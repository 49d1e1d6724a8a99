#!/usr/bin/env bash
# options-doc.sh SSFUZZ - prints docs/options.md: every command's --help, which
# the option tables in harness/cli/ generate (`make options-doc` rewrites the
# file; tests/cli/test_options.sh fails when it is not current).
set -eu
bin=${1:?usage: scripts/options-doc.sh path/to/ssfuzz}
cat <<'HEAD'
# Options

Every command's options, exactly as `ssfuzz help` and `ssfuzz help CMD` print
them: both are generated from one option table per command (`harness/cli/`),
and so is this page (`make options-doc`; `tests/cli/test_options.sh` fails when
it is stale). [Back to the README](../README.md).

A usage error (an unknown option, a missing or invalid value) is one line,
`ssfuzz CMD: OPTION: RULE`, and exit 2. Options may come before, between or
after the other arguments; `--` ends them. A long option is spelled in full
(`--seed 7` or `--seed=7`, no abbreviations); short ones may be grouped
(`-qj 4`).

## ssfuzz help

```text
HEAD
"$bin" help
echo '```'
for cmd in $("$bin" help | awk '/^  [a-z]+ / && $1 != "help" { print $1 }'); do
    printf '\n## ssfuzz %s\n\n```text\n' "$cmd"
    "$bin" help "$cmd"
    echo '```'
done
