#!/usr/bin/env python3
"""How well a model judges claims, on claims with known answers: each QA item's reference answer
paired with its own evidence quote (supported) and with another item's (not supported), shuffled,
sent three to a request with the verifier's judge prompt and schema (as src/agents/verifier.cc
sends them on 2026-12-04). Counts the claims given a verdict and the verdicts that are right.
Variant `now` is the verifier's schema; `exact` also fixes the list's length and the claim
numbers' range, so that the grammar makes the model give every verdict.

    python3 bench/judge_accuracy.py --url http://127.0.0.1:PORT QA.jsonl [QA.jsonl ...] [--variant now exact]
"""
import argparse
import json
import random
import urllib.request

SYSTEM = ("You check claims against their sources. A claim is supported only if its source states it; a claim the "
          "source contradicts, or that adds facts the source does not give, is not supported. Answer with JSON: a "
          "verdict for every claim.")


def schema(n, variant):
    claim = {"type": "integer"} if variant == "now" else {"type": "integer", "minimum": 1, "maximum": n}
    verdicts = {"type": "array", "items": {"type": "object", "properties": {"claim": claim, "supported": {"type": "boolean"}},
                                           "required": ["claim", "supported"]}}
    if variant == "exact":
        verdicts.update(minItems=n, maxItems=n)
    return {"type": "object", "properties": {"verdicts": verdicts}, "required": ["verdicts"]}


def judge(url, batch, variant):
    user = "".join(f"Claim {i + 1}: {c}\nSource {i + 1}: {s}\n\n" for i, (c, s, _) in enumerate(batch))
    body = {"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], "temperature": 0,
            "max_tokens": 30 + 25 * len(batch),
            "response_format": {"type": "json_object", "schema": schema(len(batch), variant)}}
    req = urllib.request.Request(url + "/v1/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"})
    text = json.load(urllib.request.urlopen(req, timeout=300))["choices"][0]["message"]["content"]
    out = [None] * len(batch)
    try:
        for v in json.loads(text)["verdicts"]:
            k = v.get("claim")
            if isinstance(k, int) and 1 <= k <= len(batch) and out[k - 1] is None and isinstance(v.get("supported"), bool):
                out[k - 1] = v["supported"]
    except (ValueError, KeyError, TypeError, AttributeError):
        pass  # not the schema's JSON: no verdicts, as the verifier reads it
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("qa", nargs="+")
    ap.add_argument("--url", required=True)
    ap.add_argument("--items", type=int, default=60)
    ap.add_argument("--variant", nargs="+", default=["now", "exact"])
    a = ap.parse_args()
    items = [json.loads(l) for f in a.qa for l in open(f) if l.strip()]
    items = [i for i in items if i.get("answer") and i.get("evidence") and i["evidence"][0].get("quote")][: a.items]
    claims = []
    for k, it in enumerate(items):
        claims.append((it["answer"], it["evidence"][0]["quote"], True))
        claims.append((it["answer"], items[(k + 7) % len(items)]["evidence"][0]["quote"], False))
    random.Random(1).shuffle(claims)
    for variant in a.variant:
        answered = correct = said_yes = 0
        for i in range(0, len(claims), 3):
            batch = claims[i:i + 3]
            for (_, _, truth), v in zip(batch, judge(a.url, batch, variant)):
                if v is not None:
                    answered, correct, said_yes = answered + 1, correct + (v == truth), said_yes + v
        print(json.dumps({"variant": variant, "claims": len(claims), "supported": len(claims) // 2, "answered": answered,
                          "correct": correct, "said_supported": said_yes}))


if __name__ == "__main__":
    main()
