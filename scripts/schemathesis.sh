#!/usr/bin/env bash
# Fuzzes the OpenAPI document (GET /openapi.json) against a running `bap serve` with Schemathesis:
# at least 500 generated requests, failing on any 5xx or any response that does not match its
# schema. Sets up its own Python venv (.venv-schemathesis) from python/requirements-schemathesis.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian.sh
[ -n "${BAP_SETUP_DONE:-}" ] || bash scripts/setup.sh

venv=.venv-schemathesis
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/schemathesis" ] || ! cmp -s python/requirements-schemathesis.txt "$stamp"; then
  echo "schemathesis: setting up $venv" >&2
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian ships venv support separately.
    debian_install python3-venv "python3 -m venv failed; install python3-venv (sudo apt-get install -y python3-venv)."
    rm -rf "$venv" && python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check -r python/requirements-schemathesis.txt >&2
  cp python/requirements-schemathesis.txt "$stamp"
fi

log=$(mktemp)
# Schemathesis's report goes to a file and only its counts are printed: its closing pytest-style
# banner ("=== 2 warnings in 44s ===") would otherwise read, to a log parser, as a run of no tests.
report=$(mktemp)
node packages/cli/dist/bin.js serve --port 0 --quiet > "$log" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log" "$report"' EXIT
for _ in $(seq 1 100); do
  url=$(sed -n 's/^BAP server ready on ws:\/\/\([^ ]*\).*/http:\/\/\1/p' "$log")
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "${url:-}" ] || { echo "schemathesis: bap serve did not start" >&2; exit 1; }

status=0
"$venv/bin/schemathesis" run "$url/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --phases examples,coverage,fuzzing \
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-25}" \
  --workers 1 \
  --seed 1 \
  --request-timeout 30 \
  --report junit --report-junit-path "${SCHEMATHESIS_JUNIT:-/tmp/schemathesis-junit.xml}" \
  "$@" > "$report" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$report"
  echo "schemathesis: failed (exit $status)"
  exit "$status"
fi
cases=$(sed -n 's/^ *\([0-9]* generated, [0-9]* passed.*\)/\1/p' "$report")
echo "schemathesis: OpenAPI fuzzing passed; cases: ${cases:-(count not found in its report)}"
