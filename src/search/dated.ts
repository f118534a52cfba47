/**
 * Questions about a day: "What did Elise buy on 7 Jan 2024?" is answered by what was said that day
 * or the day after ("yesterday I..."), and a chat message says its day in its leading line
 * (`[7 January 2024, 18:02] elise: ...`, an imported transcript's `User, 2024-01-07 18:02 UTC: ...`).
 * A passage dated on a day the question names, or the day after, steps up.
 */
import type { Scored } from './fusion';

const DAY_MS = 86_400_000;
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const ORDINAL = '(?:st|nd|rd|th)?';
/** "7 Jan 2024", "7th of January, 2024", "January 7, 2024", "Jan 7th 2024", "2024-01-07". */
const DATE = new RegExp(
  `\\b(?:(\\d{1,2})${ORDINAL}\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})|${MONTH}\\s+(\\d{1,2})${ORDINAL},?\\s+(\\d{4})|(\\d{4})-(\\d{2})-(\\d{2}))\\b`,
  'giu',
);
/** The leading line a passage's day is read from, at most: a chat message's header is short. */
const HEADER_CHARS = 60;

const dayOf = (year: string, month: number, day: string): number | null => {
  const ms = Date.UTC(Number(year), month, Number(day));
  const d = new Date(ms);
  return d.getUTCDate() === Number(day) && d.getUTCMonth() === month ? ms / DAY_MS : null;
};
const monthOf = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase());

/** The days (days since 1970, UTC) a text names with day, month and year, in order. */
export function daysNamed(text: string): number[] {
  const days: number[] = [];
  for (const m of text.matchAll(DATE)) {
    const [, d1, m1, y1, m2, d2, y2, y3, m3, d3] = m;
    const day = d1 ? dayOf(y1!, monthOf(m1!), d1) : m2 ? dayOf(y2!, monthOf(m2), d2!) : dayOf(y3!, Number(m3) - 1, d3!);
    if (day !== null) days.push(day);
  }
  return days;
}

/** The day a passage's leading line names, if it names one. */
export const passageDay = (text: string): number | null => daysNamed(text.slice(0, HEADER_CHARS))[0] ?? null;

/**
 * `ranked` with each passage dated on a day `days` names, or the day after, raised by `strength`,
 * best first again. Unchanged when the question names no day.
 */
export function stepUpDated(
  ranked: Scored<number>[],
  days: number[],
  textOf: (id: number) => string | undefined,
  strength: number,
): Scored<number>[] {
  if (days.length === 0) return ranked;
  return ranked
    .map(({ item, score }) => {
      const text = textOf(item);
      const day = text === undefined ? null : passageDay(text);
      const near = day !== null && days.some((d) => day - d >= 0 && day - d <= 1);
      return { item, score: near ? score + strength : score };
    })
    .sort((a, b) => b.score - a.score);
}
