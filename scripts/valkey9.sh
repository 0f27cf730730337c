#!/usr/bin/env bash
# Builds Valkey 9.1 (valkey-server and valkey-cli) once, from Debian's source package, into a cached
# folder that later runs find ready at once. The atomic half of the reshard experiment runs on it.
#
# apt is given a configuration of its own under the cache folder (a deb-src line for Debian's sid,
# its own lists and cache): no system source list is changed and no binary of another release is
# installed. dpkg-source checks the downloaded files against the .dsc's checksums before unpacking.
#
# The folder (VALKEY9_HOME, default ~/.cache/the-owned-keyspace/valkey9) holds:
#   bin/valkey-server, bin/valkey-cli   the build, once finished
#   version                             the Valkey version built (e.g. 9.1.2)
#   state                               "building <pid>", "ready <version>" or "failed: <why>"
#   build.log                           the build's output
# The site and the tests read `state` to say "being built" or "not available: <why>".
set -euo pipefail

pin=9.1.2
home=${VALKEY9_HOME:-$HOME/.cache/the-owned-keyspace/valkey9}

say() { printf '\033[1m==> valkey9: %s\033[0m\n' "$*"; }

if [ -x "$home/bin/valkey-server" ] && [ -x "$home/bin/valkey-cli" ] && grep -qs '^ready ' "$home/state"; then
  say "ready: $(cut -d' ' -f2 "$home/state") in $home/bin"
  exit 0
fi

mkdir -p "$home"
# One build at a time: a second caller (start.sh and test.sh at once) waits for the first, then finds it ready.
exec 9>"$home/lock"
if ! flock -n 9; then
  say "another run is building it; waiting"
  flock 9
  grep -qs '^ready ' "$home/state" && { say "ready: $(cut -d' ' -f2 "$home/state")"; exit 0; }
fi

echo "building $$" >"$home/state"
fail() {
  echo "failed: $*" >"$home/state"
  echo "valkey9: $*" >&2
  exit 1
}
trap 'fail "the build stopped at line $LINENO (see $home/build.log)"' ERR

for tool in apt-get apt-cache dpkg-source make cc; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/setup.sh installs dpkg-dev and build-essential)"
done

apt_dir="$home/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main' \
  >"$apt_dir/sources.list"
apt_options=(
  -o "Dir::Etc::SourceList=$apt_dir/sources.list"
  -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir/cache"
  -o "APT::Sandbox::User=$(id -un)"
)

say "apt-get update with a project-local configuration (deb-src for Debian sid only)"
apt-get "${apt_options[@]}" -qq update >>"$home/build.log" 2>&1 || fail "apt-get update failed (no network to deb.debian.org?)"

served=$(apt-cache "${apt_options[@]}" showsrc valkey | sed -n 's/^Version: //p' | sort -uV)
say "sid serves valkey source versions: $(echo $served)"
version=$(printf '%s\n' "$served" | grep -E "^${pin//./\\.}-" | tail -n1 || true)
if [ -z "$version" ]; then
  version=$(printf '%s\n' "$served" | grep -E '^9\.' | tail -n1 || true)
  [ -n "$version" ] || fail "Debian sid serves no Valkey 9.x source (served: $(echo $served))"
  say "$pin is no longer served; taking the newest 9.x served: $version"
fi
upstream=${version%%-*}

src="$home/src"
rm -rf "$src" && mkdir -p "$src"
say "apt-get source --download-only valkey=$version"
(cd "$src" && apt-get "${apt_options[@]}" -qq source --download-only "valkey=$version") >>"$home/build.log" 2>&1 ||
  fail "apt-get source valkey=$version failed"

say "dpkg-source -x: checks every file against the .dsc's checksums, then unpacks"
(cd "$src" && dpkg-source --no-copy -x "valkey_${version#*:}.dsc" "valkey-$upstream") >>"$home/build.log" 2>&1 ||
  fail "dpkg-source refused valkey_${version}.dsc (a checksum that does not match?)"

# OPTIMIZATION=-O2: the default -O3 adds link-time optimisation with fat objects, which nearly doubles
# the build's CPU (4 min 36 s against 2 min 27 s here) for speed a sandbox does not need.
say "make valkey-server valkey-cli (BUILD_TLS=no USE_SYSTEMD=no OPTIMIZATION=-O2, -j2): a few minutes on two cores"
started=$(date +%s)
make -C "$src/valkey-$upstream/src" -j2 BUILD_TLS=no USE_SYSTEMD=no OPTIMIZATION=-O2 valkey-server valkey-cli >>"$home/build.log" 2>&1 ||
  fail "make failed (the end of $home/build.log says why)"
say "built in $(($(date +%s) - started)) s"

mkdir -p "$home/bin"
install -m 0755 "$src/valkey-$upstream/src/valkey-server" "$src/valkey-$upstream/src/valkey-cli" "$home/bin/"
"$home/bin/valkey-server" --version | grep -q "v=$upstream" || fail "the built valkey-server does not say v=$upstream"
echo "$upstream" >"$home/version"
echo "ready $upstream" >"$home/state"
trap - ERR
say "ready: $upstream in $home/bin"
