#!/usr/bin/env bash
# Test-only Neo4j 5.26 server on 127.0.0.1 (auth disabled), built by scripts/setup_neo4j.sh.
#
#   scripts/neo4j.sh start DIR [PORT]   start in the background with its state in DIR; waits until
#                                       the Query API answers RETURN 1, then prints the base URL
#                                       (http://127.0.0.1:PORT) on stdout. PORT 0/absent = free port.
#                                       If a server for DIR is already up, just prints its URL.
#   scripts/neo4j.sh stop DIR           SIGTERM, wait for a clean shutdown (SIGKILL after 60 s).
#   scripts/neo4j.sh status DIR         prints the URL and exits 0 if running, else exits 1.
#
# In DIR: neo4j.pid, neo4j.url (NEO4J_HTTP=..., NEO4J_BOLT=...), neo4j.log (launcher output),
# data/ (the store: a fresh, empty database on every start; deleted on a clean stop).
# Environment: NEO4J_HEAP (default 512m), NEO4J_PAGECACHE_MB (default 32),
#              NEO4J_START_TIMEOUT seconds (default 120), JAVA_HOME,
#              NEO4J_WATCH_PID (the server stops itself when that process ends: a killed test
#              run leaves no JVM behind).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JAR="$HERE/neo4j/target/neo4j-launcher.jar"

die() { echo "neo4j.sh: $*" >&2; exit 1; }

usage() { die "usage: neo4j.sh start DIR [PORT] | stop DIR | status DIR"; }

[ $# -ge 2 ] && [ -n "$2" ] || usage
cmd=$1
case "$cmd" in
  start) mkdir -p "$2" 2>/dev/null || die "cannot create state directory $2" ;;
  stop) [ -d "$2" ] || exit 0 ;;
  status) [ -d "$2" ] || exit 1 ;;
  *) usage ;;
esac
DIR=$(cd "$2" && pwd)
PIDF="$DIR/neo4j.pid"
URLF="$DIR/neo4j.url"
LOGF="$DIR/neo4j.log"

# True while PID exists and is not a zombie (kill -0 succeeds on an unreaped child).
alive() {
  local st
  st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# PID of our launcher for DIR, if it is alive (guards against a recycled PID).
running_pid() {
  [ -f "$PIDF" ] || return 1
  local pid
  pid=$(cat "$PIDF" 2>/dev/null) || return 1
  [ -n "$pid" ] && alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "neo4j-launcher.jar --dir $DIR/data" || return 1
  echo "$pid"
}

base_url() { [ -f "$URLF" ] && sed -n 's/^NEO4J_HTTP=//p' "$URLF" 2>/dev/null || true; }

# True when the Query API answers RETURN 1 at the given base URL.
query_ok() {
  curl -s -m 5 -X POST "$1/db/neo4j/query/v2" \
    -H 'Content-Type: application/json' -H 'Accept: application/json' \
    -d '{"statement":"RETURN 1 AS ok"}' 2>/dev/null | grep -q '"values":\[\[1\]\]'
}

find_java() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then echo "$JAVA_HOME/bin/java"; return; fi
  local j
  for j in $(command -v java 2>/dev/null) /usr/lib/jvm/java-17-openjdk-*/bin/java; do
    if [ -x "$j" ] && "$j" -version 2>&1 | grep -qE 'version "(1[7-9]|[2-9][0-9])'; then echo "$j"; return; fi
  done
  return 1
}

case "$cmd" in
  start)
    port=${3:-0}
    [[ "$port" =~ ^[0-9]+$ ]] || die "PORT must be a number (0 = pick a free port), got '$port'"
    command -v curl >/dev/null 2>&1 || die "curl not found; install it (apt-get install curl)"
    [ -f "$JAR" ] && [ -d "$HERE/neo4j/target/lib" ] || die "launcher not built; run scripts/setup_neo4j.sh first"
    JAVA=$(find_java) || die "Java 17+ not found; run scripts/setup_neo4j.sh (installs openjdk-17-jdk-headless) or set JAVA_HOME"

    if pid=$(running_pid); then
      url=$(base_url)
      if [ -n "$url" ] && query_ok "$url"; then echo "$url"; exit 0; fi
      die "a server for $DIR is running (pid $pid) but does not answer; run scripts/neo4j.sh stop $DIR"
    fi
    # Nothing of ours runs for DIR: drop stores left by a crashed or killed earlier run.
    rm -rf "$DIR/data"
    rm -f "$PIDF" "$URLF" "$URLF.tmp"
    mkdir -p "$DIR/data"

    nohup "$JAVA" -Xms64m -Xmx"${NEO4J_HEAP:-512m}" -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError \
      -jar "$JAR" --dir "$DIR/data" --port "$port" --url-file "$URLF" \
      --pagecache-mb "${NEO4J_PAGECACHE_MB:-32}" --ignore-stdin ${NEO4J_WATCH_PID:+--watch-pid "$NEO4J_WATCH_PID"} \
      </dev/null >"$LOGF" 2>&1 &
    pid=$!
    echo "$pid" >"$PIDF"

    timeout=${NEO4J_START_TIMEOUT:-120}
    deadline=$(( $(date +%s) + timeout ))
    while :; do
      if ! alive "$pid"; then
        rm -f "$PIDF"
        die "server exited during startup (port $port in use? see $LOGF)"
      fi
      url=$(base_url)
      if [ -n "$url" ] && query_ok "$url"; then echo "$url"; exit 0; fi
      if [ "$(date +%s)" -ge "$deadline" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        die "server did not answer RETURN 1 within ${timeout}s (see $LOGF; raise NEO4J_START_TIMEOUT)"
      fi
      sleep 0.5
    done
    ;;

  stop)
    if ! pid=$(running_pid); then
      rm -f "$PIDF" "$URLF"
      exit 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 600); do   # 60 s
      alive "$pid" || { rm -f "$PIDF" "$URLF"; exit 0; }
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$PIDF" "$URLF"
    die "server (pid $pid) did not stop within 60 s and was killed; its store in $DIR/data may need rm -rf"
    ;;

  status)
    if pid=$(running_pid) && url=$(base_url) && [ -n "$url" ] && query_ok "$url"; then
      echo "$url"; exit 0
    fi
    exit 1
    ;;

  *) usage ;;
esac
