#!/usr/bin/env bash
# Builds (or reuses) the real control plane that drvcheck's cluster tests run:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok.
# The binaries are cached outside the repo, keyed by version, so only the
# first run on a machine pays the ~10 minute build. Prints the bin folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
KUBE_VERSION=v1.37.2
ETCD_VERSION=v3.7.0
KWOK_VERSION=v0.8.0
cache=${DRVCHECK_CP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/drvcheck/controlplane}
bin="$cache/kube-$KUBE_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION"
stagedir="$bin/stage"
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

# kwok's own stage files, straight from its module.
if [ ! -d "$stagedir" ]; then
  src=$(cd "$here/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  mkdir -p "$stagedir.tmp"
  for s in node/fast node/heartbeat pod/fast; do
    mkdir -p "$stagedir.tmp/$s"
    cp "$src/kustomize/stage/$s"/*.yaml "$stagedir.tmp/$s/"
  done
  chmod -R u+w "$stagedir.tmp"
  mv "$stagedir.tmp" "$stagedir"
fi
echo "$bin"
