/**
 * REALTALK (Lee et al., 2025, arXiv 2502.13270) as a retrieval benchmark: messaging-app chats
 * between real people over 21 days, in LoCoMo's layout (`Chat_N_<a>_<b>.json`), with memory
 * questions labelled by the turns that answer them. Only the odd-numbered chats are the dev set:
 * an even-numbered file in the folder is held out and never opened. The data has no licence file,
 * so it is read from a path and never committed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalSet } from './retrieval-eval';

export const REALTALK_HOWTO =
  'REALTALK is not part of this project (no licence file). Put the odd-numbered chats of danny911kr/REALTALK ' +
  '(data/Chat_1_*.json, Chat_3_*, Chat_5_*, Chat_7_*, Chat_9_*) in a folder and pass it with --realtalk DIR ' +
  '(or ENGRAM_REALTALK=DIR). The even-numbered chats are held out: leave them out.';

/** The data's question categories. */
const REALTALK_CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain' };

interface Message {
  clean_text: string;
  speaker: string;
  /** `29.12.2023, 22:42:04` */
  date_time: string;
  /** `D3:30`: unique within a chat, but not numbered by session (`session_4` may start at `D3:30`). */
  dia_id: string;
}
interface Chat {
  [session: string]: unknown;
  qa: { question: string; evidence?: unknown; category: number }[];
}

/** One message of a chat, as the app that stores it one by one sees it. */
export interface ChatTurn {
  /** `chat<N>/<dia_id>`: the document's key. */
  key: string;
  chat: number;
  speaker: string;
  /** Milliseconds, read as UTC (the data gives local times without a zone). */
  at: number;
  text: string;
}

/** The chat files of `dir` that are the dev set (odd-numbered), by number; the others are not read. */
export function realtalkFiles(dir: string): { chat: number; path: string }[] {
  return readdirSync(dir)
    .map((name) => ({ name, chat: Number(/^Chat_(\d+)_.*\.json$/.exec(name)?.[1] ?? Number.NaN) }))
    .filter((f) => f.chat % 2 === 1)
    .sort((a, b) => a.chat - b.chat)
    .map((f) => ({ chat: f.chat, path: join(dir, f.name) }));
}

/**
 * The turn ids a question's evidence names, repaired and kept only where the chat holds them. An
 * entry can hold several ids (`"D13:4. D14:4"`, `"D1:11; D3:18"`) or a mistyped one (`D17;39`,
 * `D:11:26`, `D20:6.`); one with no session (`D:56`, `D58`) cannot be placed and is dropped, as is
 * an id the chat lacks (turns left out of the published data).
 */
export function evidenceIds(evidence: unknown, known: ReadonlySet<string>): string[] {
  const entries = Array.isArray(evidence) ? evidence : [evidence];
  const ids = new Set<string>();
  for (const entry of entries) {
    if (typeof entry !== 'string') continue;
    for (const [, session, turn] of entry.matchAll(/D\s*:?\s*(\d+)\s*[:;.]\s*(\d+)/g)) {
      const id = `D${session}:${turn}`;
      if (known.has(id)) ids.add(id);
    }
  }
  return [...ids];
}

/** `29.12.2023, 22:42:04` → ms (UTC). */
function parseTime(dateTime: string): number {
  const m = /^(\d{1,2})\.(\d{1,2})\.(\d{4}),\s*(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(dateTime.trim());
  if (!m) throw new Error(`not a REALTALK time: ${JSON.stringify(dateTime)}`);
  const [, d, mo, y, h, mi, s] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s ?? 0);
}

const MONTHS = 'January February March April May June July August September October November December'.split(' ');

/**
 * A message as an app that adds messages one by one would store it: when and who first, as a chat
 * export shows it, then the words (`[29 December 2023, 22:42] Emi: Hey! How are you?`). A photo's
 * caption is left out: the data's captions were made by a model, not written by the people.
 */
export function turnText(t: Pick<ChatTurn, 'speaker' | 'at' | 'text'>): string {
  const d = new Date(t.at);
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  const when = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${hh}:${mm}`;
  return `[${when}] ${t.speaker}: ${t.text.trim()}`;
}

/** A chat's turns in order (sessions by number, messages as listed) and its questions with repaired evidence. */
function readChat(
  chat: number,
  path: string,
): { turns: ChatTurn[]; questions: EvalSet['questions']; unplaced: number } {
  const data = JSON.parse(readFileSync(path, 'utf8')) as Chat;
  const sessions = Object.keys(data)
    .filter((k) => /^session_\d+$/.test(k))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  const turns: ChatTurn[] = [];
  for (const session of sessions) {
    for (const m of data[session] as Message[]) {
      if (!m.clean_text?.trim()) continue;
      turns.push({
        key: `chat${chat}/${m.dia_id}`,
        chat,
        speaker: m.speaker,
        at: parseTime(m.date_time),
        text: m.clean_text,
      });
    }
  }
  const known = new Set(turns.map((t) => t.key.slice(t.key.indexOf('/') + 1)));
  const questions: EvalSet['questions'] = [];
  let unplaced = 0;
  for (const q of data.qa) {
    const evidence = evidenceIds(q.evidence, known).map((id) => `chat${chat}/${id}`);
    if (evidence.length === 0) unplaced++;
    else
      questions.push({
        question: q.question,
        kind: REALTALK_CATEGORIES[q.category] ?? `category ${q.category}`,
        evidence,
      });
  }
  return { turns, questions, unplaced };
}

export interface RealtalkSet extends EvalSet {
  turns: ChatTurn[];
  /** Questions left out because none of their evidence names a turn of the chat. */
  unplaced: number;
}

/**
 * The dev set: every odd-numbered chat of `dir` in one container, one document a message, added in
 * the order the messages were sent across all chats (an app storing them as they arrive); the
 * questions of every chat, each with the turns its evidence names. Throws when `dir` holds no
 * odd-numbered chat.
 */
export function realtalkSet(dir: string): RealtalkSet {
  const files = realtalkFiles(dir);
  if (files.length === 0) throw new Error(`no odd-numbered Chat_N_*.json in ${dir}. ${REALTALK_HOWTO}`);
  const chats = files.map((f) => readChat(f.chat, f.path));
  // A stable sort: messages of one chat sent in the same second stay in their order.
  const turns = chats.flatMap((c) => c.turns).sort((a, b) => a.at - b.at);
  return {
    name: `REALTALK chats ${files.map((f) => f.chat).join(', ')}`,
    documents: turns.map((t) => ({ key: t.key, text: turnText(t) })),
    questions: chats.flatMap((c) => c.questions),
    turns,
    unplaced: chats.reduce((n, c) => n + c.unplaced, 0),
  };
}
