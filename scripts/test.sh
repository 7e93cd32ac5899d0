#!/usr/bin/env bash
# Every check: set-up, lint, typecheck (sources and tests), protocol schema freshness, all tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== lint" && npx eslint .
echo "== typecheck tests" && npx tsc -p tsconfig.tests.json
echo "== generated files" && node packages/protocol/scripts/schema.mjs --check && node scripts/docs.mjs --check
# Fuzzing runs before vitest so that the run ends with the test summary; `npm test -- FILE` skips it.
status=0
if [ "$#" -eq 0 ]; then
  echo "== schemathesis (OpenAPI fuzzing against bap serve)"
  BAP_SETUP_DONE=1 bash scripts/schemathesis.sh || status=$?
fi
echo "== tests"
# Plain text when the output is a log, not a terminal: the summary lines stay greppable.
[ -t 1 ] || export NO_COLOR=1
report="${BAP_TEST_REPORT:-$(mktemp)}"
npx vitest run --reporter=default --reporter=json --outputFile="$report" "$@" || status=$?
node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const slow = r.testResults.map((f) => [f.name.split("/").slice(-2).join("/"), (f.endTime - f.startTime) / 1000]).sort((a, b) => b[1] - a[1]).slice(0, 5);
console.log(`slowest files: ${slow.map(([n, s]) => `${n} ${s.toFixed(1)} s`).join(", ")}`);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);' "$report" || true
[ -n "${BAP_TEST_REPORT:-}" ] || rm -f "$report"
exit "$status"
