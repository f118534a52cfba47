"""Reference tokenisations for tokenizer-parity.ts: every Unicode code point (alone, and inside a
word) and 20,000 random mixed-script strings, tokenised by HF `tokenizers` set up from the committed
model's config.json and vocab.txt, as eval_python.py does. Not run by CI.

    /tmp/m2v-venv/bin/python test/embedders/quality/tokenizer_parity.py
    node_modules/.bin/bun test/embedders/quality/tokenizer-parity.ts

Writes /tmp/engram-tokenizer-parity/{codepoints.tsv,fuzz.json}.
"""

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_python import REPO, build_tokenizer  # noqa: E402

OUT = Path("/tmp/engram-tokenizer-parity")


def main() -> None:
    tok = build_tokenizer(REPO / "models" / "minilm-l6-static")
    OUT.mkdir(parents=True, exist_ok=True)
    cps = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    with (OUT / "codepoints.tsv").open("w", encoding="utf-8") as f:
        for i in range(0, len(cps), 20000):
            chunk = cps[i : i + 20000]
            alone = tok.encode_batch([chr(c) for c in chunk], add_special_tokens=False)
            inside = tok.encode_batch(["Ab" + chr(c) + "cd" + chr(c) * 2 for c in chunk], add_special_tokens=False)
            for c, a, b in zip(chunk, alone, inside):
                f.write(f"{c}\t{' '.join(map(str, a.ids))}\t{' '.join(map(str, b.ids))}\n")

    rng = random.Random(7)
    pools = ["abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", " \t\n\r\u00a0\u2003\u3000",
             "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿßÀÉÎÕÜŒœĞİışŞΣσςΑΩαωЖжЯя",
             "東京北京日本語中文字한국어서울ひらがなカタカナ", "\u0000\u0007\u200b\u00ad\ufeff\ufffd\ue000\u0301\u0308\u0327",
             "😀👍🏽🇫🇷𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ﬁﬂ½²ⅫⓐＡＢＣ１２３"]
    words = ["the", "breakfast", "unbelievable", "antidisestablishment", "[UNK]", "[PAD]", "[CLS]", "Straße", "naïve", "hello"]
    texts = []
    for _ in range(20000):
        parts = []
        for _ in range(rng.randint(0, 30)):
            r = rng.random()
            if r < 0.3:
                parts.append(rng.choice(words))
            elif r < 0.5:
                parts.append(" ")
            else:
                pool = rng.choice(pools)
                parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 8))))
        if rng.random() < 0.02:
            parts.append("y" * rng.randint(95, 105))
        texts.append("".join(parts))
    enc = tok.encode_batch(texts, add_special_tokens=False)
    (OUT / "fuzz.json").write_text(json.dumps([{"text": t, "ids": e.ids} for t, e in zip(texts, enc)]), encoding="utf-8")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
