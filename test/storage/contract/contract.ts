/**
 * The repository contract: what every engine's Store promises, as one set of cases run against a
 * factory of empty stores (factory.ts). Only the Store interface is used here, and the
 * cross-aggregate writes of src/learning/queue.ts that compose it, never an engine's own SQL: a
 * case that fails on one engine is a difference in behaviour, not in how it is checked.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { UniqueViolation } from '../../../src/errors';
import { newId } from '../../../src/ids';
import { forgetDocument, relink } from '../../../src/learning/exchange';
import { completeDocument, failJob, insertDocument, insertFact } from '../../../src/learning/queue';
import type {
  AccessEntry,
  Container,
  Credential,
  DocumentRow,
  Fact,
  Store,
  Transaction,
} from '../../../src/storage/store';
import type { OpenedStore, StoreFactory } from './factory';

let made = 0;
const unique = () => `${Date.now().toString(36)}${++made}`;

async function addAccount(store: Store, email = `owner-${unique()}@example.org`): Promise<string> {
  const id = newId('acc');
  await store.accounts.insert({ id, email, passwordHash: '-', createdAt: 0 });
  return id;
}

async function addContainer(store: Store, accountId: string, name = `c-${unique()}`): Promise<Container> {
  const container = {
    id: newId('ctr'),
    accountId,
    name,
    description: '',
    createdAt: 0,
    updatedAt: 0,
    learnsIntoProfile: true,
  };
  await store.containers.insert(container);
  return container;
}

function documentRow(accountId: string, containerId: string, fields: Partial<DocumentRow> = {}): DocumentRow {
  return {
    id: newId('doc'),
    accountId,
    containerId,
    title: null,
    content: 'Some text.',
    url: null,
    customId: null,
    metadata: null,
    status: 'queued',
    error: null,
    createdAt: 1_000,
    updatedAt: 1_000,
    learnedAt: null,
    ...fields,
  };
}

function factRow(accountId: string, containerId: string | null, content: string, fields: Partial<Fact> = {}): Fact {
  return {
    id: newId('mem'),
    accountId,
    containerId,
    content,
    title: null,
    static: containerId === null,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...fields,
  };
}

/** A document learned as the learning runner learns one: queued with its job, claimed, and completed with its passages. */
async function learnedDocument(
  store: Store,
  accountId: string,
  containerId: string,
  passages: string[],
  fields: Partial<DocumentRow> = {},
): Promise<DocumentRow> {
  const { document } = await insertDocument(
    store,
    documentRow(accountId, containerId, { content: passages.join('\n\n'), ...fields }),
  );
  const [job] = (await store.jobs.claim(Math.max(2_000, document.createdAt), 100)).filter(
    (j) => j.documentId === document.id,
  );
  await completeDocument(
    store,
    job!,
    passages.map((content, position) => ({ position, title: null, content })),
    null,
    2_000,
  );
  return (await store.documents.get(accountId, document.id))!;
}

