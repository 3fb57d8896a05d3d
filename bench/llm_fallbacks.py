#!/usr/bin/env python3
"""How often each step of an ask falls back from the language model to its rules, over a QA
file: one `mmkg serve --llm SPEC` on STORE (one model server for every question), each question
POSTed to /api/ask, each step of its trace tallied: the planner (llm, rules, or a fallback and
why), the synthesizer (llm or extractive, and its fallback), the judge (sentences judged, errors)
and the verifier's fallback. Prints one JSON report on stdout.

    python3 bench/llm_fallbacks.py QA.jsonl --store STORE [--llm local] [--mmkg build/mmkg] [--limit N]
        [--options '{"max_rounds": 1, "judge": "none"}']

--options are /api/ask fields sent with every question (docs/API.md), e.g. a small context and no
second round to count the planner's fallbacks over many questions at little cost.

--follow-up asks each question as the follow-up of a conversation, to count the rewriter's: for a
question that names its first evidence document (by file name, "Lothair II"), the history is "What
do the documents say about Lothair II?" and that document's evidence quote, and the question
asked says "their" for "Lothair II's" and "it" for "Lothair II"; other questions are skipped. A
rewrite is counted right when it names the document again.
"""
import argparse
import collections
import json
import re
import subprocess
import sys
import time
import urllib.request


def post(url, body, timeout=900):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.load(r)


def first_words(text, n=40):
    return " ".join(str(text).split()[:n])


def follow_up(it):
    ev = it.get("evidence") or [{}]
    name = re.sub(r"\.[a-z0-9]+$", "", ev[0].get("doc", ""))
    q = it["question"]
    if not name or not ev[0].get("quote") or name.lower() not in q.lower():
        return None
    said = re.sub(re.escape(name) + "'s", "their", q, flags=re.I)
    said = re.sub(re.escape(name), "it", said, flags=re.I)
    history = [{"role": "user", "content": f"What do the documents say about {name}?"},
               {"role": "assistant", "content": ev[0]["quote"]}]
    return {**it, "question": said, "history": history, "names": name}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("qa")
    ap.add_argument("--store", required=True)
    ap.add_argument("--llm", default="local")
    ap.add_argument("--mmkg", default="build/mmkg")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--options", default="{}", help="JSON object of /api/ask fields sent with each question")
    ap.add_argument("--follow-up", action="store_true", help="ask each question as a follow-up (see above)")
    a = ap.parse_args()
    options = json.loads(a.options)
    items = [json.loads(l) for l in open(a.qa) if l.strip()]
    if a.follow_up:
        items = [f for f in map(follow_up, items) if f]
    if a.limit:
        items = items[: a.limit]
    proc = subprocess.Popen([a.mmkg, "serve", "--store", a.store, "--llm", a.llm, "--port", "0", "--quiet",
                             "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = re.search(r"http://[\d.:]+", proc.stdout.readline()).group(0)
        steps = collections.defaultdict(collections.Counter)
        reasons = collections.defaultdict(collections.Counter)
        plans = []  # each question's first plan, to read what was searched for
        per_question = []
        t0 = time.time()
        for it in items:
            tq = time.time()
            body = {**options, "question": it["question"]}
            if "history" in it:
                body["history"] = it["history"]
            ans = post(url + "/api/ask", body)
            per_question.append(round(time.time() - tq, 1))
            for s in ans["trace"]:
                name = s["step"] + (f"@{s['round']}" if s.get("round", 0) > 1 else "")
                c = steps[name]
                c["runs"] += 1
                if "planner" in s:
                    c["planner=" + s["planner"]] += 1
                    if name == "plan":
                        plans.append({"id": it.get("id", ""), "planner": s["planner"],
                                      "subqueries": s.get("subqueries", [])})
                if "synthesizer" in s:
                    c["synthesizer=" + s["synthesizer"]] += 1
                if "judge" in s:
                    c["judge_runs"] += 1
                    c["judge_sentences"] += s["judge"].get("sentences", 0)
                    c["judge_answered"] += s["judge"].get("answered", 0)
                    if s["judge"].get("error"):
                        c["judge_errors"] += 1
                        reasons[name + ".judge"][first_words(s["judge"]["error"])] += 1
                if s["step"] == "rewrite":
                    c["method=" + s.get("method", "")] += 1
                    c["names_it"] += it.get("names", "").lower() in s.get("question", "").lower()
                if s.get("fallback"):
                    c["fallback"] += 1
                    reasons[name][first_words(s["fallback"])] += 1
        report = {"qa": a.qa, "store": a.store, "llm": a.llm, "options": options, "questions": len(items),
                  "seconds": round(time.time() - t0, 1), "question_seconds": per_question, "steps": steps,
                  "fallback_reasons": reasons, "plans": plans}
        print(json.dumps(report, indent=1, sort_keys=True))
    finally:
        proc.terminate()
        proc.wait(60)


if __name__ == "__main__":
    sys.exit(main())
