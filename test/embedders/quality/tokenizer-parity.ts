/**
 * Compares wordpiece.ts with HF `tokenizers` on the reference tokenisations that
 * tokenizer_parity.py writes (run that first). Not run by CI.
 *
 *   node_modules/.bin/bun test/embedders/quality/tokenizer-parity.ts
 */
import { readFileSync } from 'node:fs';
import { loadStaticEmbedder } from '../../../src/embedders/static-embedder';

const DIR = '/tmp/engram-tokenizer-parity';
const tok = loadStaticEmbedder().tokenizer;

const fuzz = JSON.parse(readFileSync(`${DIR}/fuzz.json`, 'utf8')) as { text: string; ids: number[] }[];
let fuzzBad = 0;
for (const c of fuzz) if (tok.encodeIds(c.text).join(' ') !== c.ids.join(' ')) fuzzBad++;
console.log(`random strings: ${fuzzBad} of ${fuzz.length} differ`);

const lines = readFileSync(`${DIR}/codepoints.tsv`, 'utf8').split('\n').filter(Boolean);
const bad: string[] = [];
for (const line of lines) {
  const [cp, alone, inside] = line.split('\t');
  const ch = String.fromCodePoint(Number(cp));
  if (tok.encodeIds(ch).join(' ') !== alone || tok.encodeIds(`Ab${ch}cd${ch}${ch}`).join(' ') !== inside)
    bad.push(Number(cp).toString(16));
}
console.log(
  `code points: ${bad.length} of ${lines.length} differ${bad.length ? `: U+${bad.slice(0, 12).join(', U+')}${bad.length > 12 ? ', …' : ''}` : ''}`,
);
