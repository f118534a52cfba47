/** Deterministic text for benchmarks: sentences over a fixed vocabulary, from a seeded generator. */

const WORDS = (
  'morning coffee garden river mountain letter window kitchen bicycle market teacher doctor museum library ' +
  'concert winter summer autumn spring travel train airport ticket passport recipe lentils oatmeal berries ' +
  'sister brother mother father friend neighbour colleague meeting project deadline budget invoice report ' +
  'holiday beach forest village city street bridge harbour island lake weather storm sunshine rain snow ' +
  'dinner lunch breakfast bakery bread cheese olive tomato pepper garlic onion salad soup pasta rice ' +
  'running swimming climbing reading writing painting music piano guitar violin movie theatre novel poem ' +
  'birthday wedding anniversary party gift flower candle lamp chair table sofa carpet mirror clock ' +
  'computer phone camera printer screen keyboard battery charger cable network password account email ' +
  'hospital pharmacy medicine allergy vitamin exercise sleep dream memory habit plan goal promise secret'
).split(' ');

const FILLER = 'the a of to and in on with for at from my our their this that was is were will had has'.split(' ');

/**
 * A Zipf-like vocabulary: the real words above, then many made-up ones, drawn with falling
 * frequency as content words are in real text (the most common in about a tenth of passages).
 * A small flat vocabulary would put every word in most passages, which no real memory does.
 */
const SYLLABLES = 'ka lo mi ner ta sul vor en dri po lak fen zu ri mo an tel bar ish ov'.split(' ');
const VOCABULARY = [...WORDS];
for (let i = 0; VOCABULARY.length < 50_000; i++) {
  let w = '';
  for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) w += SYLLABLES[n % SYLLABLES.length];
  VOCABULARY.push(w);
}
const CUMULATIVE = (() => {
  const weights = VOCABULARY.map((_, r) => 1 / (r + 100));
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  return weights.map((w) => (acc += w / total));
})();

function word(random: () => number): string {
  const x = random();
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo]!;
}

/** A small, fast, seeded generator (mulberry32), so two runs write the same corpus. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sentence(random: () => number, words = 12): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++)
    out.push(random() < 0.35 ? FILLER[Math.floor(random() * FILLER.length)]! : word(random));
  const s = out.join(' ');
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

/** Text of about `bytes` bytes, in paragraphs of a few sentences. */
export function documentText(random: () => number, bytes: number): string {
  const paragraphs: string[] = [];
  let size = 0;
  while (size < bytes) {
    const p = Array.from({ length: 3 + Math.floor(random() * 3) }, () =>
      sentence(random, 8 + Math.floor(random() * 8)),
    ).join(' ');
    paragraphs.push(p);
    size += p.length + 2;
  }
  return paragraphs.join('\n\n').slice(0, bytes);
}

/** A query of two to five content words of middling frequency, sometimes phrased as a question. */
export function query(random: () => number): string {
  const n = 2 + Math.floor(random() * 4);
  const words = Array.from({ length: n }, () => VOCABULARY[Math.floor(random() * 5000)]!);
  return random() < 0.5 ? `what about my ${words.join(' ')}?` : words.join(' ');
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
