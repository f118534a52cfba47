/**
 * The REALTALK reader (bench/lib/realtalk.ts) on small made-up chats in the data's own shape: the
 * evidence's several ids in one string and its typing slips, ids the chat lacks, turn ids that do
 * not follow the session numbers, messages of two chats interleaved by time, and an even-numbered
 * chat that must stay unread. No REALTALK data is here.
 */
import { describe, expect, it } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evidenceIds, REALTALK_HOWTO, realtalkFiles, realtalkSet, turnText } from '../../bench/lib/realtalk';
import { scratchDir } from '../helpers/scratch';

const message = (dia_id: string, speaker: string, date_time: string, clean_text: string) => ({
  clean_text,
  speaker,
  date_time,
  dia_id,
  img_file: [],
  img_url: [],
});

const chatOne = {
  name: { speaker_1: 'Mira', speaker_2: 'tomas' },
  session_1: [
    message('D1:1', 'Mira', '02.03.2024, 09:05:00', 'Morning! Are you up?'),
    message('D1:3', 'tomas', '02.03.2024, 09:07:30', 'Barely. I adopted a parrot called Kiwi yesterday'),
  ],
  session_1_date_time: '02.03.2024, 09:05:00',
  events_session_1: { agent_a: [], agent_b: [] },
  // The second session's turns go on numbering the first's, as the data's sometimes do.
  session_2: [
    message('D1:4', 'Mira', '04.03.2024, 21:00:10', 'How is Kiwi settling in?'),
    message('D1:5', 'tomas', '04.03.2024, 21:02:00', '   '),
  ],
  session_2_date_time: '04.03.2024, 21:00:10',
  qa: [
    { question: "What is the name of Tom's parrot?", answer: 'Kiwi', evidence: ['D1:3'], category: 3 },
    { question: 'What did they talk about?', answer: '', evidence: ['D1:1; D1:4', 'D1:3. D1:4'], category: 1 },
    { question: 'When was Kiwi adopted?', answer: '1 March 2024', evidence: ['D1;3', 'D:1:4.', 'D1:2'], category: 2 },
    { question: 'A question with nothing to score', answer: '', evidence: ['', 'D:56', 'D58', 'D7:1'], category: 1 },
    { question: 'Evidence that is not a list', answer: '', evidence: 'D1:1', category: 5 },
  ],
};

const chatThree = {
  name: { speaker_1: 'Ines', speaker_2: 'Bo' },
  session_1: [message('D1:1', 'Ines', '03.03.2024, 12:00:00', 'Lunch at the new ramen place?')],
  qa: [{ question: 'Where did Ines suggest lunch?', answer: 'ramen', evidence: ['D1:1'], category: 3 }],
};

function dataDir(): string {
  const dir = scratchDir();
  writeFileSync(join(dir, 'Chat_1_Mira_Tomas.json'), JSON.stringify(chatOne));
  writeFileSync(join(dir, 'Chat_3_Ines_Bo.json'), JSON.stringify(chatThree));
  // Held out: reading it would throw on its contents.
  writeFileSync(join(dir, 'Chat_2_Held_Out.json'), 'not JSON: must never be opened');
  writeFileSync(join(dir, 'notes.txt'), 'not a chat');
  return dir;
}

describe('the REALTALK reader', () => {
  it('repairs evidence: several ids in one entry, typing slips, and ids it cannot place or the chat lacks left out', () => {
    const known = new Set(['D1:1', 'D1:3', 'D1:4', 'D11:26', 'D20:6']);
    expect(evidenceIds(['D1:1; D1:3', 'D1:4'], known)).toEqual(['D1:1', 'D1:3', 'D1:4']);
    expect(evidenceIds(['D1:3. D1:4', 'D1:3'], known)).toEqual(['D1:3', 'D1:4']);
    expect(evidenceIds(['D1;3', 'D:11:26', 'D20:6.'], known)).toEqual(['D1:3', 'D11:26', 'D20:6']);
    expect(evidenceIds(['', 'D:56', 'D58', 'D2:7'], known)).toEqual([]);
    expect(evidenceIds('D1:4, D1:1', known)).toEqual(['D1:4', 'D1:1']);
    expect(evidenceIds([null, 7, { id: 'D1:1' }], known)).toEqual([]);
    expect(evidenceIds(undefined, known)).toEqual([]);
  });

  it('writes a message as an app storing it would: its time and speaker first, then the words', () => {
    expect(turnText({ speaker: 'Mira', at: Date.UTC(2024, 2, 2, 9, 5, 59), text: ' Morning! ' })).toBe(
      '[2 March 2024, 09:05] Mira: Morning!',
    );
  });

  it('reads only the odd-numbered chats, in number order', () => {
    const dir = dataDir();
    expect(realtalkFiles(dir).map((f) => f.chat)).toEqual([1, 3]);
  });

  it('makes one document a message, every chat in one set in the order the messages were sent, keyed by chat and turn id', () => {
    const set = realtalkSet(dataDir());
    expect(set.name).toBe('REALTALK chats 1, 3');
    expect(set.documents).toEqual([
      { key: 'chat1/D1:1', text: '[2 March 2024, 09:05] Mira: Morning! Are you up?' },
      { key: 'chat1/D1:3', text: '[2 March 2024, 09:07] tomas: Barely. I adopted a parrot called Kiwi yesterday' },
      { key: 'chat3/D1:1', text: '[3 March 2024, 12:00] Ines: Lunch at the new ramen place?' },
      { key: 'chat1/D1:4', text: '[4 March 2024, 21:00] Mira: How is Kiwi settling in?' },
    ]);
    expect(set.turns.map((t) => t.chat)).toEqual([1, 1, 3, 1]);
  });

  it("gives each question its chat's evidence turns and its category's name, and counts those it cannot score", () => {
    const set = realtalkSet(dataDir());
    expect(set.questions).toEqual([
      { question: "What is the name of Tom's parrot?", kind: 'open-domain', evidence: ['chat1/D1:3'] },
      {
        question: 'What did they talk about?',
        kind: 'multi-hop',
        evidence: ['chat1/D1:1', 'chat1/D1:4', 'chat1/D1:3'],
      },
      { question: 'When was Kiwi adopted?', kind: 'temporal', evidence: ['chat1/D1:3', 'chat1/D1:4'] },
      { question: 'Evidence that is not a list', kind: 'category 5', evidence: ['chat1/D1:1'] },
      { question: 'Where did Ines suggest lunch?', kind: 'open-domain', evidence: ['chat3/D1:1'] },
    ]);
    expect(set.unplaced).toBe(1);
  });

  it('says how to get the data when the folder holds no odd-numbered chat', () => {
    const dir = scratchDir();
    writeFileSync(join(dir, 'Chat_4_Held_Out.json'), '{}');
    expect(() => realtalkSet(dir)).toThrow(REALTALK_HOWTO);
    expect(REALTALK_HOWTO).toContain('danny911kr/REALTALK');
  });
});
