#!/usr/bin/env bash
# Builds (or reuses) the real control plane that drvcheck's cluster tests run:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok, and
# the kubectl of the same release that the tests drive it with.
# The binaries are cached outside the repo, keyed by version, so only the
# first run on a machine pays the ~10 minute build. Prints the bin folder.
#
#   build.sh          build what is missing, then print the bin folder
#   build.sh --check  print the bin folder if everything is cached, else
#                     exit 1 without building (tests use it to decide
#                     whether to skip)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
KUBE_VERSION=v1.37.2
ETCD_VERSION=v3.7.0
KWOK_VERSION=v0.8.0
cache=${DRVCHECK_CP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/drvcheck/controlplane}
bin="$cache/kube-$KUBE_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION"
stagedir="$bin/stage"

if [ "${1:-}" = --check ]; then
  for f in etcd kwok kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    [ -x "$bin/$f" ] || exit 1
  done
  [ -d "$stagedir" ] || exit 1
  echo "$bin"
  exit 0
fi
mkdir -p "$bin"

build() { # module-dir output package [ldflags]
  local dir=$1 out=$2 pkg=$3 ldflags=${4:-}
  [ -x "$bin/$out" ] && return 0
  echo "building $out ($pkg)" >&2
  (cd "$here/$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ldflags" -o "$bin/$out.tmp" "$pkg")
  mv "$bin/$out.tmp" "$bin/$out"
}

kv="-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 -X k8s.io/component-base/version.gitTreeState=clean"
build etcd etcd go.etcd.io/etcd/server/v3
build kwok kwok sigs.k8s.io/kwok/cmd/kwok
build kube kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$kv"
build kube kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager "$kv"
build kube kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler "$kv"
build kube kubectl k8s.io/kubernetes/cmd/kubectl "$kv"

# kwok's own stage files, straight from its module: only the Stage
# documents (kwok would reject the kustomization.yaml beside them).
if [ ! -d "$stagedir" ]; then
  src=$(cd "$here/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  rm -rf "$stagedir.tmp"
  mkdir -p "$stagedir.tmp"
  for s in node/fast node/heartbeat pod/fast; do
    mkdir -p "$stagedir.tmp/$s"
    for f in "$src/kustomize/stage/$s"/*.yaml; do
      if grep -q '^kind: Stage$' "$f"; then cp "$f" "$stagedir.tmp/$s/"; fi
    done
    ls "$stagedir.tmp/$s"/*.yaml >/dev/null # fail when a stage folder came out empty
  done
  chmod -R u+w "$stagedir.tmp"
  mv "$stagedir.tmp" "$stagedir"
fi
echo "$bin"
