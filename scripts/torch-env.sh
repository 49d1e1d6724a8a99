#!/usr/bin/env bash
# torch-env.sh VERSION DIR [PYTHON] - a venv in DIR with torch==VERSION from PyPI,
# checked by importing it; prints the SSFUZZ_PYTHON= line for torch:* targets.
# Idempotent: an existing venv with that version is kept.
set -euo pipefail
version=$1 dir=$2 py=${3:-python3}
if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import torch, sys; sys.exit(0 if torch.__version__.split('+')[0] == '$version' else 1)" 2>/dev/null; then
    echo "torch-env: $dir already has torch $version"
else
    command -v "$py" >/dev/null || { echo "torch-env: no $py (TORCH_PY=...)" >&2; exit 1; }
    echo "torch-env: creating $dir with torch==$version from PyPI (about 2.5 GB, a few minutes)"
    "$py" -m venv "$dir"
    "$dir/bin/pip" install -q --disable-pip-version-check "torch==$version" numpy
    "$dir/bin/python" -c "import torch; print('torch-env: torch', torch.__version__, 'ok')"
fi
echo "SSFUZZ_PYTHON=$(cd "$dir" && pwd)/bin/python"
