#!/usr/bin/env bash
# ctest's fixture for the Neo4j tests: one server for a whole `ctest` run, instead of one per
# test process (gtest_discover_tests runs every test in its own process, and a Neo4j start takes
# 10-20 s). CMakeLists.txt registers `start` as the fixture's setup and `stop` as its cleanup;
# the Neo4j tests read the URL from DIR/url (MMKG_NEO4J_URL_FILE, see tests/support/neo4j_server.h).
#
#   scripts/neo4j_ctest.sh start DIR    start (scripts/neo4j.sh), write the base URL to DIR/url
#   scripts/neo4j_ctest.sh stop DIR     stop it and remove DIR/url
#
# The server watches the ctest process (our parent), so a killed ctest leaves no JVM behind.
# Without a launcher (scripts/setup_neo4j.sh not run) and MMKG_ALLOW_NO_NEO4J=1, start exits 0
# without a URL and the tests skip under their banner; otherwise it fails and ctest does not run them.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -eq 2 ] || { echo "usage: neo4j_ctest.sh start|stop DIR" >&2; exit 2; }
cmd=$1 dir=$2
mkdir -p "$dir"
case "$cmd" in
  start)
    rm -f "$dir/url"
    if url=$(NEO4J_WATCH_PID=${NEO4J_WATCH_PID:-$PPID} bash "$HERE/neo4j.sh" start "$dir/server"); then
      echo "$url" >"$dir/url.tmp" && mv "$dir/url.tmp" "$dir/url"
      echo "neo4j test server at $url (state in $dir/server)"
      exit 0
    fi
    if [ "${MMKG_ALLOW_NO_NEO4J:-}" = 1 ]; then
      echo "no Neo4j server (MMKG_ALLOW_NO_NEO4J=1): the Neo4j tests will skip" >&2
      exit 0
    fi
    echo "the Neo4j tests need a server: build the launcher with scripts/setup_neo4j.sh (make setup)" >&2
    exit 1
    ;;
  stop)
    rm -f "$dir/url"
    bash "$HERE/neo4j.sh" stop "$dir/server"
    ;;
  *) echo "usage: neo4j_ctest.sh start|stop DIR" >&2; exit 2 ;;
esac
