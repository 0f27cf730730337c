#!/usr/bin/env bash
# Every check and every test, on real servers and a real browser. The one test command of the README.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
# Valkey 9.1 (the atomic-migration tests): a first run builds it, 2-3 minutes on two cores, so it starts
# now, in the background; those tests wait for it (bounded) and skip, saying why, if it failed.
valkey9_in_background

say "type check: tsc --noEmit and astro check (strict)"
astro sync >/dev/null
tsc --noEmit -p .
astro check --minimumSeverity warning | tail -n 4

say "format check: prettier --check"
prettier --check --log-level warn .

if [ -f native-module/Cargo.toml ]; then
  say "native module: cargo fmt --check, cargo clippy -D warnings, cargo test"
  cargo fmt --manifest-path native-module/Cargo.toml --check
  cargo clippy --quiet --manifest-path native-module/Cargo.toml --all-targets -- -D warnings
  cargo test --quiet --manifest-path native-module/Cargo.toml
fi

node scripts/build-site.ts

say "tests: node --test (unit, integration against valkey-server, site in Chromium)"
# --test-force-exit: a file whose tests are done ends even if a handle lingers (see tests/support/teardown.ts)
node --test --test-concurrency=2 --test-force-exit 'tests/**/*.test.ts'
