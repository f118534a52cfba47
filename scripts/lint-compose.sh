#!/usr/bin/env bash
# Lints compose.yaml with dclint (a devDependency): the Compose specification's schema and its
# rules for a tidy file. There is no container engine here to start it, so the lint is what CI checks.
set -euo pipefail
cd "$(dirname "$0")/.."
node_modules/.bin/dclint compose.yaml
echo "dclint: compose.yaml clean"
