#!/usr/bin/env bash
# Fuzzes a running `runanywhere serve` with Schemathesis, from the OpenAPI document the
# server publishes at GET /openapi.json (at its root, not under /v1):
#
#   scripts/fuzz_server.sh BASE_URL KEY SECONDS      e.g. http://127.0.0.1:8080 secret 120
#
# BASE_URL is the server's root; a trailing /v1 is dropped. Every request carries
# "Authorization: Bearer KEY". Checks: not_a_server_error (no 5xx) and
# response_schema_conformance (each response matches the schema the document gives for its
# status code), unless FUZZ_CHECKS names others. The whole run, schema load and in-flight
# requests included, ends within SECONDS: Schemathesis gets a time budget that leaves room
# for one request timeout, and `timeout` stops it hard at SECONDS. It prints Schemathesis's
# own report, then the number of requests sent and failures, and exits non-zero on any
# failure or error, or when the key did not authenticate.
#
# Environment (optional):
#   RUNANYWHERE_PYTHON_TOOLS  the tools folder (from scripts/env.sh; sourced when unset)
#   FUZZ_MAX_EXAMPLES   test cases per operation and fuzzing cycle (default 25); with a time
#                       budget, fuzzing repeats its cycles until the budget is spent
#   FUZZ_CHECKS         Schemathesis checks (default not_a_server_error,response_schema_conformance)
#   FUZZ_WORKERS        concurrent workers (default 1: the server shares 2 cores with us)
#   FUZZ_SEED           seed, for a reproducible run
#   FUZZ_REPORT_DIR     keep Schemathesis's JSON and HAR reports there (default: discarded)
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 BASE_URL KEY SECONDS" >&2; exit 2
fi
base="${1%/}"; base="${base%/v1}"
key="$2"
seconds="$3"
case "$seconds" in ''|*[!0-9]*) echo "$0: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
[ "$seconds" -ge 20 ] || { echo "$0: SECONDS must be at least 20" >&2; exit 2; }

if [ -z "${RUNANYWHERE_PYTHON_TOOLS:-}" ]; then
  # shellcheck source=scripts/env.sh
  source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/env.sh"
fi
[ -d "$RUNANYWHERE_PYTHON_TOOLS" ] || { echo "$0: no tools folder $RUNANYWHERE_PYTHON_TOOLS: run scripts/bootstrap models" >&2; exit 2; }
export PYTHONPATH="$RUNANYWHERE_PYTHON_TOOLS${PYTHONPATH:+:$PYTHONPATH}"

# Budget: one request may still be in flight when the time is up, and loading the schema
# and writing the reports take a few seconds. The request timeout only catches a hang: half
# the run, up to a minute, many times what any request takes even on a loaded machine.
request_timeout=$(( seconds / 2 < 60 ? seconds / 2 : 60 ))
max_time=$(( seconds - request_timeout - 5 ))

# Schemathesis writes .hypothesis/ and .schemathesis/ in its working folder: a temp one.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
reports="$work/reports"

args=(
  run "$base/openapi.json"
  --header "Authorization: Bearer $key"
  --checks "${FUZZ_CHECKS:-not_a_server_error,response_schema_conformance}"
  --max-examples "${FUZZ_MAX_EXAMPLES:-25}"
  --max-time "$max_time"
  --request-timeout "$request_timeout"
  --workers "${FUZZ_WORKERS:-1}"
  --wait-for-schema 10
  --generation-database none
  --report "json,har" --report-dir "$reports"
  --no-color
  # Routes that delete, copy or fetch models are left to the ollama client's checks: the
  # stateful phase feeds them the ids /api/tags lists, and would delete the models under test.
  --exclude-path-regex '^/api/(delete|copy|pull)$'
)
[ -n "${FUZZ_SEED:-}" ] && args+=(--seed "$FUZZ_SEED")

echo "fuzz: schemathesis $(cd "$work" && python3 -m schemathesis.cli --version | awk '{print $NF}') against $base/openapi.json for at most ${seconds} s (budget ${max_time} s, request timeout ${request_timeout} s)"
set +e
(cd "$work" && timeout --kill-after=5 "$seconds" python3 -m schemathesis.cli "${args[@]}")
status=$?
set -e

if [ -n "${FUZZ_REPORT_DIR:-}" ] && [ -d "$reports" ]; then
  mkdir -p "$FUZZ_REPORT_DIR" && cp "$reports"/* "$FUZZ_REPORT_DIR"/
fi

# Requests: the HAR's entries (one per request sent). Failures and errors: the JSON report.
summary=0
python3 - "$reports" "$status" "$seconds" <<'PY' || summary=$?
import glob, json, sys

reports, status, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def load(pattern):
    files = sorted(glob.glob(f"{reports}/{pattern}"))
    return json.load(open(files[-1])) if files else None

run = load("json-*.json")
har = load("har-*.json")
requests = len(har["log"]["entries"]) if har else 0
if status in (124, 137):
    print(f"fuzz: FAILED: schemathesis did not finish within {seconds} s ({requests} requests sent)")
    sys.exit(1)
if run is None:
    print(f"fuzz: FAILED: schemathesis exited {status} with no report (could it load the schema?)")
    sys.exit(1)

failures = sum(f["count"] for f in run["failures"])
errors = len(run["errors"])
unauthenticated = (run.get("warnings") or {}).get("missing_auth") or []
cases = run.get("test_cases") or {}
tested = (run.get("operations") or {}).get("tested", 0)
print(f"fuzz: {requests} requests sent, {cases.get('generated', 0)} test cases over {tested} operations "
      f"in {run.get('running_time') or 0:.0f} s (stopped by {run.get('stop_reason')}); "
      f"{failures} failures, {errors} errors")
for f in run["failures"]:
    print(f"fuzz:   {f['code']} {f['title']} x{f['count']}: {', '.join(f['operations'])}")
for e in run["errors"]:
    print(f"fuzz:   error: {e.get('title')} x{e.get('count', 1)}")
if unauthenticated:
    print(f"fuzz:   the key did not authenticate (401/403) on: {', '.join(map(str, unauthenticated))}")
ok = status == 0 and failures == 0 and errors == 0 and not unauthenticated and requests > 0
print(f"fuzz: {'passed' if ok else 'FAILED'} (schemathesis exit {status})")
sys.exit(0 if ok else 1)
PY
exit "$summary"
