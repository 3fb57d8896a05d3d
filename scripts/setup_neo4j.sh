#!/usr/bin/env bash
# Idempotent: builds the test-only Neo4j 5.26 launcher (scripts/neo4j, neo4j-harness from Maven
# Central) into scripts/neo4j/target/ (neo4j-launcher.jar + lib/). Installs Java 17 and Maven from
# Debian's packages first if they are missing. Quiet when the build is already up to date.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROJ="$HERE/neo4j"
TARGET="$PROJ/target"
JAR="$TARGET/neo4j-launcher.jar"
STAMP="$TARGET/.mmkg-build-stamp"

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

java_major() {  # prints the major version of the given java binary, or 0
  "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\)[."].*/\1/p' | head -1 | grep . || echo 0
}

# --- Java 17+ and Maven -------------------------------------------------------------------------
JAVA_BIN=""
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then JAVA_BIN="$JAVA_HOME/bin/java";
elif command -v java >/dev/null 2>&1; then JAVA_BIN=$(command -v java); fi
need=()
if [ -z "$JAVA_BIN" ] || [ "$(java_major "$JAVA_BIN")" -lt 17 ] || ! command -v javac >/dev/null 2>&1; then
  need+=(openjdk-17-jdk-headless)
fi
command -v mvn >/dev/null 2>&1 || need+=(maven)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# If the default java is still older than 17 (another JDK is first on PATH), point Maven at 17.
if [ -z "${JAVA_HOME:-}" ] || [ "$(java_major "$JAVA_HOME/bin/java")" -lt 17 ]; then
  if ! command -v java >/dev/null 2>&1 || [ "$(java_major "$(command -v java)")" -lt 17 ]; then
    for d in /usr/lib/jvm/java-17-openjdk-*; do
      if [ -x "$d/bin/java" ]; then export JAVA_HOME="$d"; break; fi
    done
  fi
fi

# --- build, only when out of date -----------------------------------------------------------------
# The stamp is a hash of everything the build reads; a change to pom.xml or the source rebuilds.
want=$(cd "$PROJ" && { cat pom.xml; find src -type f -name '*.java' -print0 | LC_ALL=C sort -z | xargs -0 cat; } \
       | sha256sum | cut -d' ' -f1)

exec 9<"$PROJ/pom.xml"   # serialize concurrent setups (lock on a file that always exists)
flock 9

if [ -f "$JAR" ] && [ -d "$TARGET/lib" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  echo "setup: neo4j launcher present"
  exit 0
fi

echo "setup: building neo4j launcher with Maven (first run downloads ~145 MB from Maven Central)"
start=$(date +%s)
rm -rf "$TARGET"
mkdir -p "$TARGET"
LOG="$TARGET/mvn-build.log"
if ! (cd "$PROJ" && mvn -B -q -Dstyle.color=never package) >"$LOG" 2>&1; then
  tail -n 30 "$LOG" >&2
  echo "setup: Maven build of scripts/neo4j failed (full log: $LOG); check that Maven Central is reachable and rerun scripts/setup_neo4j.sh" >&2
  exit 1
fi
echo "$want" >"$STAMP"
echo "setup: built neo4j launcher in $(( $(date +%s) - start )) s ($(ls "$TARGET/lib" | wc -l) jars in $TARGET/lib)"
