#!/usr/bin/env bash
# Runs the site with its live explorer on http://localhost:4321. It starts its own sandbox Valkey
# unless VALKEY_URL points at one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
# Valkey 9.1, for the reshard experiment's atomic mode: built once in the background (cached after), so
# the course is served at once; the atomic mode says "being built" until its cluster is up.
valkey9_in_background
node scripts/build-site.ts

# "serving on" is said once the site answers a request, not when the server is merely started: a watcher
# in the background asks for the home page until it answers, and gives up when the server (which takes
# this shell's pid at the exec below) has ended, or after two minutes.
announce_when_answering() {
  local server=$1 port=${PORT:-4321} host=${HOST:-127.0.0.1} ask shown
  [ "$port" = 0 ] && return # a port picked at random: the server's own log says which
  case "$host" in
    0.0.0.0 | 127.0.0.1 | localhost) ask="127.0.0.1" shown="localhost" ;;
    :: | ::1) ask="[::1]" shown="localhost" ;;
    *:*) ask="[$host]" shown="[$host]" ;;
    *) ask="$host" shown="$host" ;;
  esac
  local until=$((SECONDS + 120))
  while ((SECONDS < until)); do
    kill -0 "$server" 2>/dev/null || return
    if curl -sf -o /dev/null --max-time 2 "http://$ask:$port/"; then
      say "serving on http://$shown:$port"
      return
    fi
    sleep 0.25
  done
  say "the site has not answered on http://$shown:$port within two minutes"
}
announce_when_answering $$ &
# Raise the soft limit on open files to the hard one where the system allows: the front keeps its
# connection cap well below it (see docs/api.md's Limits section).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# --experimental-async-context-frame: as scripts/site.ts's SITE_NODE_FLAGS says, a run's context
# without a hook on every promise.
exec node --experimental-async-context-frame server/serve.ts
