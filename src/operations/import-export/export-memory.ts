/**
 * The export: one account's containers, documents, facts (the profile's static ones included, with
 * where each was learned from and its earlier wordings) and rules, without any secret (no keys,
 * tokens, sessions, codes or hashes), as the lines of Engram's own format (src/importers/engram.ts).
 * `engram export` is its door; the import operation (import-memory.ts) reads what it writes.
 */
import { refuseOwnerOnly } from '../../auth/access';
import {
  containerLine,
  documentLine,
  factLine,
  headerLine,
  ruleLine,
  type WrittenLine,
} from '../../importers/engram-format';
import type { DocumentRow, Repositories } from '../../storage/store';
import type { StoreContext } from '../operation';

/** Documents read a page at a time. */
const PAGE = 200;

/**
 * Writes the caller's memory (the owner only), line by line, from one consistent snapshot (the
 * server may be running and writing meanwhile): the header, containers, documents in the order they
 * were stored (so that an import stores them in the same order again), facts oldest first, then
 * rules. Documents come before the facts that name them as their source.
 */
export async function exportMemory(ctx: StoreContext, write: (line: WrittenLine) => void): Promise<void> {
  if (ctx.caller.kind !== 'owner') throw refuseOwnerOnly('export', ctx.caller);
  const { accountId } = ctx.caller;
  const now = ctx.clock.now();
  await ctx.store.snapshot(async (tx) => {
    write(headerLine(accountId, now));
    for (const c of await tx.containers.list(accountId)) write(containerLine(c));
    for (
      let page = await tx.documents.listInInsertOrder(accountId, 0, PAGE);
      page.lastSeq !== null;
      page = await tx.documents.listInInsertOrder(accountId, page.lastSeq, PAGE)
    ) {
      for (const d of page.documents) write(documentLine(d, await passagesRead(tx, d)));
    }
    for (const m of await tx.facts.list(accountId)) write(factLine(m, await tx.facts.listHistory(accountId, m.id)));
    for (const r of await tx.rules.list(accountId, null)) write(ruleLine(r));
  });
}

/**
 * A learned URL document's text: its page is read when it is learned and only its passages keep
 * the text. They travel, since the page may have changed or gone, or the importing server may not
 * reach it.
 */
const passagesRead = (tx: Repositories, d: DocumentRow) =>
  d.url != null && d.status === 'learned' ? tx.passages.list(d.accountId, d.id) : null;
