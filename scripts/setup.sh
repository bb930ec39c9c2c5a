#!/usr/bin/env bash
# Everything a fresh machine needs, idempotent: a Docker engine, the Python environment and
# the sandbox images. Used by scripts/serve, scripts/test and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-docker.sh

PYTHON="${PYTHON:-python3}"
if [[ ! -x .venv/bin/python ]]; then
    "$PYTHON" -m venv .venv
fi
# Reinstall only when the project's dependencies changed since the last install.
stamp=".venv/.judge-installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [[ ! -f "$stamp" ]]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e '.[dev,model,rl]'
    rm -f .venv/.judge-installed-*
    touch "$stamp"
fi

.venv/bin/judge images build
