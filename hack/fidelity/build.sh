#!/usr/bin/env bash
# Builds (or reuses) the fidelity test's reconciler: NVIDIA's upgrade
# library driven as the GPU Operator drives it (main.go). It is cached
# outside the repository, keyed by the hash of its sources, and the path
# of the binary is printed.
#
# The library release is the first argument or DRVCHECK_FIDELITY_LIB:
#   v25 (default)  go.mod      k8s-operator-libs 7d667fbaa7ac (GPU Operator v25.3)
#   v26            go.v26.mod  k8s-operator-libs d720f2557494 (GPU Operator v26.7,
#                              with the restart-only predicate), -tags libv26
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=${1:-${DRVCHECK_FIDELITY_LIB:-v25}}
case "$lib" in
  v25) modfile=go.mod tags="" ;;
  v26) modfile=go.v26.mod tags=libv26 ;;
  *) echo "build.sh: unknown library release $lib (v25 or v26)" >&2; exit 2 ;;
esac
sumfile=${modfile%.mod}.sum
cache=${DRVCHECK_CP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/drvcheck/controlplane}
key=$( { echo "$lib"; cat "$here/$modfile" "$here/$sumfile" "$here"/*.go; } | sha256sum | cut -c1-16)
bin="$cache/fidelity-reconcile-$lib-$key"
if [ ! -x "$bin" ]; then
  echo "building the fidelity reconciler (k8s-operator-libs, $lib)" >&2
  mkdir -p "$cache"
  (cd "$here" && CGO_ENABLED=0 go build -modfile="$modfile" -tags="$tags" -trimpath -o "$bin.tmp" .)
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
