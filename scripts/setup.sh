#!/usr/bin/env bash
# Installs and builds what the project needs, and is quick when all of it is already there:
# Debian's valkey-server (bookworm-backports), chromium, nginx, clang and systemd-analyze; the npm packages (Node 22 among
# them, from the `node` package); the native module; dpkg-dev and a C toolchain for scripts/valkey9.sh,
# which start.sh and test.sh run in the background. Sourced by scripts/start.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# Valkey 9.1 (scripts/valkey9.sh): a first build takes minutes, so start.sh and test.sh start it in the
# background and go on; a later run finds it cached and ends at once.
valkey9_in_background() {
  mkdir -p .sandbox
  say "valkey 9.1: scripts/valkey9.sh in the background (log: .sandbox/valkey9.log)"
  (bash scripts/valkey9.sh >.sandbox/valkey9.log 2>&1 &)
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_ready=0
apt_install() {
  if [ "$apt_ready" = 0 ]; then
    say "apt-get update"
    as_root apt-get update -qq
    apt_ready=1
  fi
  say "apt-get install $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Valkey 8: only bookworm-backports has it.
valkey_major() { valkey-server --version 2>/dev/null | sed -n 's/.* v=\([0-9]*\)\..*/\1/p'; }
if [ "$(valkey_major)" -lt 8 ] 2>/dev/null || ! command -v valkey-server >/dev/null; then
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "adding Debian's bookworm-backports suite to apt's sources"
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      as_root tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
    apt_ready=0
  fi
  apt_install -t bookworm-backports valkey-server valkey-tools
fi
if ! [ "$(valkey_major)" -ge 8 ] 2>/dev/null; then
  echo "Valkey 8 or later is required, found: $(valkey-server --version 2>&1 | head -n1)" >&2
  exit 1
fi
say "valkey: $(valkey-server --version | cut -d' ' -f3)"

missing=()
command -v chromium >/dev/null || missing+=(chromium)
# nginx: the proxy of tests/deploy/nginx.test.ts (in /usr/sbin, which a user's PATH may lack).
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v clang >/dev/null || missing+=(clang)
[ -e /usr/lib/llvm-14/lib/libclang.so ] || ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1 || missing+=(libclang-dev)
# systemd-analyze: tests/deploy/guide.test.ts verifies the shipped unit with it (a container may lack systemd).
[ -x /usr/bin/systemd-analyze ] || missing+=(systemd)
# Valkey 9.1 is built from Debian's source package (scripts/valkey9.sh): dpkg-source checks and unpacks
# it, make and a C compiler build it.
command -v dpkg-source >/dev/null || missing+=(dpkg-dev)
{ command -v make >/dev/null && command -v cc >/dev/null; } || missing+=(build-essential)
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
say "chromium: $(chromium --version 2>/dev/null | head -n1)"

# npm packages, reinstalled only when the lockfile changed since the last install.
stamp=node_modules/.lockfile.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "npm ci (Node 22 comes with it, from the node package)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
else
  say "npm packages: up to date"
fi
export PATH="$PWD/node_modules/.bin:$PATH"
say "node: $(node --version)"

# The native module: cargo rebuilds it only when its sources changed.
if [ -f native-module/Cargo.toml ]; then
  command -v cargo >/dev/null || { echo "cargo is required to build native-module/ (install Rust with rustup)" >&2; exit 1; }
  # Cargo's build folder lives in the user's cache, shared by every checkout on this machine, as the
  # Valkey 9.1 build is: a fresh clone (CI's) reuses its dependencies' build (valkey-module and its
  # bindgen, 2-3 minutes on two cores for build, clippy and test) and rebuilds trafikey alone. A checkout
  # that already has a target folder of its own keeps it.
  if [ ! -e native-module/target ]; then
    cargo_cache=${XDG_CACHE_HOME:-$HOME/.cache}/the-owned-keyspace/cargo-target
    mkdir -p "$cargo_cache"
    ln -s "$cargo_cache" native-module/target
  fi
  say "native module: cargo build --release"
  cargo build --release --quiet --manifest-path native-module/Cargo.toml
fi

# The reference llms.txt tools (PyPI llms-txt: its parser and llms_txt2ctx), which tests/site/public-url.test.ts
# runs on the built llms.txt: in a venv in the user's cache, shared by every checkout, pinned.
LLMS_TXT_VERSION=0.0.7
llms_venv=${XDG_CACHE_HOME:-$HOME/.cache}/the-owned-keyspace/llms-venv
if ! "$llms_venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('llms-txt') != '$LLMS_TXT_VERSION')" 2>/dev/null; then
  if ! python3 -m venv --help >/dev/null 2>&1; then apt_install python3 python3-venv; fi
  say "llms-txt $LLMS_TXT_VERSION: a venv in $llms_venv"
  rm -rf "$llms_venv"
  python3 -m venv "$llms_venv"
  "$llms_venv/bin/pip" install --quiet --disable-pip-version-check "llms-txt==$LLMS_TXT_VERSION"
fi
say "llms-txt: $("$llms_venv/bin/python" -c "import importlib.metadata as m; print(m.version('llms-txt'))")"
