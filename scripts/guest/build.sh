#!/usr/bin/env bash
# Builds the real Linux guest the end-to-end tests type into: Debian's cloud kernel and an
# initramfs of busybox-static whose init runs a shell on the VGA console (tty1) and on the serial
# line (ttyS0), and logs Ctrl+Alt+Del on both. Only Debian packages, fetched with
# `apt-get download` from the configured mirror and unpacked with dpkg-deb (nothing is
# installed); the packages are the `guest` lines of scripts/e2e-packages.txt.
#
# The result is cached under ${XDG_CACHE_HOME:-~/.cache}/vconsole-guest/KEY/, KEY naming the
# packages' versions, so a second run (or a new version) costs nothing (or one download). Prints
# that directory: KEY/vmlinuz and KEY/initrd. Boot it with
#   qemu-system-x86_64 -machine accel=tcg -m 128 -kernel KEY/vmlinuz -initrd KEY/initrd \
#     -append 'console=tty0 console=ttyS0 quiet' ...
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
list="${E2E_PACKAGES_FILE:-$here/../e2e-packages.txt}"
mapfile -t packages < <(sed -e 's/#.*//' "$list" | awk '$2 == "guest" { print $1 }')
kernel_meta="" busybox=""
for package in "${packages[@]}"; do
  case "$package" in
    linux-image-*) kernel_meta="$package" ;;
    busybox-static) busybox="$package" ;;
    *) echo "guest: $list: no use for the guest package $package" >&2; exit 2 ;;
  esac
done
if [[ -z "$kernel_meta" || -z "$busybox" ]]; then
  echo "guest: $list lists no 'guest' kernel (linux-image-*) and busybox-static" >&2
  exit 2
fi

candidate() { apt-cache policy "$1" | awk '/Candidate:/ { print $2 }'; }
# The metapackage names the kernel of the day; the cache key is that kernel's own version.
kernel="$(apt-cache depends --no-recommends --no-suggests "$kernel_meta" | awk '/Depends: linux-image-/ { print $2; exit }')"
kernel_version="$(candidate "$kernel")"
busybox_version="$(candidate "$busybox")"
if [[ -z "$kernel" || -z "$kernel_version" || "$kernel_version" == "(none)" || -z "$busybox_version" || "$busybox_version" == "(none)" ]]; then
  echo "guest: apt knows no $kernel_meta or $busybox: run apt-get update first" >&2
  exit 1
fi
key="${kernel}_${kernel_version}_${busybox}_${busybox_version//:/-}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/vconsole-guest"
out="$cache/$key"
if [[ -s "$out/vmlinuz" && -s "$out/initrd" ]]; then
  echo "$out"
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/vconsole-guest-XXXXXX")"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q "$kernel=$kernel_version" "$busybox=$busybox_version") >&2 2> >(grep -v unsandboxed >&2)
dpkg-deb -x "$work/${kernel}"_*.deb "$work/kernel"
dpkg-deb -x "$work/${busybox}"_*.deb "$work/busybox"

root="$work/root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root}
cp "$work/busybox/bin/busybox" "$root/bin/busybox"
cp "$here/init" "$root/init"
cp "$here/inittab" "$root/etc/inittab"
cp "$here/profile" "$root/etc/profile"
chmod 755 "$root/init" "$root/bin/busybox"
initrd="$work/initrd"
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | "$root/bin/busybox" cpio -o -H newc -R 0:0 >"$initrd" 2>/dev/null)

mkdir -p "$out.tmp"
cp "$work/kernel/boot/vmlinuz-"* "$out.tmp/vmlinuz"
cp "$initrd" "$out.tmp/initrd"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "$out"
