"""A real Neo4j 5.26 for the end-to-end tests, started with scripts/neo4j.sh (built by
`make setup` from Maven Central's neo4j-harness). Not skipped: if it cannot start, tests fail."""
import json
import os
import pathlib
import subprocess
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]


class Neo4j:
    def __init__(self, state_dir):
        self.dir = str(state_dir)
        env = os.environ.get("MMKG_NEO4J_URL")
        self.owned = not env
        if env:
            self.url = env.rstrip("/")
        else:
            # The server stops itself if this pytest process dies without stopping it.
            p = subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), "start", self.dir],
                               capture_output=True, text=True, timeout=300,
                               env={**os.environ, "NEO4J_WATCH_PID": str(os.getpid())})
            if p.returncode != 0:
                raise RuntimeError(f"Neo4j did not start (run `make setup`): {p.stderr.strip()}")
            self.url = p.stdout.strip().splitlines()[-1].rstrip("/")
        host = self.url.split("://", 1)[1]
        self.spec = f"neo4j://neo4j:test@{host}"

    def query(self, statement, parameters=None):
        body = json.dumps({"statement": statement, "parameters": parameters or {}}).encode()
        req = urllib.request.Request(self.url + "/db/neo4j/query/v2", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Accept": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            out = json.loads(r.read())
        if out.get("errors"):
            raise RuntimeError(f"{statement[:80]}: {out['errors']}")
        return out["data"]["values"]

    def run_many(self, statements, batch=500):
        """Runs statements through the transactional endpoint, `batch` per request and transaction."""
        for i in range(0, len(statements), batch):
            body = json.dumps({"statements": [{"statement": s} for s in statements[i:i + batch]]}).encode()
            req = urllib.request.Request(self.url + "/db/neo4j/tx/commit", data=body, method="POST",
                                         headers={"Content-Type": "application/json", "Accept": "application/json"})
            with urllib.request.urlopen(req, timeout=300) as r:
                out = json.loads(r.read())
            if out.get("errors"):
                raise RuntimeError(f"statements {i}..{i + batch}: {out['errors'][:2]}")

    def stop(self):
        if self.owned:
            subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), "stop", self.dir], timeout=120)
