/**
 * The exchange in the keyword index: a chat turn is found by the words of the turns beside it too,
 * so the reply that answers a question turn, and a reply too short to match on its own words, are
 * found by what was said around them (docs/performance.md, issue 39). Each turn's passage holds its
 * neighbouring turns' own words as its `context`, which keyword search weighs below its own words
 * (KEYWORD_WEIGHTS); its vectors are its own words only.
 *
 * A turn is a document learned as exactly one passage whose text opens with a chat message's
 * header (a bracketed time, then the speaker if named: `[29 December 2023, 22:42] Emi: `).
 * Its neighbours are the documents just before and after it in its container, in the order added,
 * when they are turns sent within six hours of it (on the same day, when a header names only the
 * day). A turn is sent at its header's time; a header without a day leaves the document's added
 * time. Learning a document writes its own context with its passage and rewrites its neighbours';
 * deleting one rewrites its neighbours' (they may become each other's).
 */
import { DAY_MS } from '../clock';
import { MESSAGE_HEADER, ownWords } from '../search/content-poor';
import { daysNamed } from '../search/dated';
import type { ForgettingDone, PassageInput, PassageOwner, Transaction, TurnCandidate } from '../storage/store';

/** How far apart two turns may be sent and still be one exchange. */
const EXCHANGE_MS = 6 * 3_600_000;

interface Sent {
  at: number;
  /** The header named the day alone: `at` is its midnight (UTC). */
  dayOnly: boolean;
}

/** When a turn was sent, or null when its text is no chat message (it has no header). */
function sentAt(content: string, addedAt: number): Sent | null {
  const header = MESSAGE_HEADER.exec(content)?.[0];
  if (!header) return null;
  const day = daysNamed(header)[0];
  if (day === undefined) return { at: addedAt, dayOnly: false };
  const clock = /\b(\d{1,2}):(\d{2})\b/.exec(header);
  return clock
    ? { at: day * DAY_MS + (Number(clock[1]) * 60 + Number(clock[2])) * 60_000, dayOnly: false }
    : { at: day * DAY_MS, dayOnly: true };
}

const together = (a: Sent, b: Sent): boolean =>
  a.dayOnly || b.dayOnly
    ? Math.floor(a.at / DAY_MS) === Math.floor(b.at / DAY_MS)
    : Math.abs(a.at - b.at) <= EXCHANGE_MS;

/** When each document of `window` was sent, null for one that is no turn. */
const sentOf = (window: TurnCandidate[]): (Sent | null)[] =>
  window.map((d) => d.passage && sentAt(d.passage.content, d.addedAt));

/** The context of turn `i` from the turns beside it; null when it is no turn or has none. */
function contextAt(window: TurnCandidate[], sent: (Sent | null)[], i: number): string | null {
  const own = sent[i];
  if (!own) return null;
  const words = [i - 1, i + 1]
    .filter((j) => sent[j] && together(own, sent[j]!))
    .map((j) => ownWords(window[j]!.passage!.content).join(' '))
    .filter(Boolean);
  return words.length ? words.join(' ') : null;
}

/**
 * Writes the context of the documents at `targets` in `window`, where it changed; returns how many
 * it wrote. The backfill of a store from before the exchange (exchange-backfill.ts) writes with it.
 */
export async function relink(tx: Transaction, window: TurnCandidate[], targets: number[]): Promise<number> {
  const sent = sentOf(window);
  const changed = targets.flatMap((i) => {
    const passage = window[i]?.passage;
    const context = contextAt(window, sent, i);
    return passage && passage.context !== context ? [{ passageId: passage.id, context }] : [];
  });
  if (changed.length) await tx.passages.setContexts(changed);
  return changed.length;
}

/**
 * Stores a learned document's passages (`PassageRepository.replaceForDocument`) and returns their
 * ids. A turn's own context is written in the same insert as its passage, so only the turns beside
 * it have their keyword entries rewritten (each a replace with secure-delete, 6–15 ms at 100,000
 * passages in SQLite: docs/performance.md).
 */
export async function storeLearned(tx: Transaction, doc: PassageOwner, passages: PassageInput[]): Promise<number[]> {
  const window = await tx.passages.turnsAround(doc.accountId, doc.id, 2);
  if (!window) return tx.passages.replaceForDocument(doc, passages);
  const at = window.findIndex((d) => d.documentId === doc.id);
  // The document as it is learned now, not as an earlier attempt left it: a turn when it is one passage.
  const turn = passages.length === 1 ? passages[0]! : null;
  window[at] = { ...window[at]!, passage: turn && { id: 0, content: turn.content, context: null } };
  const context = turn && contextAt(window, sentOf(window), at);
  const ids = await tx.passages.replaceForDocument(doc, turn ? [{ ...turn, context }] : passages);
  await relink(tx, window, [at - 1, at + 1]);
  return ids;
}

/**
 * Deletes a document as `ForgettingRepository.forget` does, and takes its words out of the turns
 * beside it, which become each other's neighbours, in one transaction.
 */
export function forgetDocument(
  db: Transaction,
  accountId: string,
  documentId: string,
  alsoForget: string[],
): Promise<ForgettingDone | null> {
  return db.transaction(async (tx) => {
    const window = await tx.passages.turnsAround(accountId, documentId, 2);
    const done = await tx.forgetting.forget(accountId, { documentId }, alsoForget);
    if (done && window) {
      const at = window.findIndex((d) => d.documentId === documentId);
      window.splice(at, 1);
      await relink(tx, window, [at - 1, at]);
    }
    return done;
  });
}
