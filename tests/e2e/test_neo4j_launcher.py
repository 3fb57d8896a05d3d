"""scripts/neo4j.sh with NEO4J_WATCH_PID: a test server outlives no test run that was killed."""
import os
import pathlib
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def alive(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            state = next((l.split()[1] for l in f if l.startswith("State:")), "X")
        return state not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return False


def test_neo4j_server_stops_when_the_watched_process_dies(tmp_path):
    # Stands in for a ctest or pytest process that is killed before it can stop its server.
    watched = subprocess.Popen(["sleep", "3600"])
    state = tmp_path / "neo4j"
    try:
        p = subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), "start", str(state)],
                           capture_output=True, text=True, timeout=300,
                           env={**os.environ, "NEO4J_WATCH_PID": str(watched.pid)})
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip().startswith("http://127.0.0.1:")
        server = int((state / "neo4j.pid").read_text())
        assert alive(server)
        watched.kill()
        watched.wait()
        # Liveness bound, not a speed assertion: a clean Neo4j close takes seconds.
        for _ in range(1200):
            if not alive(server):
                break
            time.sleep(0.1)
        assert not alive(server), "the server outlived the process it watched"
        log = (state / "neo4j.log").read_text()
        assert f"watched process {watched.pid} ended, shutting down" in log
        assert "stopped in" in log  # a clean close, not a kill
    finally:
        if watched.poll() is None:
            watched.kill()
        subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), "stop", str(state)], timeout=120)
