#!/usr/bin/env bash
# One kind of test for a quick loop: `npm run test:<kind>` runs tests/<kind>/*.test.ts alone (unit,
# integration, native, explorer, front, site, deploy). Unit tests need no server, so they skip the setup
# (but not `astro sync`: the type check that tries adding an experiment reads Astro's types);
# the others get what `npm test` gives them first (scripts/setup.sh; the built site for the kinds that run
# it). `npm test` (scripts/test.sh) still runs every kind, with the type and format checks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
kind=${1:-}
if [ ! -d "tests/$kind" ] || [ "$kind" = support ] || [ "$kind" = fixtures ]; then
  echo "expected a kind of test: unit, integration, native, explorer, front, site or deploy; found '$kind'" >&2
  exit 2
fi
if [ "$kind" = unit ]; then
  export PATH="$PWD/node_modules/.bin:$PATH"
  astro sync >/dev/null
else
  source scripts/setup.sh
  valkey9_in_background
  case "$kind" in explorer | site | deploy) node scripts/build-site.ts ;; esac
fi
exec node --test --test-concurrency=3 --import ./tests/support/exit-when-done.ts "tests/$kind"/*.test.ts
