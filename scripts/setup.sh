#!/usr/bin/env bash
# Idempotent set-up shared by ./bap and npm test: npm packages, Chromium, build.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian.sh

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

if [ -n "${BAP_CHROMIUM_PATH:-}" ]; then
  [ -x "$BAP_CHROMIUM_PATH" ] || { echo "setup: BAP_CHROMIUM_PATH=$BAP_CHROMIUM_PATH is not an executable" >&2; exit 1; }
elif [ ! -x /usr/bin/chromium ]; then
  debian_install chromium "no Chromium found. Install it (sudo apt-get install -y chromium) or set BAP_CHROMIUM_PATH."
fi

# The HTTP docs tests run their curl examples with real curl.
command -v curl >/dev/null || debian_install curl "curl is missing (the HTTP docs tests run curl). Install it: sudo apt-get install -y curl"

npx tsc -b >&2
# The scripts that run inside pages, bundled with their dependencies.
node packages/server-playwright/scripts/bundle-page.mjs >&2
