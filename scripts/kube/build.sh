#!/usr/bin/env bash
# Builds the real programs the KubeVirt end-to-end tests run against, from the Go module proxy only:
#   kube-apiserver              (k8s.io/kubernetes, module scripts/kube/apiserver; kubectl too with --with-kubectl)
#   etcd                        (go.etcd.io/etcd/server/v3 at the release k8s.io/kubernetes requires, same module)
#   virt-api, virtctl           (kubevirt.io/kubevirt, module scripts/kube/kubevirt)
#   kubevirt-crds               (KubeVirt's own CRD generator, printing the CRDs virt-operator installs)
# into a cache on the machine keyed by version: $VCONSOLE_KUBE_CACHE (default ~/.cache/vconsole-kube)/<name>-<version>/bin.
# Go's module and build caches stay at their defaults, so only a new machine pays for the build; a program already
# in the cache is not built again. The versions are the ones the two go.mod files require (change them there).
#
# Usage: scripts/kube/build.sh [--with-kubectl | --print-cache]
#   VCONSOLE_KUBE_BUILD_JOBS  packages built at once (go build -p), default 1 so other work on the machine goes on
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${VCONSOLE_KUBE_CACHE:-$HOME/.cache/vconsole-kube}
jobs=${VCONSOLE_KUBE_BUILD_JOBS:-1}
# The machine's own Go builds these modules; never fetch another toolchain behind the reader's back.
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

if [[ ${1:-} == --print-cache ]]; then
  echo "$cache"
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "kube build: the go command is not on PATH; install Go (1.26 or newer) to build the control plane" >&2
  exit 1
fi

# module_version DIR MODULE: the version of MODULE that the module in DIR builds with.
module_version() { (cd "$1" && go list -m -f '{{.Version}}' "$2"); }

# build_program DIR NAME VERSION PACKAGE: builds PACKAGE (in the module at DIR) into $cache/NAME-VERSION/bin/<last
# element of PACKAGE> unless it is there already. Writes to a temporary name first, so a stopped build leaves no
# half-written program that a later run would take as built.
build_program() {
  local dir=$1 name=$2 version=$3 package=$4
  local bin="$cache/$name-$version/bin" program=${package##*/}
  if [[ -x $bin/$program ]]; then
    echo "kube build: $program $version is built ($bin/$program)"
    return 0
  fi
  mkdir -p "$bin"
  local started=$SECONDS
  echo "kube build: building $program $version (go build -p $jobs) ..."
  if ! (cd "$dir" && nice -n 10 go build -p "$jobs" -trimpath -ldflags='-s -w' -o "$bin/.$program.partial" "$package"); then
    rm -f "$bin/.$program.partial"
    echo "kube build: building $program $version from $dir failed (the go build output above says why)" >&2
    return 1
  fi
  mv "$bin/.$program.partial" "$bin/$program"
  echo "kube build: built $program $version in $((SECONDS - started)) s, $(du -m "$bin/$program" | cut -f1) MB"
}

apiserver="$here/apiserver"
kubevirt="$here/kubevirt"
kubernetes_version=$(module_version "$apiserver" k8s.io/kubernetes)
etcd_version=$(module_version "$apiserver" go.etcd.io/etcd/server/v3)
kubevirt_version=$(module_version "$kubevirt" kubevirt.io/kubevirt)

build_program "$apiserver" etcd "$etcd_version" vconsole.test/kube-apiserver/cmd/etcd
build_program "$apiserver" kubernetes "$kubernetes_version" k8s.io/kubernetes/cmd/kube-apiserver
build_program "$kubevirt" kubevirt "$kubevirt_version" vconsole.test/kubevirt/cmd/kubevirt-crds
build_program "$kubevirt" kubevirt "$kubevirt_version" kubevirt.io/kubevirt/cmd/virt-api
build_program "$kubevirt" kubevirt "$kubevirt_version" kubevirt.io/kubevirt/cmd/virtctl
# The tests talk to the API themselves; kubectl is for a person poking at a started control plane.
if [[ ${1:-} == --with-kubectl ]]; then
  build_program "$apiserver" kubernetes "$kubernetes_version" k8s.io/kubernetes/cmd/kubectl
fi
