#!/usr/bin/env bash
# Installs the Debian packages the end-to-end tests (test/e2e) drive: QEMU with SeaBIOS,
# websockify, TigerVNC, remote-viewer and Remmina under Xvfb, vncsnapshot, tmux, the X/ImageMagick
# tools that find and photograph windows, and headless Chromium with tesseract for the browser
# viewer's pages, and Debian's real Nova console proxies (nova-consoleproxy, with python3-nova
# and rabbitmq-server: test/e2e/support/real-nova.ts), libvirt with virsh, and what runs the
# Windows and linux-arm64 executables here (wine64; qemu-user-static with arm64 libraries).
# Idempotent and quiet: does nothing when every package is installed already (set
# E2E_DEPS_FORCE=1 to run apt-get anyway). Runs as root without a TTY (CI); otherwise
# through sudo.
set -euo pipefail

packages=(
  qemu-system-x86   # qemu-system-x86_64 + SeaBIOS/VGA BIOS: the VMs whose screens are checked
  websockify        # the proxy core of nova-novncproxy, in front of QEMU for ws:// and openstack:
  tigervnc-viewer   # vncviewer
  virt-viewer       # remote-viewer
  gvncviewer        # gtk-vnc's viewer: follows resolution changes through the hub (test/e2e/hub-extensions)
  remmina           # Remmina (test/e2e/remmina-xvfb.e2e.test.ts)
  remmina-plugin-vnc # its VNC plugin: without it `remmina -c vnc://` has no protocol to open
  xvfb              # the X server the viewers draw on
  vncsnapshot       # a headless RFB client that saves the framebuffer as JPEG
  socat
  tmux              # the real terminal the TUI runs in
  imagemagick       # import (screenshots), convert (decoding pictures)
  x11-utils         # xwininfo
  xdotool           # moving windows apart (there is no window manager)
  xauth
  iproute2          # ss: which ports a process listens on
  procps            # pgrep
  util-linux        # setpriv: connects as another uid to a held console's socket (refused: EACCES)
  asciinema         # plays serial recordings (asciicast v2)
  chromium          # headless, driven by puppeteer-core: the browser viewer's pages
  tesseract-ocr     # reads SeaBIOS's words back from a screenshot of the browser viewer
  bash-completion   # the real helpers `vconsole completion bash` calls (test/integration/completion-cli)
  zsh               # checks that `vconsole completion zsh` parses
  fish              # checks that `vconsole completion fish` parses
  openssh-server    # a real sshd the tests start on a loopback port (test/e2e/support/sshd.ts)
  openssh-client    # the user's own ssh that --via and libvirt+ssh:// run
  libnss-wrapper    # a passwd entry with a test home for remote-viewer: gtk-vnc finds its CA in the home getpwuid names, not $HOME (test/e2e/tls-viewers)
  openssl           # what vconsole's certificate fingerprint is checked against (test/e2e/tls-viewers, src/net/tls-identity.test.ts)
  # Fonts: Xvfb needs its "fixed" font, TigerVNC (FLTK/Xft) and remote-viewer (GTK) need a
  # scalable one; without them the viewers start with empty titles or fail to open windows.
  xfonts-base
  fonts-dejavu-core
  fontconfig
)
# Installed without recommends: Nova's recommends pull in services (libvirt, ...) the tests do
# not run, and Debian's policy keeps these packages' own services from starting.
packages_without_recommends=(
  nova-consoleproxy # nova-novncproxy, nova-serialproxy, nova-spicehtml5proxy
  python3-nova      # nova-manage (the sqlite schema) and the library the nova-compute stand-in uses
  rabbitmq-server   # the message bus the proxies ask the compute host over (validate_console_port)
  # libvirt (test/e2e/libvirt.e2e.test.ts): the test starts virtlogd -d and libvirtd -d itself;
  # recommends would add services (dnsmasq, polkit) it does not use.
  libvirt-daemon-system      # libvirtd, virtlogd and their config for qemu:///system
  libvirt-daemon-driver-qemu # the QEMU driver: TCG domains made with virsh create
  libvirt-clients            # virsh, which the libvirt provider runs (here and on the ssh host)
  # Runs dist/bin/vconsole-win-x64.exe for test/package/sea-wine.test.ts: Debian's wine 8.0,
  # 64-bit only (8 packages, ~100 MB to fetch). It puts wine64 in /usr/lib/wine/, not on PATH.
  # Without recommends: they pull in fonts, GStreamer, X and the 32-bit half of wine.
  wine64
)
# The linux-arm64 executable under qemu-user (test/package/sea-arm64-qemu.test.ts). Needs the
# arm64 architecture known to dpkg before `apt-get update` (added below when missing). ~66 MB to
# fetch; gcc-12-base:arm64 and libgcc-s1:arm64 come as dependencies. No binfmt_misc is needed:
# the test runs qemu-aarch64-static FILE explicitly.
packages_arm64=(
  qemu-user-static # qemu-aarch64-static: runs dist/bin/vconsole-linux-arm64 on x86-64
  libc6:arm64      # /lib/ld-linux-aarch64.so.1 and libc, the loader the arm64 Node.js asks for
  libstdc++6:arm64 # Node.js is C++
)

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
missing=()
for package in "${packages[@]}"; do
  installed "$package" || missing+=("$package")
done
missing_bare=()
for package in "${packages_without_recommends[@]}" "${packages_arm64[@]}"; do
  installed "$package" || missing_bare+=("$package")
done

total=$((${#packages[@]} + ${#packages_without_recommends[@]} + ${#packages_arm64[@]}))
if [[ ${#missing[@]} -eq 0 && ${#missing_bare[@]} -eq 0 && "${E2E_DEPS_FORCE:-}" != 1 ]]; then
  echo "e2e-deps: all $total packages are installed"
  exit 0
fi
if [[ ${#missing[@]} -eq 0 && ${#missing_bare[@]} -eq 0 ]]; then
  missing=("${packages[@]}")
  missing_bare=("${packages_without_recommends[@]}" "${packages_arm64[@]}")
fi

as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "e2e-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
  as_root=(sudo -n)
fi

echo "e2e-deps: installing ${missing[*]} ${missing_bare[*]}"
export DEBIAN_FRONTEND=noninteractive
# arm64 packages (libc6:arm64, ...) are only known once dpkg has the architecture.
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${as_root[@]}" dpkg --add-architecture arm64
fi
"${as_root[@]}" apt-get update -qq
# With recommends: the viewers and QEMU were proven with them (GTK/FLTK runtime bits, VGA BIOS).
if [[ ${#missing[@]} -gt 0 ]]; then
  "${as_root[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 "${missing[@]}" >/dev/null
fi
if [[ ${#missing_bare[@]} -gt 0 ]]; then
  "${as_root[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends "${missing_bare[@]}" >/dev/null
fi
echo "e2e-deps: done"
