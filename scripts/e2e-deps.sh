#!/usr/bin/env bash
# Installs the Debian packages the tests drive, as scripts/e2e-packages.txt lists them (QEMU,
# websockify, the VNC and SPICE viewers under Xvfb, tmux, Chromium, Debian's real Nova console
# proxies, libvirt, sshd, wine and qemu-user for the single executables, ...). The tests read the
# same list (test/support/programs.ts), so a test cannot require a program this script does not
# install. Idempotent and quiet: does nothing when every package is installed already (set
# E2E_DEPS_FORCE=1 to run apt-get anyway). Runs as root without a TTY (CI); otherwise through
# sudo.
set -euo pipefail

list="${E2E_PACKAGES_FILE:-$(dirname "$0")/e2e-packages.txt}"
with_recommends=()
bare=()
while read -r package how _; do
  case "$how" in
    recommends) with_recommends+=("$package") ;;
    bare) bare+=("$package") ;;
    guest) ;; # downloaded, never installed: scripts/guest/build.sh
    *) echo "e2e-deps: $list: package $package: install as 'recommends', 'bare' or 'guest', not '$how'" >&2; exit 2 ;;
  esac
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
missing=()
for package in "${with_recommends[@]}"; do
  installed "$package" || missing+=("$package")
done
missing_bare=()
for package in "${bare[@]}"; do
  installed "$package" || missing_bare+=("$package")
done

total=$((${#with_recommends[@]} + ${#bare[@]}))
if [[ ${#missing[@]} -eq 0 && ${#missing_bare[@]} -eq 0 && "${E2E_DEPS_FORCE:-}" != 1 ]]; then
  echo "e2e-deps: all $total packages are installed"
  exit 0
fi
if [[ ${#missing[@]} -eq 0 && ${#missing_bare[@]} -eq 0 ]]; then
  missing=("${with_recommends[@]}")
  missing_bare=("${bare[@]}")
fi

as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "e2e-deps: need root (or sudo) to install: ${missing[*]} ${missing_bare[*]}" >&2
    exit 1
  fi
  as_root=(sudo -n)
fi

echo "e2e-deps: installing ${missing[*]} ${missing_bare[*]}"
export DEBIAN_FRONTEND=noninteractive
# arm64 packages (libc6:arm64, ...) are only known once dpkg has the architecture.
if [[ " ${missing[*]} ${missing_bare[*]} " == *:arm64\ * ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${as_root[@]}" dpkg --add-architecture arm64
fi
"${as_root[@]}" apt-get update -qq -o DPkg::Lock::Timeout=600
if [[ ${#missing[@]} -gt 0 ]]; then
  "${as_root[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
fi
if [[ ${#missing_bare[@]} -gt 0 ]]; then
  "${as_root[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing_bare[@]}" >/dev/null
fi
echo "e2e-deps: done"
