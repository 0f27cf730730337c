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
# Three files at a time, in an order that mixes the two kinds: a Chromium file keeps a core busy, while a
# file of servers mostly waits on them (timers, freezes, kills, a migration's turn) and leaves its core
# idle. Run by folder, two at a time, the cores sat idle for the first half and were overbooked in the
# second. Each file is still a process of its own: the order only decides when each starts.
mapfile -t browser < <(printf '%s\n' tests/site/*.test.ts)
mapfile -t servers < <(printf '%s\n' tests/*/*.test.ts | grep -v '^tests/site/')
order=()
next=0
for file in "${browser[@]}"; do
  order+=("$file" "${servers[@]:next:3}")
  next=$((next + 3))
done
order+=("${servers[@]:next}")
# A file whose tests are done ends even if a handle lingers, once its report is written (not by
# --test-force-exit, which loses a file's last verdicts: tests/support/exit-when-done.ts)
node --test --test-concurrency=3 --import ./tests/support/exit-when-done.ts "${order[@]}"
