#!/usr/bin/env bash
# Builds the site into dist/ unless dist/ is newer than every input of the build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

stamp=dist/.built
if [ -f "$stamp" ] && [ -z "$(find src content public server native-module/src astro.config.mjs package-lock.json tsconfig.json \
  -newer "$stamp" -type f -print -quit 2>/dev/null)" ]; then
  say "site: dist/ is up to date"
else
  say "site: astro build"
  astro build >/tmp/astro-build.log 2>&1 || { cat /tmp/astro-build.log; exit 1; }
  touch "$stamp"
fi
