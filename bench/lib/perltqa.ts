/**
 * PerLTQA (Du et al., 2024) as a retrieval benchmark: characters' profiles, relationships, events
 * and dialogues, one document per memory item, and the questions labelled with the item that
 * answers them. The data is CC BY-NC 4.0 and is never committed here: the benchmark reads the
 * `Dataset/en_v2/` files from a path (PERLTQA_HOWTO says how to get them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalSet } from './retrieval-eval';

export const PERLTQA_HOWTO =
  'PerLTQA is not part of this project (CC BY-NC 4.0). Get it with `git clone https://github.com/Elvin-Yiming-Du/PerLTQA` ' +
  '(or download Dataset/en_v2/perltmem_en_v2.json and perltqa_en_v2.json) and pass the clone, or the folder holding the ' +
  'two files, with --perltqa DIR (or ENGRAM_PERLTQA=DIR).';

const FILES = { memory: 'perltmem_en_v2.json', questions: 'perltqa_en_v2.json' };
/** The memory kinds, in the order a character's documents are added, and the question kinds. */
const PERLTQA_KINDS = ['profile', 'social_relationship', 'events', 'dialogues'] as const;
type Kind = (typeof PERLTQA_KINDS)[number];

interface Character {
  profile: Record<string, string | number>;
  profile_description?: string;
  social_relationship: Record<string, { 'Supporting Characters': string; Description: string; Relationship: string }>;
  events: Record<string, { content: string; summary?: string; 'Creation Time'?: string }>;
  dialogues: Record<string, { events?: string; contents: Record<string, string[]> }>;
}
interface Question {
  Question: string;
  'Reference Memory': string;
}
/** Profile questions are a flat list; the other kinds are grouped by the memory they ask about. */
type Questions = Record<Kind, Question[] | Record<string, Question[]>[]>;

/** The folder holding the two files: DIR itself, or DIR/Dataset/en_v2 of a clone. */
export function perltqaFolder(dir: string): string | null {
  for (const d of [dir, join(dir, 'Dataset', 'en_v2')])
    if (existsSync(join(d, FILES.memory)) && existsSync(join(d, FILES.questions))) return d;
  return null;
}

/**
 * The benchmark over the characters that have questions (the first `characters` of them when
 * given): every memory item of theirs is a document, keyed `<name>/<kind>/<id>`, added character by
 * character in the data's own order (profile, relationships, events, dialogues); a question's
 * evidence is its reference memory, its kind the section it is filed under.
 */
export function perltqaSet(dir: string, characters = Infinity): EvalSet {
  const folder = perltqaFolder(dir);
  if (!folder)
    throw new Error(
      `no ${FILES.memory} and ${FILES.questions} in ${dir} or ${join(dir, 'Dataset', 'en_v2')}. ${PERLTQA_HOWTO}`,
    );
  const memory = JSON.parse(readFileSync(join(folder, FILES.memory), 'utf8')) as Record<string, Character>;
  const asked = JSON.parse(readFileSync(join(folder, FILES.questions), 'utf8')) as Record<string, Questions>[];
  const documents: EvalSet['documents'] = [];
  const questions: EvalSet['questions'] = [];
  const names = asked
    .map((entry) => Object.keys(entry)[0]!)
    .filter((name) => memory[name])
    .slice(0, characters);
  for (const name of names) {
    const keys = new Set<string>();
    for (const { key, text } of memoryDocuments(name, memory[name]!)) {
      keys.add(key);
      documents.push({ key, text });
    }
    const entry = asked.find((e) => e[name])![name]!;
    for (const kind of PERLTQA_KINDS) {
      for (const group of entry[kind] ?? []) {
        const items: [string | null, Question][] =
          'Question' in group
            ? [[null, group as Question]]
            : Object.entries(group as Record<string, Question[]>).flatMap(([id, list]) =>
                list.map((q): [string, Question] => [id, q]),
              );
        for (const [id, q] of items) {
          const key = `${name}/${kind}/${referenceOf(id, q['Reference Memory'])}`;
          // A few questions name memory the data does not hold; they cannot be scored.
          if (keys.has(key)) questions.push({ question: q.Question, kind, evidence: [key] });
        }
      }
    }
  }
  return { name: `PerLTQA en_v2 (${names.length} characters)`, documents, questions };
}

/** "['4_0_1']" → 4_0_1; a profile question's reference is the attribute's name. */
function referenceOf(groupId: string | null, reference: string): string {
  return reference.match(/'([^']+)'/)?.[1] ?? groupId ?? reference.trim();
}

/** A character's memory items as documents, each read as a person would have saved it. */
function memoryDocuments(name: string, c: Character): { key: string; text: string }[] {
  const out: { key: string; text: string }[] = [];
  for (const [attribute, value] of Object.entries(c.profile)) {
    if (attribute !== 'Protagonist' && String(value).trim())
      out.push({ key: `${name}/profile/${attribute}`, text: `${name}'s ${attribute.toLowerCase()}: ${value}` });
  }
  if (c.profile_description?.trim())
    out.push({ key: `${name}/profile/description`, text: c.profile_description.replace(/\*\*/g, '') });
  for (const [id, r] of Object.entries(c.social_relationship)) {
    out.push({
      key: `${name}/social_relationship/${id}`,
      text: `${name}'s ${r.Relationship}: ${r['Supporting Characters']}. ${r.Description}`,
    });
  }
  for (const [id, e] of Object.entries(c.events)) {
    const when = e['Creation Time'] ? ` (${e['Creation Time']})` : '';
    out.push({ key: `${name}/events/${id}`, text: `${e.summary ?? ''}${when}\n\n${e.content}`.trim() });
  }
  for (const [id, d] of Object.entries(c.dialogues)) {
    const turns = Object.entries(d.contents).map(([at, lines]) => `[${at}]\n${lines.join('\n')}`);
    out.push({ key: `${name}/dialogues/${id}`, text: turns.join('\n\n') });
  }
  return out;
}
