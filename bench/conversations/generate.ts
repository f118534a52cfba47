/**
 * The conversational benchmark's data set, made from material.ts by a seeded generator: long
 * multi-session chats between two recurring people each, one turn a document shaped
 * `[8 May 2023] Caroline: words`, and questions about the speakers with their evidence turns.
 * Same seed, same bytes. No network, no model.
 *
 *   bun bench/conversations/generate.ts [--seed 17] > conversations.json
 */
import { parseArgs } from 'node:util';
import { seeded } from '../lib/corpus';
import * as M from './material';

export interface Turn {
  /** `c{conversation}-s{session}-t{turn}` */
  id: string;
  conversation: number;
  session: number;
  /** The session's date, as chats show it: `8 May 2023`. */
  date: string;
  speaker: string;
  text: string;
}

export type QuestionKind = 'single-hop' | 'multi-hop' | 'temporal' | 'open-domain';

export interface Question {
  id: string;
  conversation: number;
  kind: QuestionKind;
  question: string;
  answer: string;
  /** Ids of the turns that hold the answer; all of them are needed for a multi-hop question. */
  evidence: string[];
}

export interface Dataset {
  seed: number;
  turns: Turn[];
  questions: Question[];
}

/** A turn as stored: one document, its date and speaker leading as in a chat export. */
export const turnDocument = (t: Turn): string => `[${t.date}] ${t.speaker}: ${t.text}`;

const CONVERSATIONS = 12;
const SESSIONS = 24;
const ATTRIBUTES_EACH = 11;
const EVENTS_EACH = 15;
const ORDER_QUESTIONS_EACH = 4;
/** Chances that a telling shares words with its question (see ATTRIBUTE_ECHOES, EVENT_ECHOES): the benchmark's keyword difficulty. */
const ECHO_TELL = 0.75;
const ECHO_WHEN = 0.8;
const MONTHS = 'January February March April May June July August September October November December'.split(' ');
const DAY_MS = 86_400_000;

const formatDate = (ms: number): string => {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
};

interface Person {
  name: string;
  pronoun: 'she' | 'he';
}

/** Something a speaker tells in one session; `ask` makes its questions once its turn has an id. */
interface Telling {
  teller: Person;
  text: string;
  reply: string[];
  /** A telling this one must follow in a later session (a relative is named before they move). */
  after?: Telling;
  ask(turnId: string): Omit<Question, 'id' | 'conversation'>[];
  turnId?: string;
}

