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
say "serving on http://localhost:${PORT:-4321}"
# Raise the soft limit on open files to the hard one where the system allows: the front keeps its
# connection cap well below it (see docs/api.md's Limits section).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec node server/serve.ts
