#!/usr/bin/env bash
# Runs the GPU bench (bench/gpu.ts) from this unpacked bundle, with the Node binary it carries. Environment as in
# README.md (BENCH_SECTIONS, BENCH_QUICK, BENCH_OUT_DIR, BENCH_PYTHON).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# Dawn warns without a runtime dir, and a headless host has no session to provide one
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
export GENSYN_MNIST_DIR=${GENSYN_MNIST_DIR:-$here/mnist}
exec "$here/bin/node" "$here/bin/gpu-bench.mjs" "$@"