export function generateConversations(seed = 17): Dataset {
  const random = seeded(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const chance = (p: number) => random() < p;
  const shuffle = <T>(xs: readonly T[]): T[] => {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  const fill = (template: string, p: Person, vars: Record<string, string> = {}): string =>
    template.replace(/\{(\w+)\}/g, (_, k: string) => {
      if (k === 'P') return p.name;
      if (k === 'their') return p.pronoun === 'she' ? 'her' : 'his';
      if (k === 'they') return p.pronoun;
      if (k === 'them') return p.pronoun === 'she' ? 'her' : 'him';
      if (k === 'aunt') return p.pronoun === 'she' ? 'aunt' : 'uncle';
      if (k in vars) return vars[k]!;
      throw new Error(`no value for {${k}} in "${template}"`);
    });

  const speakers = shuffle(M.SPEAKER_NAMES);
  const turns: Turn[] = [];
  const questions: Question[] = [];
  /** A turn's place in the whole data set, to tell which of two tellings came first. */
  const position = new Map<string, number>();

  for (let c = 0; c < CONVERSATIONS; c++) {
    const people: Person[] = [speakers[2 * c]!, speakers[2 * c + 1]!];
    const others = { she: shuffle(M.OTHER_NAMES.she), he: shuffle(M.OTHER_NAMES.he) };
    const pets = shuffle(M.PET_NAMES);
    const start = Date.UTC(2022, 0, 1) + int(0, 540) * DAY_MS;
    const dates: number[] = [];
    for (let s = 0, at = start; s < SESSIONS; s++, at += int(4, 20) * DAY_MS) dates.push(at);

    // What each person tells, and the questions each telling answers.
    const sessionsOf = new Map<Telling, number>();
    const tellings: Telling[] = [];
    for (const p of people) {
      const own: Telling[] = [];
      const told = new Map<string, { telling: Telling; value: string }>();
      for (const a of shuffle(M.ATTRIBUTES).slice(0, ATTRIBUTES_EACH)) {
        const value = pick(a.values);
        const N = a.key === 'pet' ? pets.pop()! : '';
        const vars = { v: value.v, av: `${/^[aeiou]/i.test(value.v) ? 'an' : 'a'} ${value.v}`, N };
        // An echo: a telling and a question that reuses its words; otherwise a paraphrase.
        const [tell, echo] = chance(ECHO_TELL) ? pick(M.ATTRIBUTE_ECHOES[a.key]!) : [pick(value.tell ?? a.tell), null];
        const t: Telling = {
          teller: p,
          text: fill(tell, p, vars),
          reply: a.reply,
          ask: (id) => {
            const qs: Omit<Question, 'id' | 'conversation'>[] = [];
            const asks = [...(echo ? [echo] : []), ...shuffle(a.ask)].slice(0, chance(0.5) ? 2 : 1);
            for (const q of asks)
              qs.push({ kind: 'single-hop', question: fill(q, p), answer: value.v, evidence: [id] });
            if (a.key === 'pet')
              qs.push({
                kind: 'single-hop',
                question: fill(pick(["What is the name of {P}'s pet?", "What is {P}'s pet called?"]), p),
                answer: N,
                evidence: [id],
              });
            const infer = [...(value.infer ?? []), ...(a.infer ?? [])];
            if (infer.length && chance(0.6)) {
              const [q, answer] = pick(infer);
              qs.push({ kind: 'open-domain', question: fill(q, p), answer: fill(answer, p, vars), evidence: [id] });
            }
            return qs;
          },
        };
        told.set(a.key, { telling: t, value: value.v });
        own.push(t);
      }
      // The activities someone keeps up, asked together: a question every one of them answers.
      const activities = ['sport', 'hobby', 'instrument'].flatMap((k) => told.get(k) ?? []);
      if (activities.length >= 2) {
        const last = activities.at(-1)!.telling;
        const ask = last.ask;
        last.ask = (id) => [
          ...ask(id),
          {
            kind: 'multi-hop',
            question: fill(
              pick([
                'What activities does {P} fill {their} free time with?',
                'What does {P} like to do outside of work?',
              ]),
              p,
            ),
            answer: activities.map((a) => a.value).join(', '),
            evidence: activities.map((a) => a.telling.turnId!),
          },
        ];
      }

      // A relative named once, and later where they moved, by name only.
      const relation = pick(M.RELATIONS);
      const relative: Person = { name: others[relation.of].pop()!, pronoun: relation.of };
      const rvars = {
        rel: relation.rel,
        N: relative.name,
        them2: relation.of === 'she' ? 'her' : 'him',
        they2: relation.of,
      };
      const named: Telling = {
        teller: p,
        text: fill(pick(M.RELATION_TELL), p, rvars),
        reply: ['Aww, that sounds lovely.', 'Say hi from me!', 'Family is everything.'],
        ask: (id) => [
          {
            kind: 'single-hop',
            question: fill(pick(M.RELATION_ASK), p, { rel: relation.rel, asWord: relation.asWord }),
            answer: relative.name,
            evidence: [id],
          },
        ],
      };
      const city = pick(M.CITIES);
      const moved: Telling = {
        teller: p,
        text: fill(pick(M.RELATION_MOVE), p, { ...rvars, v: city }),
        reply: ['Big change!', 'You will miss them, I bet.', 'That is a long way.'],
        after: named,
        ask: (id) => [
          {
            kind: 'multi-hop',
            question: fill(pick(M.RELATION_MOVE_ASK), p, { rel: relation.rel }),
            answer: city,
            evidence: [named.turnId!, id],
          },
        ],
      };
      own.push(named, moved);

      // Life events, each told with a time relative to its session.
      const events: { event: M.LifeEvent; telling: Telling }[] = [];
      for (const event of shuffle(M.EVENTS).slice(0, EVENTS_EACH)) {
        const when = pick(M.WHEN);
        const N =
          event.pick === 'band'
            ? pick(M.BANDS)
            : event.pick === 'place'
              ? pick(M.PLACES)
              : event.pick === 'peak'
                ? pick(M.PEAKS)
                : event.pick === 'friend'
                  ? others[pick(['she', 'he'] as const)].pop()!
                  : '';
        const telling: Telling = {
          teller: p,
          text: fill(pick(event.tell), p, { when: when.say, N }),
          reply: event.reply,
          ask: (id) => {
            const date = dates[sessionsOf.get(telling)!]!;
            const qs: Omit<Question, 'id' | 'conversation'>[] = [
              {
                kind: 'temporal',
                question: fill(pick(chance(ECHO_WHEN) ? M.EVENT_ECHOES[event.key]! : event.when), p),
                answer: whenAnswer(date, when.daysBefore),
                evidence: [id],
              },
            ];
            for (const [q, a] of event.what ?? [])
              qs.push({ kind: 'single-hop', question: fill(q, p), answer: fill(a, p, { N }), evidence: [id] });
            return qs;
          },
        };
        events.push({ event, telling });
        own.push(telling);
      }
      // Which of two events came first: both turns are evidence.
      const paired = shuffle(events);
      for (let i = 0; i < ORDER_QUESTIONS_EACH; i++) {
        const [x, y] = [paired[2 * i], paired[2 * i + 1]];
        const ask = y!.telling.ask;
        y!.telling.ask = (id) => {
          const first = position.get(x!.telling.turnId!)! < position.get(id)! ? x! : y!;
          const [a, a2] = M.EVENT_PHRASES[x!.event.key]!;
          const [b, b2] = M.EVENT_PHRASES[y!.event.key]!;
          return [
            ...ask(id),
            {
              kind: 'multi-hop',
              question: fill(pick(M.ORDER_ASK), p, { a: fill(a, p), b: fill(b, p), a2: fill(a2, p), b2: fill(b2, p) }),
              answer: fill(M.EVENT_PHRASES[first.event.key]![0], p),
              evidence: [x!.telling.turnId!, id],
            },
          ];
        };
      }
      tellings.push(...own);
    }

    // Spread the tellings over the sessions, a telling that depends on another after it.
    for (const t of shuffle(tellings)) sessionsOf.set(t, int(0, SESSIONS - 1));
    for (const t of tellings) {
      if (!t.after) continue;
      let [lo, hi] = [sessionsOf.get(t.after)!, sessionsOf.get(t)!].sort((x, y) => x - y) as [number, number];
      if (lo === hi) hi < SESSIONS - 1 ? hi++ : lo--;
      sessionsOf.set(t.after, lo);
      sessionsOf.set(t, hi);
    }

    for (let s = 0; s < SESSIONS; s++) {
      const date = formatDate(dates[s]!);
      let speaker = int(0, 1);
      let n = 0;
      const say = (who: number, text: string): string => {
        const id = `c${c}-s${s}-t${n++}`;
        position.set(id, turns.length);
        turns.push({ id, conversation: c, session: s, date, speaker: people[who]!.name, text });
        speaker = 1 - who;
        return id;
      };
      const other = (who: number) => people[1 - who]!;
      const smallTalk = (who: number) => {
        const line = fill(pick(M.SMALL_TALK), people[who]!);
        return chance(0.4) ? `${pick(M.REACTIONS)} ${line}` : line;
      };
      say(speaker, fill(pick(M.GREETINGS), people[speaker]!, { O: other(speaker).name }));
      say(speaker, pick(M.GREETING_REPLIES));
      for (let k = int(1, 4); k > 0; k--) say(speaker, smallTalk(speaker));
      for (const t of shuffle(tellings.filter((t) => sessionsOf.get(t) === s))) {
        const who = people.indexOf(t.teller);
        if (speaker !== who) say(speaker, smallTalk(speaker));
        const lead = chance(0.3)
          ? `${pick(['Oh, guess what!', 'Funny story.', 'Big news!', 'Okay, update.', 'Right, so.'])} `
          : '';
        const tail = chance(0.25) ? ` ${fill(pick(M.SMALL_TALK), t.teller)}` : '';
        t.turnId = say(who, lead + t.text + tail);
        if (chance(0.9)) say(1 - who, chance(0.6) ? pick(t.reply) : pick(M.REACTIONS));
        if (chance(0.4)) say(who, pick(M.FOLLOW_UPS));
        for (let k = int(1, 4); k > 0; k--) say(speaker, smallTalk(speaker));
      }
      say(speaker, pick(M.FAREWELLS));
      say(speaker, pick(M.FAREWELLS));
    }

    // Questions once every turn has its id, in the order their last evidence was told.
    const asked = tellings.flatMap((t) => t.ask(t.turnId!).map((q) => ({ ...q, order: sessionsOf.get(t)! })));
    asked.sort((a, b) => a.order - b.order);
    for (const { order: _, ...q } of asked)
      questions.push({ id: `c${c}-q${questions.filter((x) => x.conversation === c).length}`, conversation: c, ...q });
  }
  return { seed, turns, questions };
}

/** The answer to "when" for an event said to be `daysBefore` the session on `sessionDate`. */
function whenAnswer(sessionDate: number, daysBefore: (typeof M.WHEN)[number]['daysBefore']): string {
  if (typeof daysBefore === 'number') return formatDate(sessionDate - daysBefore * DAY_MS);
  if (daysBefore === 'weekend') return `the weekend before ${formatDate(sessionDate)}`;
  if (daysBefore === 'week') return `the week before ${formatDate(sessionDate)}`;
  const d = new Date(sessionDate);
  const month = (d.getUTCMonth() + 11) % 12;
  return `${MONTHS[month]} ${d.getUTCFullYear() - (month === 11 ? 1 : 0)}`;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { seed: { type: 'string', default: '17' } } });
  process.stdout.write(`${JSON.stringify(generateConversations(Number(values.seed)), null, 1)}\n`);
}
