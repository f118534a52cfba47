/**
 * The PerLTQA reader (bench/lib/perltqa.ts) on a small made-up file pair in the data's own shape:
 * one document per memory item, each question's evidence its reference memory, the folder found
 * in a clone too, and the way to get the data said when it is missing. No PerLTQA data is here.
 */
import { describe, expect, it } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PERLTQA_HOWTO, perltqaFolder, perltqaSet } from '../../bench/lib/perltqa';
import { scratchDir } from '../helpers/scratch';

const memory = {
  'Ada Lin': {
    profile: { Protagonist: 'Ada Lin', Gender: 'female', Age: 31, Employer: '' },
    profile_description: '**Protagonist: Ada Lin**\n\nAda Lin, 31, builds bridges.',
    social_relationship: {
      '9_0': { 'Supporting Characters': 'Bo Lin', Description: "Ada's brother, a chef.", Relationship: 'brother' },
    },
    events: {
      '9_0_0': {
        content: 'Ada and Bo cooked dumplings together.',
        summary: 'Dumplings',
        'Creation Time': 'May 1, 2022',
      },
    },
    dialogues: {
      '9_0_0#0': {
        events: '9_0_0',
        contents: { '2022-05-01 10:00': ['Ada Lin: These dumplings are perfect.', 'Bo Lin: Thanks!'] },
      },
    },
  },
  'Kai Wu': { profile: { Protagonist: 'Kai Wu', Gender: 'male' }, social_relationship: {}, events: {}, dialogues: {} },
  'No Questions': {
    profile: { Protagonist: 'No Questions', Gender: 'male' },
    social_relationship: {},
    events: {},
    dialogues: {},
  },
};
const questions = [
  {
    'Ada Lin': {
      profile: [{ Question: 'How old is Ada Lin?', Answer: '31', 'Reference Memory': 'Age' }],
      social_relationship: [
        { '9_0': [{ Question: 'Who is Bo Lin to Ada?', Answer: 'Her brother.', 'Reference Memory': "['9_0']" }] },
      ],
      events: [
        { '9_0_0': [{ Question: 'What did Ada and Bo cook?', Answer: 'Dumplings.', 'Reference Memory': "['9_0_0']" }] },
      ],
      dialogues: [
        {
          '9_0_0#0': [
            { Question: 'What did Ada say of the dumplings?', Answer: 'Perfect.', 'Reference Memory': "['9_0_0#0']" },
          ],
        },
        {
          '9_9_9#9': [
            { Question: 'A question about memory the data lacks?', Answer: '', 'Reference Memory': "['9_9_9#9']" },
          ],
        },
      ],
    },
  },
  {
    'Kai Wu': {
      profile: [{ Question: "What is Kai Wu's gender?", Answer: 'Male.', 'Reference Memory': 'Gender' }],
      social_relationship: [],
      events: [],
      dialogues: [],
    },
  },
];

function dataDir(): string {
  const dir = scratchDir();
  const folder = join(dir, 'Dataset', 'en_v2');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'perltmem_en_v2.json'), JSON.stringify(memory));
  writeFileSync(join(folder, 'perltqa_en_v2.json'), JSON.stringify(questions));
  return dir;
}

describe('the PerLTQA reader', () => {
  it('makes one document per memory item of the characters that have questions, keyed by character, kind and id', () => {
    const set = perltqaSet(dataDir());
    expect(set.name).toBe('PerLTQA en_v2 (2 characters)');
    expect(set.documents.map((d) => d.key)).toEqual([
      'Ada Lin/profile/Gender',
      'Ada Lin/profile/Age',
      'Ada Lin/profile/description',
      'Ada Lin/social_relationship/9_0',
      'Ada Lin/events/9_0_0',
      'Ada Lin/dialogues/9_0_0#0',
      'Kai Wu/profile/Gender',
    ]);
    const text = Object.fromEntries(set.documents.map((d) => [d.key, d.text]));
    expect(text['Ada Lin/profile/Age']).toBe("Ada Lin's age: 31");
    expect(text['Ada Lin/social_relationship/9_0']).toBe("Ada Lin's brother: Bo Lin. Ada's brother, a chef.");
    expect(text['Ada Lin/events/9_0_0']).toBe('Dumplings (May 1, 2022)\n\nAda and Bo cooked dumplings together.');
    expect(text['Ada Lin/dialogues/9_0_0#0']).toBe(
      '[2022-05-01 10:00]\nAda Lin: These dumplings are perfect.\nBo Lin: Thanks!',
    );
    expect(text['Ada Lin/profile/description']).not.toContain('**');
  });

  it('gives each question its reference memory as evidence and its section as kind, leaving out what the data does not hold', () => {
    const set = perltqaSet(dataDir());
    expect(set.questions).toEqual([
      { question: 'How old is Ada Lin?', kind: 'profile', evidence: ['Ada Lin/profile/Age'] },
      { question: 'Who is Bo Lin to Ada?', kind: 'social_relationship', evidence: ['Ada Lin/social_relationship/9_0'] },
      { question: 'What did Ada and Bo cook?', kind: 'events', evidence: ['Ada Lin/events/9_0_0'] },
      { question: 'What did Ada say of the dumplings?', kind: 'dialogues', evidence: ['Ada Lin/dialogues/9_0_0#0'] },
      { question: "What is Kai Wu's gender?", kind: 'profile', evidence: ['Kai Wu/profile/Gender'] },
    ]);
    expect(perltqaSet(dataDir(), 1).questions.map((q) => q.evidence[0]!.split('/')[0])).toEqual(
      Array(4).fill('Ada Lin'),
    );
  });

  it("finds the files in the folder given or in a clone's Dataset/en_v2, and says how to get them when neither holds them", () => {
    const dir = dataDir();
    expect(perltqaFolder(dir)).toBe(join(dir, 'Dataset', 'en_v2'));
    expect(perltqaFolder(join(dir, 'Dataset', 'en_v2'))).toBe(join(dir, 'Dataset', 'en_v2'));
    const empty = scratchDir();
    expect(perltqaFolder(empty)).toBeNull();
    expect(() => perltqaSet(empty)).toThrow(PERLTQA_HOWTO);
    expect(PERLTQA_HOWTO).toContain('Elvin-Yiming-Du/PerLTQA');
  });
});
