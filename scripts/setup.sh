#!/usr/bin/env bash
# Idempotent set-up shared by ./bap and npm test: npm packages, Chromium, build.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

if [ -n "${BAP_CHROMIUM_PATH:-}" ]; then
  [ -x "$BAP_CHROMIUM_PATH" ] || { echo "setup: BAP_CHROMIUM_PATH=$BAP_CHROMIUM_PATH is not an executable" >&2; exit 1; }
elif [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing Debian's chromium" >&2
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >&2
  else
    echo "setup: no Chromium found. Install it (sudo apt-get install -y chromium) or set BAP_CHROMIUM_PATH." >&2
    exit 1
  fi
fi

# The HTTP docs tests run their curl examples with real curl.
if ! command -v curl >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing curl" >&2
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q curl >&2
  else
    echo "setup: curl is missing (the HTTP docs tests run curl). Install it: sudo apt-get install -y curl" >&2
    exit 1
  fi
fi

npx tsc -b >&2
