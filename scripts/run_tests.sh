#!/usr/bin/env bash
# make test's runner: every suite runs even when an earlier one fails (make unit, make e2e, make
# browser, in that order), each one's output shown as it runs and kept in BUILD_DIR/test-logs/.
# At the end, one summary: per suite its counts and its failing tests, then the total as
# "N passed, M failed". Exits 1 when any suite failed (or ran nothing), else 0.
#
#   scripts/run_tests.sh [STEP ...] [SUITE ...]   (default: unit e2e browser; BUILD_DIR, PYTHON,
#                                               CMAKE_FLAGS from make)
# STEPs (make test gives both): setup (make setup), build (configure, make build); each is timed
# in the summary, and a failed step ends the run before any suite.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
SUITES=("$@")
[ ${#SUITES[@]} -eq 0 ] && SUITES=(unit e2e browser)
LOGS="$BUILD_DIR/test-logs"
mkdir -p "$LOGS"

total_pass=0
total_fail=0
summary=()
any_failed=0
steps=""
for suite in "${SUITES[@]}"; do
  # Steps before the suites (make test: setup, build): timed, and the run stops when one fails.
  if [ "$suite" = setup ] || [ "$suite" = build ]; then
    t0=$(date +%s)
    if [ "$suite" = setup ]; then
      make --no-print-directory setup
    else
      cmake -S . -B "$BUILD_DIR" -G Ninja ${CMAKE_FLAGS:-} && make --no-print-directory build BUILD_DIR="$BUILD_DIR"
    fi
    rc=$?
    steps+="${steps:+, }$suite $(( $(date +%s) - t0 )) s"
    if [ "$rc" -ne 0 ]; then echo "make test: $suite failed (exit $rc); no suite was run"; exit 1; fi
    continue
  fi
  log="$LOGS/$suite.log"
  t0=$(date +%s)
  make --no-print-directory "$suite" BUILD_DIR="$BUILD_DIR" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  secs=$(( $(date +%s) - t0 ))
  pass=0; fail=0; failing=""
  case "$suite" in
    unit)  # ctest: "97% tests passed, 3 tests failed out of 813", then "The following tests FAILED:"
      line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
      if [ -n "$line" ]; then
        fail=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
        pass=$(( $(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line") - fail ))
      fi
      failing=$(sed -n '/The following tests FAILED:/,$p' "$log" | grep -E '^\s+[0-9]+ - ' |
                sed -E 's/^\s+[0-9]+ - //' | tr '\n' ';')
      ;;
    e2e)  # pytest's last line: "== 3 failed, 117 passed, 2 skipped in 601.2s =="
      line=$(grep -E '[0-9]+ (passed|failed)' "$log" | tail -1)
      pass=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+' || true)
      fail=$(grep -oE '[0-9]+ (failed|error|errors)' <<<"$line" | awk '{s += $1} END {print s + 0}')
      failing=$(grep -E '^(FAILED|ERROR) ' "$log" | sed -E 's/^(FAILED|ERROR) //; s/ - .*//' | tr '\n' ';')
      ;;
    *)  # the browser suite prints "N passed, M failed" itself, and "ui_test: FAIL ..." lines
      line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
      pass=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
      fail=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
      failing=$(grep -E 'FAIL' "$log" | grep -v '^[0-9]* passed' | head -20 | tr '\n' ';')
      ;;
  esac
  pass=${pass:-0}; fail=${fail:-0}
  if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; failing="${failing}the suite exited with $rc;"; fi
  if [ "$rc" -eq 0 ] && [ "$pass" -eq 0 ]; then fail=1; failing="${failing}no test ran;"; fi
  total_pass=$((total_pass + pass))
  total_fail=$((total_fail + fail))
  status=passed
  if [ "$fail" -gt 0 ]; then status=FAILED; any_failed=1; fi
  summary+=("$(printf '  %-8s %-6s %5d passed %4d failed  %5ds' "$suite" "$status" "$pass" "$fail" "$secs")")
  if [ -n "$failing" ]; then
    IFS=';' read -ra names <<<"$failing"
    for n in "${names[@]}"; do [ -n "$n" ] && summary+=("      - $n"); done
  fi
done

echo
echo "make test: summary (logs in $LOGS/)${steps:+; $steps}"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
exit "$any_failed"
