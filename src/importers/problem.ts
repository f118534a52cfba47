/**
 * How an import refuses its source: with where the first problem is (the file, inside an archive
 * `archive.zip/conversations.json`, and the line and column when known) and what is wrong there,
 * as a 400 `validation` ServiceError that every door already shows as it is.
 */
import { ServiceError } from '../errors';

/** Where in a source something is. `column` counts bytes from the start of the line, from 1. */
export interface SourcePosition {
  file: string;
  line?: number;
  column?: number;
}

/** "conversations.json:1:5212" (the form compilers use, which terminals and editors open), or the file alone. */
function positionText(at: SourcePosition): string {
  if (at.line === undefined) return at.file;
  return at.column === undefined ? `${at.file}:${at.line}` : `${at.file}:${at.line}:${at.column}`;
}

/**
 * A problem at a place in a source: the whole source is refused for it, unless it is one entry's
 * and the person asked to skip such entries (then it is listed with what was left out).
 */
export class SourceRefusal extends ServiceError {}

/** The refusal of a source: nothing of it is imported. */
export function refusal(at: SourcePosition, message: string): SourceRefusal {
  return new SourceRefusal('validation', `${positionText(at)}: ${message}`, {
    file: at.file,
    line: at.line ?? null,
    column: at.column ?? null,
  });
}

/**
 * A zod issue list's first entry as "mapping.abc.message.author: Invalid input: expected object"
 * (the path '' is the whole value).
 */
export function firstIssue(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const issue = issues[0]!;
  const path = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  return path ? `${path}: ${issue.message}` : issue.message;
}
