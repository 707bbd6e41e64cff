#!/usr/bin/env bash
# Builds (or reuses) the fidelity test's reconciler: NVIDIA's upgrade
# library driven as the GPU Operator drives it (main.go). It is cached
# outside the repository, keyed by the hash of its sources, and the path
# of the binary is printed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${DRVCHECK_CP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/drvcheck/controlplane}
key=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)
bin="$cache/fidelity-reconcile-$key"
if [ ! -x "$bin" ]; then
  echo "building the fidelity reconciler (k8s-operator-libs)" >&2
  (cd "$here" && CGO_ENABLED=0 go build -trimpath -o "$bin.tmp" .)
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