export function contractCases(factory: StoreFactory): void {
  describe(`the ${factory.name} store keeps the repository contract`, () => {
    let opened: OpenedStore;
    let store: Store;
    let accountId: string;
    beforeEach(async () => {
      opened = await factory.open();
      store = opened.store;
      accountId = await addAccount(store);
    });
    afterEach(() => opened.close());

    describe('paging', () => {
      it('pages documents newest first, each once, those of one millisecond in the order they were stored', async () => {
        const c = await addContainer(store, accountId);
        const times = [1, 3, 3, 3, 5, 5, 7];
        const docs = times.map((t, i) => documentRow(accountId, c.id, { createdAt: t, title: `d${i}` }));
        for (const d of docs) await store.documents.insert(d);
        const seen: string[] = [];
        let page = await store.documents.list(accountId, [c.id], 3, null);
        for (;;) {
          seen.push(...page.documents.map((d) => d.title!));
          if (!page.next) break;
          page = await store.documents.list(accountId, [c.id], 3, page.next);
        }
        expect(seen).toEqual(['d6', 'd5', 'd4', 'd3', 'd2', 'd1', 'd0']);
        // A page that ends exactly at the last document says there is no next one.
        expect((await store.documents.list(accountId, [c.id], 7, null)).next).toBeNull();
      });

      it("pages a container's facts most recently changed first, each once, and counts them and its documents", async () => {
        const [c, other] = [await addContainer(store, accountId), await addContainer(store, accountId)];
        const times = [4, 9, 9, 9, 2, 7];
        for (const [i, t] of times.entries())
          await insertFact(store, factRow(accountId, c.id, `f${i}`, { updatedAt: t }));
        await insertFact(store, factRow(accountId, other.id, 'elsewhere'));
        for (const i of [1, 2]) await store.documents.insert(documentRow(accountId, c.id, { title: `d${i}` }));
        const seen: string[] = [];
        let page = await store.facts.listRecent(accountId, [c.id], 4);
        while (page.length) {
          seen.push(...page.map((f) => f.content));
          const last = page.at(-1)!;
          page = await store.facts.listRecent(accountId, [c.id], 4, {
            after: { updatedAt: last.updatedAt, id: last.id },
          });
        }
        expect(seen).toHaveLength(times.length);
        expect(new Set(seen).size).toBe(times.length);
        expect(seen.slice(0, 3).sort()).toEqual(['f1', 'f2', 'f3']);
        expect(seen.slice(3)).toEqual(['f5', 'f0', 'f4']);
        expect(await store.facts.count(accountId, [c.id])).toBe(6);
        expect(await store.facts.count(accountId, [c.id, other.id])).toBe(7);
        expect(await store.documents.count(accountId, [c.id])).toBe(2);
        expect(await store.documents.count(accountId, [])).toBe(0);
      });

      it("pages the account's documents in the order they were stored, from the start or after a mark", async () => {
        const c = await addContainer(store, accountId);
        for (const t of [9, 2, 5])
          await store.documents.insert(documentRow(accountId, c.id, { createdAt: t, title: `t${t}` }));
        const first = await store.documents.listInInsertOrder(accountId, 0, 2);
        expect(first.documents.map((d) => d.title)).toEqual(['t9', 't2']);
        const second = await store.documents.listInInsertOrder(accountId, first.lastSeq!, 2);
        expect(second.documents.map((d) => d.title)).toEqual(['t5']);
        expect(await store.documents.listInInsertOrder(accountId, second.lastSeq!, 2)).toEqual({
          documents: [],
          lastSeq: null,
        });
      });

      it("pages a credential's access log newest first, below a cursor", async () => {
        const entry = (at: number): AccessEntry => ({
          accountId,
          credentialId: 'key_a',
          credentialKind: 'key',
          clientId: null,
          operation: 'search_memories',
          at,
          items: [{ action: 'returned', kind: 'document', id: `doc_${at}` }],
        });
        await store.accessLog.insert([1, 2, 3, 4, 5].map(entry));
        await store.accessLog.insert([{ ...entry(6), credentialId: 'key_b' }]);
        const first = await store.accessLog.list(accountId, { credentialId: 'key_a' }, 2, null);
        expect(first.map((e) => e.at)).toEqual([5, 4]);
        const next = await store.accessLog.list(accountId, { credentialId: 'key_a' }, 10, first.at(-1)!.id);
        expect(next.map((e) => e.at)).toEqual([3, 2, 1]);
        expect(next[0]!.items).toEqual([{ action: 'returned', kind: 'document', id: 'doc_3' }]);
      });
    });

    describe('reach', () => {
      it('lists the documents and recent facts of the containers given, and none for no container', async () => {
        const [a, b, outside] = [
          await addContainer(store, accountId),
          await addContainer(store, accountId),
          await addContainer(store, accountId),
        ];
        for (const c of [a, b, outside]) {
          await store.documents.insert(documentRow(accountId, c.id, { title: c.name }));
          await insertFact(store, factRow(accountId, c.id, `fact of ${c.name}`));
        }
        await insertFact(store, factRow(accountId, null, 'a standing fact'));
        const listed = await store.documents.list(accountId, [a.id, b.id], 10, null);
        expect(listed.documents.map((d) => d.title).sort()).toEqual([a.name, b.name].sort());
        expect((await store.documents.list(accountId, [], 10, null)).documents).toEqual([]);
        expect((await store.facts.listRecent(accountId, [a.id], 10)).map((f) => f.content)).toEqual([
          `fact of ${a.name}`,
        ]);
        expect(await store.facts.listRecent(accountId, [], 10)).toEqual([]);
        expect((await store.facts.listStatic(accountId)).map((f) => f.content)).toEqual(['a standing fact']);
      });

      it("never reads another account's rows through its ids", async () => {
        const other = await addAccount(store);
        const theirs = await addContainer(store, other);
        const doc = await learnedDocument(store, other, theirs.id, ['Their private passage about orchids.']);
        const fact = factRow(other, theirs.id, 'Their fact.');
        await insertFact(store, fact);
        const rule = { id: newId('rul'), accountId: other, credentialId: null, text: 'Their rule.', createdAt: 0 };
        await store.rules.insert(rule);
        expect(await store.containers.get(accountId, theirs.id)).toBeNull();
        expect(await store.documents.get(accountId, doc.id)).toBeNull();
        expect(await store.facts.get(accountId, fact.id)).toBeNull();
        expect(await store.rules.get(accountId, rule.id)).toBeNull();
        expect(await store.passages.list(accountId, doc.id)).toEqual([]);
        const [hit] = await store.passages.search(other, [theirs.id], 'orchids', 10);
        expect(hit).toBeDefined();
        expect(await store.passages.getHits(accountId, [hit!.passageId])).toEqual([]);
        expect(await store.passages.search(accountId, [theirs.id], 'orchids', 10)).toEqual([]);
        expect(await store.documents.list(accountId, [theirs.id], 10, null)).toEqual({ documents: [], next: null });
        expect(await store.forgetting.plan(accountId, { documentId: doc.id })).toBeNull();
        expect(await store.forgetting.forget(accountId, { containerId: theirs.id }, [])).toBeNull();
        expect(await store.forgetting.forgetFact(accountId, fact.id)).toBeNull();
        expect(await store.documents.get(other, doc.id)).not.toBeNull();
      });

      it("reads a credential for a call with its ticked containers and its account's containers, oldest first", async () => {
        const [a, b, c] = [
          await addContainer(store, accountId, 'zeta'),
          await addContainer(store, accountId, 'alpha'),
          await addContainer(store, accountId, 'mid'),
        ];
        await addContainer(store, await addAccount(store));
        const credential: Credential = {
          id: newId('key'),
          accountId,
          kind: 'developer_key',
          name: 'reader',
          secretHash: 'hash',
          hint: 'egm_…abcd',
          level: 'read',
          allContainers: false,
          profile: false,
          expiresInDays: null,
          expiresAt: null,
          revokedAt: null,
          replaces: null,
          createdAt: 5,
          lastUsedAt: null,
          containerIds: [c.id, a.id].sort(),
          clientId: null,
          audience: null,
        };
        await store.credentials.insert(credential);
        const found = await store.credentials.getForCall(credential.id);
        expect(found).toEqual({ credential, accountContainers: [a, b, c] });
        expect(found!.credential).toEqual((await store.credentials.getById(credential.id))!);
        expect(await store.credentials.getForCall('key_unknown')).toBeNull();

        // No ticked container, and an account with none.
        const lone = await addAccount(store);
        const bare = { ...credential, id: newId('key'), accountId: lone, containerIds: [] };
        await store.credentials.insert(bare);
        expect(await store.credentials.getForCall(bare.id)).toEqual({ credential: bare, accountContainers: [] });
      });

      it('keyword search finds passages of its container alone, best first', async () => {
        const [a, b] = [await addContainer(store, accountId), await addContainer(store, accountId)];
        await learnedDocument(store, accountId, a.id, [
          "Beekeeping at grandmother's orchard.",
          'Bees, bees and more bees in the orchard hives.',
        ]);
        await learnedDocument(store, accountId, b.id, ['The orchard in the other container.']);
        const hits = await store.passages.search(accountId, [a.id], 'bees orchard', 10);
        expect(hits).toHaveLength(2);
        expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
        const cited = await store.passages.getHits(
          accountId,
          hits.map((h) => h.passageId),
        );
        expect(cited.every((h) => h.containerId === a.id)).toBe(true);
        // Plain text, never query syntax.
        expect(await store.passages.search(accountId, [a.id], '"orchard* NEAR( -', 10)).toHaveLength(2);
      });

      it("keyword search over several containers returns the best of their own searches merged, and none of another's", async () => {
        const [a, b, other] = [
          await addContainer(store, accountId),
          await addContainer(store, accountId),
          await addContainer(store, accountId),
        ];
        const words = ['apple', 'birch', 'cedar', 'damson', 'elder', 'fig', 'ginkgo', 'hazel'];
        // Passages of one matching word among more and more others, so that no two score alike in BM25.
        const passage = (word: string, i: number) => `${word} orchard ${words.slice(0, i).join(' ')}.`;
        await learnedDocument(store, accountId, a.id, ['hives', 'pollen', 'swarm'].map(passage));
        await learnedDocument(store, accountId, b.id, ['hives', 'pollen', 'queen', 'honey'].map(passage));
        // Another container's passages rank above all of theirs for 'orchard', many times the page:
        // the best of the whole index leaves too few of the containers asked (SQLite's quick path),
        // so the search must rank every match of theirs.
        await learnedDocument(store, accountId, other.id, [
          ...Array.from({ length: 40 }, (_, i) => `Orchard orchard ${i}.`),
          ...Array.from({ length: 60 }, (_, i) => `Nothing of that kind, note ${i}.`),
        ]);
        const merged = async (q: string, limit: number) =>
          [
            ...(await store.passages.search(accountId, [a.id], q, limit)),
            ...(await store.passages.search(accountId, [b.id], q, limit)),
          ]
            // Equal scores (PostgreSQL's ts_rank weighs no length) in passage-id order (docs/decisions.md).
            .sort((x, y) => y.score - x.score || x.passageId - y.passageId)
            .slice(0, limit);
        // Each query with a page, and how many passages of theirs it matches.
        for (const [q, limit, matching] of [
          ['orchard', 3, 7],
          ['orchard', 10, 7],
          ['hives pollen', 2, 4],
          ['hives pollen swarm queen', 10, 6],
        ] as const) {
          const hits = await store.passages.search(accountId, [a.id, b.id], q, limit);
          expect(hits).toEqual(await merged(q, limit));
          expect(hits).toHaveLength(Math.min(limit, matching));
          const cited = await store.passages.getHits(
            accountId,
            hits.map((h) => h.passageId),
          );
          expect(cited.map((h) => h.containerId).filter((id) => id !== a.id && id !== b.id)).toEqual([]);
        }
        // The other container alone fills a page; none asked finds nothing.
        expect(await store.passages.search(accountId, [other.id, a.id], 'orchard', 40)).toHaveLength(40);
        expect(await store.passages.search(accountId, [], 'orchard', 10)).toEqual([]);
      });

      it("keyword search finds a reworded fact's passage by its new words, and no longer by its old", async () => {
        const c = await addContainer(store, accountId);
        const fact = factRow(accountId, c.id, 'Lives in Lisbon.');
        await insertFact(store, fact);
        const [before] = await store.passages.search(accountId, [c.id], 'Lisbon', 10);
        expect(await store.facts.updateContent(accountId, fact.id, 'Lives in Porto.', 600)).toBe(true);
        expect(await store.passages.search(accountId, [c.id], 'Lisbon', 10)).toEqual([]);
        const [after] = await store.passages.search(accountId, [c.id], 'Porto', 10);
        expect(after!.passageId).toBe(before!.passageId);
      });
    });

    describe('the exchange', () => {
      /** Chat turns learned in the order given, each added a millisecond after the one before. */
      async function turns(containerId: string, texts: string[][]): Promise<DocumentRow[]> {
        const docs: DocumentRow[] = [];
        for (const [i, passages] of texts.entries())
          docs.push(await learnedDocument(store, accountId, containerId, passages, { createdAt: 1_000 + i }));
        return docs;
      }

      it('finds a chat turn by the words of the reply after it, below the reply itself, and no longer once the reply is deleted', async () => {
        const c = await addContainer(store, accountId);
        const [question, reply] = await turns(c.id, [
          ['[3 May 2024, 18:02] Ann: Where did you go on holiday?'],
          ['[3 May 2024, 18:09] Bo: Lisbon, with the kids.'],
        ]);
        const [own, beside] = await store.passages.search(accountId, [c.id], 'Lisbon', 10);
        const cited = await store.passages.getHits(accountId, [own!.passageId, beside!.passageId]);
        expect(cited.find((h) => h.passageId === own!.passageId)!.documentId).toBe(reply!.id);
        expect(cited.find((h) => h.passageId === beside!.passageId)!.documentId).toBe(question!.id);
        expect(own!.score).toBeGreaterThan(beside!.score);
        // And the reply by the question's words.
        expect(await store.passages.search(accountId, [c.id], 'holiday', 10)).toHaveLength(2);

        expect(await forgetDocument(store, accountId, reply!.id, [])).not.toBeNull();
        expect(await store.passages.search(accountId, [c.id], 'Lisbon', 10)).toEqual([]);
      });

      it("writes each turn's context as the rule gives it: its own with its passage, the turn before it's again", async () => {
        const c = await addContainer(store, accountId);
        const [first, middle, last] = await turns(c.id, [
          ['[3 May 2024, 18:02] Ann: Swimming tomorrow?'],
          ['[3 May 2024, 18:03] Bo: Not today.'],
          ['[3 May 2024, 18:05] Ann: Tennis then.'],
        ]);
        const window = await store.passages.turnsAround(accountId, middle!.id, 2);
        expect(window!.map((d) => [d.documentId, d.passage!.context])).toEqual([
          [first!.id, 'not today'],
          [middle!.id, 'swimming tomorrow tennis then'],
          [last!.id, 'not today'],
        ]);
        // The rule over the whole window writes nothing more.
        expect(await store.transaction((tx) => relink(tx, window!, [0, 1, 2]))).toBe(0);
      });

      it('links only turns: sent within six hours (the same day for a day alone), with a header, of one passage', async () => {
        const c = await addContainer(store, accountId);
        await turns(c.id, [
          ['[3 May 2024, 08:00] Ann: Breakfast first.'],
          ['[3 May 2024, 15:00] Bo: Kayaking later.'], // seven hours on: no exchange with breakfast
          ['[4 May 2024] Ann: Marmalade on toast.'], // another day
          ['A note without a header about walnuts.'],
          ['[4 May 2024] Bo: Cherries and plums.'],
          ['[4 May 2024] Ann: Apricots.', 'A second passage: no turn.'],
          ['[4 May 2024] Bo: Figs in the market.'],
        ]);
        const found = async (q: string) => (await store.passages.search(accountId, [c.id], q, 10)).length;
        expect(await found('breakfast')).toBe(1);
        expect(await found('kayaking')).toBe(1);
        expect(await found('marmalade')).toBe(1);
        expect(await found('walnuts')).toBe(1);
        expect(await found('cherries')).toBe(1);
        expect(await found('figs')).toBe(1);
      });

      it('takes the time a turn was added when its header names no day', async () => {
        const c = await addContainer(store, accountId);
        const hours = (h: number) => ({ createdAt: 1_000 + h * 3_600_000 });
        await learnedDocument(store, accountId, c.id, ['[18:00] Ann: Pancakes tonight?'], hours(0));
        await learnedDocument(store, accountId, c.id, ['[18:05] Bo: With syrup.'], hours(5));
        await learnedDocument(store, accountId, c.id, ['[18:10] Ann: Leftovers for lunch.'], hours(12));
        const found = async (q: string) => (await store.passages.search(accountId, [c.id], q, 10)).length;
        expect(await found('pancakes')).toBe(2);
        expect(await found('leftovers')).toBe(1);
      });

      it('joins the turns on each side of a deleted one, and reads the window in the order stored', async () => {
        const c = await addContainer(store, accountId);
        const [first, middle, last] = await turns(c.id, [
          ['[3 May 2024] Ann: Swimming?'],
          ['[3 May 2024] Bo: Not today.'],
          ['[3 May 2024] Ann: Tennis then.'],
        ]);
        const window = await store.passages.turnsAround(accountId, middle!.id, 2);
        expect(window!.map((d) => d.documentId)).toEqual([first!.id, middle!.id, last!.id]);
        expect(await store.passages.turnsAround(accountId, 'doc_none', 2)).toBeNull();
        expect(await store.passages.search(accountId, [c.id], 'tennis', 10)).toHaveLength(2);
        await forgetDocument(store, accountId, middle!.id, []);
        // First and last are now each other's neighbours.
        expect(await store.passages.search(accountId, [c.id], 'tennis', 10)).toHaveLength(2);
        expect(await store.passages.search(accountId, [c.id], 'today', 10)).toEqual([]);
      });
    });

    describe('imports', () => {
      it('says which import brought a thing, and leaves what imports from given sources brought out of the recent facts', async () => {
        const c = await addContainer(store, accountId);
        const origin = (kind: 'document' | 'fact', localId: string, source: string) =>
          store.importOrigins.insert({
            accountId,
            source,
            kind,
            exportedId: `x-${localId}`,
            localId,
            importedAt: 5_000,
            file: 'memory.jsonl',
          });
        const said = factRow(accountId, c.id, 'said', { updatedAt: 1 });
        const imported = factRow(accountId, c.id, 'imported', { updatedAt: 3 });
        const fromExport = factRow(accountId, c.id, 'from an Engram export', { updatedAt: 4 });
        const doc = await learnedDocument(store, accountId, c.id, ['A conversation.']);
        const learned = factRow(accountId, c.id, 'learned from an import', {
          updatedAt: 2,
          sourceDocumentId: doc.id,
          sourcePosition: 0,
        });
        for (const f of [said, imported, fromExport, learned]) await insertFact(store, f);
        await origin('fact', imported.id, 'mcp-memory');
        await origin('fact', fromExport.id, 'acc_exporting');
        await origin('document', doc.id, 'chatgpt');

        const recent = (except?: string[]) =>
          store.facts
            .listRecent(accountId, [c.id], 10, { exceptImportedFrom: except })
            .then((fs) => fs.map((f) => f.content));
        expect(await recent()).toEqual(['from an Engram export', 'imported', 'learned from an import', 'said']);
        expect(await recent(['mcp-memory', 'chatgpt'])).toEqual(['from an Engram export', 'said']);
        expect(await store.importOrigins.of(accountId, 'fact', imported.id)).toEqual({
          source: 'mcp-memory',
          file: 'memory.jsonl',
          importedAt: 5_000,
        });
        expect(await store.importOrigins.of(accountId, 'fact', said.id)).toBeNull();
        const other = await addAccount(store);
        expect(await store.importOrigins.of(other, 'fact', imported.id)).toBeNull();
      });
    });

    describe('refinement', () => {
      it("lists passages without the tier's vectors in the order a person searches: containers searched, their own writing, newest", async () => {
        const [c1, c2] = [await addContainer(store, accountId), await addContainer(store, accountId)];
        const old = await learnedDocument(store, accountId, c1.id, ['Old one.', 'Old two.'], { createdAt: 1_000 });
        await learnedDocument(store, accountId, c1.id, ['Recent.'], { createdAt: 3_000 });
        const imported = await learnedDocument(store, accountId, c2.id, ['Imported.'], { createdAt: 2_000 });
        await store.importOrigins.insert({
          accountId,
          source: 'chatgpt',
          kind: 'document',
          exportedId: 'conversation-1',
          localId: imported.id,
          importedAt: 5_000,
          file: 'conversations.json',
        });
        const fact = factRow(accountId, c1.id, 'A fact said in between.', { createdAt: 2_500 });
        await insertFact(store, fact);
        const texts = async (ids: number[]) => (await store.passages.getTexts(ids)).map((p) => p.content);
        const everything = { after: 0, upTo: Number.MAX_SAFE_INTEGER };
        const order = async (first: string[], limit = 10) => {
          const ids = await store.passages.listForRefinement('strong', first, everything, limit);
          const byId = new Map((await store.passages.getTexts(ids)).map((p) => [p.id, p.content]));
          return ids.map((id) => byId.get(id));
        };
        expect(await order([])).toEqual(['Recent.', 'A fact said in between.', 'Old one.', 'Old two.', 'Imported.']);
        expect(await order([c2.id, c1.id])).toEqual([
          'Imported.',
          'Recent.',
          'A fact said in between.',
          'Old one.',
          'Old two.',
        ]);
        expect(await order([], 2)).toEqual(['Recent.', 'A fact said in between.']);
        // Refined passages leave the list; a deleted one is no longer read.
        const [recentPassage] = await store.passages.listForRefinement('strong', [], everything, 1);
        await store.vectors.put('strong', [{ passageId: recentPassage!, vectors: [new Float32Array([1, 0])] }]);
        expect(await order([])).toEqual(['A fact said in between.', 'Old one.', 'Old two.', 'Imported.']);
        const ids = await store.passages.listForRefinement('strong', [], everything, 10);
        // Within a range of ids only: the fact's passage is the newest stored.
        const last = await store.passages.lastId();
        expect(await store.passages.listForRefinement('strong', [], { after: last - 1, upTo: last }, 10)).toEqual([
          last,
        ]);
        expect(await store.passages.listForRefinement('strong', [], { after: 0, upTo: last - 1 }, 10)).not.toContain(
          last,
        );
        await store.forgetting.forget(accountId, { documentId: old.id }, []);
        expect(await texts(ids)).toEqual(['Imported.', 'A fact said in between.']); // by id
        // Each tier's own list: no passage left has fast vectors.
        expect(await store.passages.listForRefinement('fast', [], everything, 10)).toHaveLength(3);
      });
    });

    describe('uniqueness', () => {
      it('returns the document a container holds under a custom_id instead of inserting it again', async () => {
        const [a, b] = [await addContainer(store, accountId), await addContainer(store, accountId)];
        const first = await store.documents.insert(
          documentRow(accountId, a.id, { customId: 'note-1', title: 'first' }),
        );
        const again = await store.documents.insert(
          documentRow(accountId, a.id, { customId: 'note-1', title: 'second' }),
        );
        expect(first.inserted).toBe(true);
        expect(again).toEqual({ inserted: false, document: first.document });
        expect((await store.documents.insert(documentRow(accountId, b.id, { customId: 'note-1' }))).inserted).toBe(
          true,
        );
      });

      it('lets one custom_id win when two connections insert it at once', async () => {
        const c = await addContainer(store, accountId);
        const second = await opened.connect();
        const results = await Promise.all(
          [store, second, store, second].map((s) =>
            s.documents.insert(documentRow(accountId, c.id, { customId: 'same' })),
          ),
        );
        expect(results.filter((r) => r.inserted)).toHaveLength(1);
        expect(new Set(results.map((r) => r.document.id)).size).toBe(1);
      });

      it('refuses a second container of one name in an account, and a second account of one email in any case, with UniqueViolation', async () => {
        await addContainer(store, accountId, 'Travel');
        expect(addContainer(store, accountId, 'Travel')).rejects.toBeInstanceOf(UniqueViolation);
        await addContainer(store, await addAccount(store), 'Travel');
        const renamed = await addContainer(store, accountId, 'Work');
        expect(store.containers.update(accountId, renamed.id, { name: 'Travel', updatedAt: 1 })).rejects.toBeInstanceOf(
          UniqueViolation,
        );
        await addAccount(store, 'Same@Example.org');
        expect(addAccount(store, 'same@example.org')).rejects.toBeInstanceOf(UniqueViolation);
        expect((await store.accounts.getByEmail('SAME@example.ORG'))?.email).toBe('Same@Example.org');
      });
    });

    describe('transactions', () => {
      it('commits the writes of a transaction together, and none of them when it throws', async () => {
        const kept = await store.transaction(async (tx) => {
          const c = await addContainer(tx as Store, accountId);
          await tx.documents.insert(documentRow(accountId, c.id, { title: 'kept' }));
          return c;
        });
        expect((await store.documents.list(accountId, [kept.id], 10, null)).documents).toHaveLength(1);

        let lost: Container | null = null;
        const failure = new Error('the second write failed');
        await expect(
          store.transaction(async (tx) => {
            lost = await addContainer(tx as Store, accountId);
            await tx.documents.insert(documentRow(accountId, lost.id, { title: 'lost' }));
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(await store.containers.get(accountId, lost!.id)).toBeNull();
        expect((await store.containers.list(accountId)).map((c) => c.id)).toEqual([kept.id]);
      });

      it('rolls back a failed write of the database itself with everything before it', async () => {
        await addContainer(store, accountId, 'Taken');
        const before = await store.containers.list(accountId);
        await expect(
          store.transaction(async (tx) => {
            await addContainer(tx as Store, accountId, 'Fresh');
            await addContainer(tx as Store, accountId, 'Taken');
          }),
        ).rejects.toBeInstanceOf(UniqueViolation);
        expect(await store.containers.list(accountId)).toEqual(before);
      });

      it('rolls back a nested transaction that throws, and only its own writes', async () => {
        const names = await store.transaction(async (tx) => {
          await addContainer(tx as Store, accountId, 'outer');
          await expect(
            tx.transaction(async (inner) => {
              await addContainer(inner as Store, accountId, 'inner');
              throw new Error('inner failed');
            }),
          ).rejects.toThrow('inner failed');
          await tx.transaction(async (inner) => addContainer(inner as Store, accountId, 'inner, again'));
          return (await tx.containers.list(accountId)).map((c) => c.name);
        });
        expect(names).toEqual(['outer', 'inner, again']);
        expect((await store.containers.list(accountId)).map((c) => c.name)).toEqual(['outer', 'inner, again']);
      });

      it("keeps other callers' statements out of an open transaction that awaits, and lets them run", async () => {
        const inside = newId('ctr');
        const outside = newId('ctr');
        let began!: () => void;
        const begun = new Promise<void>((resolve) => (began = resolve));
        // Another request, arriving while the transaction waits: its write is neither part of the
        // transaction nor rolled back with it, and its read does not see into it. (Whether the
        // transaction sees that write once committed is the engine's: SQLite runs it after the
        // transaction, PostgreSQL beside it, on another connection.)
        const otherRequest = (async () => {
          await begun;
          const write = store.containers.insert({
            id: outside,
            accountId,
            name: 'outside',
            description: '',
            createdAt: 0,
            updatedAt: 0,
          });
          const read = store.containers.get(accountId, inside);
          return Promise.all([write, read]);
        })();
        await expect(
          store.transaction(async (tx) => {
            await tx.containers.insert({
              id: inside,
              accountId,
              name: 'inside',
              description: '',
              createdAt: 0,
              updatedAt: 0,
            });
            began();
            await Bun.sleep(30);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        const [, readOutside] = await otherRequest;
        expect(readOutside).toBeNull();
        expect((await store.containers.get(accountId, outside))?.name).toBe('outside');
        expect(await store.containers.get(accountId, inside)).toBeNull();
      });

      it('refuses the store itself inside its own transaction, and a transaction used after it ended', async () => {
        let leaked: Transaction | undefined;
        await expect(
          store.transaction(async (tx) => {
            leaked = tx;
            await store.containers.list(accountId);
          }),
        ).rejects.toThrow('inside its own transaction');
        await expect(leaked!.containers.list(accountId)).rejects.toThrow('outside it');
        // Neither left the store held: it answers at once.
        expect(await store.containers.list(accountId)).toEqual([]);
      });

      it('sees what another connection committed, and counts its changes to the stored vectors', async () => {
        const second = await opened.connect();
        const c = await addContainer(second, accountId);
        expect(await store.containers.get(accountId, c.id)).toEqual(c);
        const fact = factRow(accountId, c.id, 'Has a vector.');
        await insertFact(second, fact);
        const before = await store.commitsByOthers();
        const passage = (await second.passages.getForFact(fact.id))!;
        await second.vectors.put('fast', [{ passageId: passage.id, vectors: [new Float32Array([0.6, 0.8])] }]);
        expect(await store.commitsByOthers()).not.toBe(before);
      });
    });

    describe('jobs', () => {
      it('claims each ready job once, oldest first, even when two connections claim at the same time', async () => {
        const c = await addContainer(store, accountId);
        const queued: string[] = [];
        for (let i = 0; i < 40; i++)
          queued.push((await insertDocument(store, documentRow(accountId, c.id, { createdAt: 100 + i }))).document.id);
        await insertDocument(store, documentRow(accountId, c.id, { createdAt: 100 }), { mode: 'learn' }, 10_000); // not ready before 10,000
        const second = await opened.connect();
        // Both connections made before they race: a first query that also connects would start far behind.
        await Promise.all([store.jobs.countPending(), second.jobs.countPending()]);
        const claimed: string[][] = [[], []];
        // The first claims are sent together, so that they race even on a busy host (there one
        // connection's loop could take all 40 before the other's first claim was read).
        const first = await Promise.all([store.jobs.claim(5_000, 7), second.jobs.claim(5_000, 7)]);
        await Promise.all(
          [store, second].map(async (s, i) => {
            for (let batch = first[i]!; batch.length; batch = await s.jobs.claim(5_000, 7)) {
              claimed[i]!.push(...batch.map((j) => j.documentId!));
              await Bun.sleep(0);
            }
          }),
        );
        const all = [...claimed[0]!, ...claimed[1]!];
        expect(all.toSorted()).toEqual(queued.toSorted());
        expect(claimed[0]!.length && claimed[1]!.length).toBeGreaterThan(0);
        // Either connection may claim first; the oldest job opens the first batch of whichever did.
        expect([claimed[0]![0], claimed[1]![0]]).toContain(queued[0]!);
        expect(await store.jobs.countPending()).toBe(41);
        expect(await store.jobs.claim(5_000, 100)).toEqual([]);
        expect(await store.jobs.claim(10_000, 100)).toHaveLength(1);
      });

      it('queues a document with its job, once for a custom_id seen before, and completes it with its passages', async () => {
        const c = await addContainer(store, accountId);
        const doc = documentRow(accountId, c.id, { customId: 'once' });
        expect((await insertDocument(store, doc)).inserted).toBe(true);
        expect((await insertDocument(store, { ...doc, id: newId('doc') })).inserted).toBe(false);
        const [job, ...more] = await store.jobs.claim(5_000, 10);
        expect(more).toEqual([]);
        expect(job).toMatchObject({
          kind: 'learn_document',
          documentId: doc.id,
          accountId,
          attempts: 1,
          rebuild: false,
        });
        const ids = await completeDocument(
          store,
          job!,
          [
            { position: 0, title: null, content: 'First.' },
            { position: 1, title: null, content: 'Second.' },
          ],
          null,
          6_000,
        );
        expect(ids).toHaveLength(2);
        expect(await store.documents.get(accountId, doc.id)).toMatchObject({ status: 'learned', learnedAt: 6_000 });
        expect((await store.passages.list(accountId, doc.id)).map((p) => p.content)).toEqual(['First.', 'Second.']);
        expect(await store.jobs.countPending()).toBe(0);
        // Done again (a job redone after a crash): its passages replaced, never doubled.
        await completeDocument(store, job!, [{ position: 0, title: null, content: 'Only.' }], null, 7_000);
        expect((await store.passages.list(accountId, doc.id)).map((p) => p.content)).toEqual(['Only.']);
      });

      it('retries a failed job after its backoff, then fails it for good with its document', async () => {
        const c = await addContainer(store, accountId);
        const { document } = await insertDocument(store, documentRow(accountId, c.id));
        const [job] = await store.jobs.claim(5_000, 1);
        await failJob(store, job!, 'the page did not answer', 8_000, 5_000);
        expect(await store.jobs.claim(7_999, 1)).toEqual([]);
        const [retried] = await store.jobs.claim(8_000, 1);
        expect(retried!.attempts).toBe(2);
        expect((await store.documents.get(accountId, document.id))!.status).toBe('queued');
        await failJob(store, retried!, 'the page is not text', null, 9_000);
        expect(await store.documents.get(accountId, document.id)).toMatchObject({
          status: 'failed',
          error: 'the page is not text',
        });
        expect(await store.jobs.countPending()).toBe(0);
      });

      it('gives a job whose lease ended (its learner died) to another learner as a new attempt, and holds a renewed lease', async () => {
        const c = await addContainer(store, accountId);
        const { document } = await insertDocument(store, documentRow(accountId, c.id));
        const [dead] = await store.jobs.claim(5_000, 10, 1_000);
        const other = await opened.connect();
        expect(await other.jobs.claim(5_999, 10, 1_000)).toEqual([]);
        const [taken] = await other.jobs.claim(6_000, 10, 1_000);
        expect(taken).toMatchObject({ id: dead!.id, documentId: document.id, attempts: 2 });
        // The dead learner's claim is gone; the new one's renews.
        expect(await store.jobs.renew([dead!], 6_001, 1_000)).toEqual([]);
        expect(await other.jobs.renew([taken!], 6_500, 1_000)).toEqual([taken!.id]);
        expect(await store.jobs.claim(7_499, 10, 1_000)).toEqual([]);
        expect(await store.jobs.claim(7_500, 10, 1_000)).toMatchObject([{ id: dead!.id, attempts: 3 }]);
        expect(await store.jobs.countPending()).toBe(1);
      });

      it("claims what was added by hand before an import's jobs, and each lane only its own kinds", async () => {
        const c = await addContainer(store, accountId);
        const imported = [];
        for (let i = 0; i < 3; i++)
          imported.push(
            (await insertDocument(store, documentRow(accountId, c.id, { createdAt: 100 }), undefined, 1_000)).document,
          );
        const byHand = (await insertDocument(store, documentRow(accountId, c.id, { createdAt: 2_000 }))).document;
        const claimed = await store.jobs.claim(5_000, 2, undefined, 'index');
        expect(claimed.map((j) => [j.documentId, j.bulk])).toEqual([
          [byHand.id, false],
          [imported[0]!.id, true],
        ]);
        // The document learned: its facts are queued with it, once, as bulk as it was.
        for (const job of claimed)
          await completeDocument(store, job, [{ position: 0, title: null, content: 'Text.' }], null, 6_000, true);
        expect(await store.jobs.countPending('facts')).toBe(2);
        expect(await store.jobs.countPending('index')).toBe(2);
        expect(await store.jobs.countPending()).toBe(4);
        expect(
          (await store.jobs.claim(7_000, 10, undefined, 'facts')).map((j) => [j.kind, j.documentId, j.bulk]),
        ).toEqual([
          ['extract_facts', byHand.id, false],
          ['extract_facts', imported[0]!.id, true],
        ]);
        expect(await store.jobs.claim(7_000, 10, undefined, 'facts')).toEqual([]);
        expect((await store.jobs.claim(7_000, 10, undefined, 'index')).map((j) => j.documentId)).toEqual([
          imported[1]!.id,
          imported[2]!.id,
        ]);
      });

      it("fails a document's facts for good without failing the document, and counts them apart", async () => {
        const c = await addContainer(store, accountId);
        // Learned where no model learns facts: none are queued.
        await learnedDocument(store, accountId, c.id, ['I live in Paris.']);
        expect(await store.jobs.countPending()).toBe(0);
        // As a learner with a model completes it: the facts' job comes with it.
        const { document } = await insertDocument(store, documentRow(accountId, c.id));
        const [job] = await store.jobs.claim(5_000, 1);
        await completeDocument(store, job!, [{ position: 0, title: null, content: 'Text.' }], null, 5_000, true);
        // Done again by a learner whose claim had ended: the facts' job is not queued twice.
        await completeDocument(store, job!, [{ position: 0, title: null, content: 'Text.' }], null, 5_500, true);
        expect(await store.jobs.countPending('facts')).toBe(1);
        const [facts] = await store.jobs.claim(6_000, 1, undefined, 'facts');
        expect(facts).toMatchObject({ kind: 'extract_facts', documentId: document.id, attempts: 1 });
        await failJob(store, facts!, 'the model answered no JSON', null, 7_000);
        expect(await store.documents.get(accountId, document.id)).toMatchObject({ status: 'learned' });
        expect(await store.jobs.countFailed('facts')).toBe(1);
        expect(await store.jobs.countFailed('index')).toBe(0);
        expect(await store.jobs.countPending()).toBe(0);
      });

      it('gives back released jobs without counting the claim, and requeues jobs left running', async () => {
        const c = await addContainer(store, accountId);
        for (let i = 0; i < 3; i++) await insertDocument(store, documentRow(accountId, c.id));
        const claimed = await store.jobs.claim(5_000, 3);
        await store.jobs.release(claimed.slice(0, 2), 5_001);
        const again = await store.jobs.claim(5_002, 3);
        expect(again.map((j) => j.id)).toEqual(claimed.slice(0, 2).map((j) => j.id));
        expect(again.map((j) => j.attempts)).toEqual([1, 1]);
        expect(await store.jobs.requeueRunning(6_000)).toBe(3);
        expect(await store.jobs.claim(6_000, 10)).toHaveLength(3);
        expect(await store.jobs.hasPending('learn_document')).toBe(true);
        expect(await store.jobs.hasPending('reembed')).toBe(false);
      });
    });

    describe('forgetting', () => {
      it('deletes a document with its passages and the facts learned from it, keeping reviewed facts unless ticked', async () => {
        const c = await addContainer(store, accountId);
        const doc = await learnedDocument(store, accountId, c.id, [
          'The violin lessons are on Monday.',
          'The piano tuner visits in June.',
        ]);
        const source = { sourceDocumentId: doc.id, sourcePosition: 0 };
        const learned = factRow(accountId, c.id, 'Takes violin lessons.', source);
        const reviewed = factRow(accountId, null, 'Plays the violin.', { ...source, reviewedAt: 3_000 });
        const ticked = factRow(accountId, null, 'Owns a piano.', { ...source, sourcePosition: 1, reviewedAt: 3_000 });
        const unrelated = factRow(accountId, c.id, 'Likes tea.');
        for (const f of [learned, reviewed, ticked, unrelated]) await insertFact(store, f);

        const plan = (await store.forgetting.plan(accountId, { documentId: doc.id }))!;
        expect(plan).toMatchObject({ documents: 1, passages: 2 });
        expect(plan.facts.map((f) => f.id)).toEqual([learned.id]);
        expect(plan.kept.map((f) => f.id).sort()).toEqual([reviewed.id, ticked.id].sort());

        const passageIds = (await store.passages.search(accountId, [c.id], 'violin piano', 10)).map((h) => h.passageId);
        const done = (await store.forgetting.forget(accountId, { documentId: doc.id }, [ticked.id]))!;
        expect(done).toMatchObject({ documents: 1, passages: 2, facts: 2, kept: 1 });
        expect(done.passageIds).toEqual(expect.arrayContaining(passageIds));
        expect(await store.documents.get(accountId, doc.id)).toBeNull();
        expect(await store.passages.search(accountId, [c.id], 'violin piano', 10)).toEqual([]);
        expect(await store.facts.get(accountId, learned.id)).toBeNull();
        expect(await store.facts.get(accountId, ticked.id)).toBeNull();
        // It keeps its passage's position: the fact still says it was learned.
        expect(await store.facts.get(accountId, reviewed.id)).toMatchObject({
          sourceDocumentId: null,
          sourcePosition: source.sourcePosition,
        });
        expect(await store.facts.get(accountId, unrelated.id)).not.toBeNull();
        expect(await store.forgetting.forget(accountId, { documentId: doc.id }, [])).toBeNull();
      });

      it('deletes a container with its documents and facts, and the facts learned from them elsewhere', async () => {
        const [gone, stays] = [await addContainer(store, accountId), await addContainer(store, accountId)];
        const doc = await learnedDocument(store, accountId, gone.id, ['Gardening notes.']);
        const inside = factRow(accountId, gone.id, 'Grows tomatoes.');
        const profile = factRow(accountId, null, 'Gardens.', { sourceDocumentId: doc.id, sourcePosition: 0 });
        const elsewhere = factRow(accountId, stays.id, 'Reads novels.');
        for (const f of [inside, profile, elsewhere]) await insertFact(store, f);
        const done = (await store.forgetting.forget(accountId, { containerId: gone.id }, []))!;
        expect(done).toMatchObject({ documents: 1, passages: 1, facts: 2, kept: 0 });
        expect(await store.containers.get(accountId, gone.id)).toBeNull();
        expect(await store.facts.get(accountId, profile.id)).toBeNull();
        expect((await store.facts.list(accountId)).map((f) => f.id)).toEqual([elsewhere.id]);
      });

      it('forgets one fact with its passage, and its earlier wordings', async () => {
        const c = await addContainer(store, accountId);
        const fact = factRow(accountId, c.id, 'Lives in Lisbon.');
        await insertFact(store, fact, [{ content: 'Lives in Porto.', replacedAt: 500 }]);
        expect((await store.facts.listHistory(accountId, fact.id)).map((h) => h.content)).toEqual(['Lives in Porto.']);
        const [hit] = await store.passages.search(accountId, [c.id], 'Lisbon', 10);
        expect(await store.forgetting.forgetFact(accountId, fact.id)).toEqual([hit!.passageId]);
        expect(await store.facts.get(accountId, fact.id)).toBeNull();
        expect(await store.facts.listHistory(accountId, fact.id)).toEqual([]);
        expect(await store.passages.search(accountId, [c.id], 'Lisbon', 10)).toEqual([]);
      });

      it("forgets inside a caller's transaction, and nothing when that transaction fails", async () => {
        const c = await addContainer(store, accountId);
        const doc = await learnedDocument(store, accountId, c.id, ['A note to keep.']);
        await expect(
          store.transaction(async (tx) => {
            expect(await tx.forgetting.forget(accountId, { documentId: doc.id }, [])).toMatchObject({ documents: 1 });
            throw new Error('the request failed after the delete');
          }),
        ).rejects.toThrow('after the delete');
        expect(await store.documents.get(accountId, doc.id)).not.toBeNull();
        expect(await store.passages.search(accountId, [c.id], 'note', 10)).toHaveLength(1);
      });
    });
  });
}
