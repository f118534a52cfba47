/**
 * Max-sim: a passage scored by its best sentence unit finds a fact buried in a long passage about
 * many things, where the passage's one whole-text vector, an average of all its topics, does not.
 */
import { describe, expect, it } from 'bun:test';
import { embeddingUnits } from '../../src/learning/embedding-units';
import { loadStaticEmbedder } from '../../src/embedders/static-embedder';
import { quantize } from '../../src/storage/stored-vector';
import { scratchIndex } from '../helpers/scratch';

const embedder = loadStaticEmbedder();

/** Long diary passages: each question's answer is one sentence among unrelated ones. */
const LONG = [
  "The landlord finally repaired the leaking kitchen tap on Tuesday after three weeks of emails. My sister has been practising the violin every evening for her audition at the conservatory. The tram line past the office is closed until spring, so the commute takes an hour now. We ate far too much cake at the neighbours' barbecue and the children stayed up past midnight.",
  'Quarterly reports are due on Friday and the spreadsheet still refuses to add up. Our old labrador has arthritis in her back legs and the vet prescribed daily tablets. I repainted the hallway a pale green colour that looks grey in the morning light. The book club picked a thousand-page novel, which nobody will finish by next month.',
  'The garden hose split again, flooding the tomato bed before anyone noticed it. Dad booked flights to Lisbon for the first week of October to celebrate their anniversary. I keep losing my reading glasses somewhere between the sofa and the bathroom. The football team lost on penalties, and the coach blamed the wet pitch for it.',
  'My manager approved the request to work from home on Mondays and Thursdays. The bakery on the corner started selling sourdough bread that sells out by nine. Grandma taught me her recipe for plum dumplings, which needs a whole afternoon. I signed up for a pottery class that meets on Wednesday nights at the community centre.',
];
/** Short passages, each close to a question's words but not its answer. */
const SHORT = [
  'Auditions for the school play are announced on the noticeboard.',
  'The conservatory roof needs cleaning after the storm.',
  'Veterinary clinics close early on public holidays.',
  'Portugal has many beaches and a mild climate.',
  'Remote work policies differ between companies.',
  'Clay, glazes and kilns are sold at the craft shop downtown.',
  'The orchestra tickets were expensive this season.',
  'Pet insurance rarely covers old age illnesses.',
];
const QUESTIONS: [string, number][] = [
  ['Which musical instrument is my sister learning?', 0],
  ['What medication does the dog take for its joints?', 1],
  ['Where are my parents travelling for their anniversary?', 2],
  ['Which days can I work remotely?', 3],
  ['What evening class did I join?', 3],
  ['Why is my commute longer?', 0],
];

function meanReciprocalRank(unitsOf: (text: string) => string[]): number {
  const index = scratchIndex(embedder.dimensions);
  for (const [id, text] of [...LONG, ...SHORT].entries())
    index.add(id, 'c', embedder.embed(unitsOf(text)).map(quantize));
  let total = 0;
  for (const [q, want] of QUESTIONS) {
    const rank = index.search(embedder.embed([q])[0]!, ['c'], 20).findIndex((h) => h.passageId === want);
    total += rank < 0 ? 0 : 1 / (rank + 1);
  }
  return total / QUESTIONS.length;
}

describe('max-sim', () => {
  it("splits a passage into its whole text and sentence groups, keeping a chat turn's date and speaker on each", () => {
    const turn = { title: null, content: `[8 May 2023] Caroline: ${LONG[0]}` };
    const units = embeddingUnits(turn, 'fast');
    expect(units[0]).toBe(`[8 May 2023] Caroline: ${LONG[0]}`);
    expect(units.length).toBeGreaterThan(2);
    for (const u of units.slice(1)) expect(u).toStartWith('[8 May 2023] Caroline: ');
    // The strong tier embeds the same sentence groups without the whole: it pays per token.
    expect(embeddingUnits(turn, 'strong')).toEqual(units.slice(1));
    for (const tier of ['fast', 'strong'] as const) {
      expect(embeddingUnits({ title: 'Diary', content: 'One short sentence.' }, tier)).toEqual([
        'Diary\nOne short sentence.',
      ]);
    }
  });

  it('ranks the passage holding the answer higher than whole-passage vectors do', () => {
    const whole = meanReciprocalRank((text) => [text]);
    const maxSim = meanReciprocalRank((text) => embeddingUnits({ title: null, content: text }, 'fast'));
    expect(maxSim).toBeGreaterThan(whole + 0.05);
    // The strong tier's units (the groups without the whole) keep that gain.
    expect(meanReciprocalRank((text) => embeddingUnits({ title: null, content: text }, 'strong'))).toBeGreaterThan(
      whole + 0.05,
    );
  });
});
