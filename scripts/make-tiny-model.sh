#!/usr/bin/env bash
# Builds the tiny random-weight Qwen3 model the transformers.js policy tests load (offline).
# Idempotent: when the model exists and was made by the current make-tiny-model.py, it only
# prints where it is. Needs python3 with venv and pip reaching a package index that has torch,
# transformers, tokenizers, onnx and onnxruntime (CPU builds are enough).
#
#   scripts/make-tiny-model.sh            -> .cache/tiny-model
#   TINY_MODEL_DIR=/some/dir scripts/make-tiny-model.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${TINY_MODEL_DIR:-$root/.cache/tiny-model}"
venv="${TINY_MODEL_VENV:-$root/.cache/tiny-model-venv}"
maker="$root/scripts/make-tiny-model.py"
stamp="$(sha256sum "$maker" | cut -c1-16)"

if [[ -f "$out/reference.json" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "tiny model: $out (cached)"
  exit 0
fi

if ! "$venv/bin/python" -c "import torch, transformers, tokenizers, onnx, onnxruntime" 2>/dev/null; then
  echo "tiny model: installing torch, transformers, onnx into $venv (once)" >&2
  python3 -m venv "$venv"
  # No retries: an index that cannot be reached should fail fast, not stall CI.
  "$venv/bin/pip" install --quiet --retries 0 --timeout 30 \
    torch transformers tokenizers onnx onnxruntime 2>&1 | grep -v "is ignored" >&2 || true
  "$venv/bin/python" -c "import torch, transformers, tokenizers, onnx, onnxruntime" \
    || { echo "tiny model: could not install the Python packages" >&2; exit 1; }
fi

# Build into a scratch folder and move it in place whole, so an interrupted run never leaves a
# half-written model that the tests would try to load.
tmp="$out.tmp.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
"$venv/bin/python" -W ignore "$maker" "$tmp" >&2
echo "$stamp" > "$tmp/.stamp"
rm -rf "$out"
mkdir -p "$(dirname "$out")"
mv "$tmp" "$out"
echo "tiny model: $out"
