"""The OpenAI-compatible chat client against a real server: llama-cpp-python serving SmolLM2-135M.
Runs the ChatLocal gtests (src/llm/openai_chat_test.cc) with MMKG_TEST_LLM_URL pointing at it:
one plain and one streamed chat (SSE from a real llama.cpp), and structured output."""
import os
import pathlib
import subprocess

import pytest

from model_server import ModelServer, smollm2_gguf

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = os.environ.get("MMKG_TESTS_BIN", str(ROOT / "build" / "mmkg_tests"))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("llama") / "server.log"
    s = ModelServer(smollm2_gguf(), log_path=str(log))
    yield s
    s.stop()


def run_gtest(server, name):
    env = dict(os.environ, MMKG_TEST_LLM_URL=server.url + "#model=smollm2")
    p = subprocess.run([TESTS, f"--gtest_filter=ChatLocal.{name}"], capture_output=True, text=True,
                       timeout=600, env=env, stdin=subprocess.DEVNULL)
    out = p.stdout + p.stderr
    print(out)
    assert p.returncode == 0, out[-4000:]
    assert "[  PASSED  ] 1 test" in out, out[-4000:]
    assert "SKIPPED" not in out, out[-4000:]
    return out


def test_plain_and_streamed_chat(server):
    out = run_gtest(server, "PlainAndStreamedAnswers")
    assert "plain: " in out and "streamed (" in out


def test_structured_output(server):
    run_gtest(server, "StructuredOutput")
