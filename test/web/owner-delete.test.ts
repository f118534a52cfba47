/**
 * The owner's delete of a document or a container, with the reviewed facts ticked on its
 * confirmation page, is one operation in one transaction: a failure part-way through (here the
 * store refusing the last step, the row of the document or container itself) leaves every fact,
 * passage and document as it was. Through the form post, as the page sends it.
 */
import { Database } from 'bun:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { call } from '../helpers/server';
import { allFacts, forgettingWorld, type ForgettingWorld } from '../e2e/fixtures/forgetting';

const csrfOf = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)![1]!;

describe("the owner's delete with ticked facts", () => {
  let w: ForgettingWorld;
  let cookie: string;
  let ids: Record<string, string>;

  // A world each: the diary and its three learned facts, all confirmed by the owner.
  beforeEach(async () => {
    w = await forgettingWorld();
    cookie = `engram_session=${w.owner}`;
    const facts = await allFacts(w);
    ids = Object.fromEntries(facts.map((f) => [f.content.split(' ').at(-2)!, f.id])); // xylofungus, Vantablue, zorblatt
    for (const id of Object.values(ids))
      expect((await call(w.server, 'POST', `/v1/memories/${id}/confirm`, w.owner)).status).toBe(200);
  });
  afterEach(() => w?.close());

  /** Makes the store refuse deleting a row of `table` from now on, as a failure at the transaction's last step; returns the undo. */
  function refuseDeleting(table: 'documents' | 'containers'): () => void {
    const db = new Database(join(w.server.dataDir, 'engram.db'));
    db.run(
      `CREATE TRIGGER refuse_delete BEFORE DELETE ON ${table} BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`,
    );
    return () => {
      db.run('DROP TRIGGER refuse_delete');
      db.close();
    };
  }

  async function confirmDelete(path: string, ticked: string[]): Promise<Response> {
    const page = await fetch(`${w.server.url}${path}`, { headers: { cookie } });
    const body = new URLSearchParams({ csrf: csrfOf(await page.text()) });
    for (const id of ticked) body.append('forget_fact', id);
    return fetch(`${w.server.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
  }

  const everything = async () => ({
    facts: (await allFacts(w)).map((f) => f.content).sort(),
    documents: (await call(w.server, 'GET', '/v1/documents', w.key)).body.documents
      .map((d: { id: string }) => d.id)
      .sort(),
    diary: (await call(w.server, 'POST', '/v1/search', w.key, { q: 'quokkaberry', container: w.container })).body
      .results.length,
  });

  it('changes nothing when the delete of a document fails part-way, then deletes it with the ticked fact', async () => {
    const before = await everything();
    expect(before.facts.length).toBe(3);
    expect(before.diary).toBeGreaterThan(0);
    const undo = refuseDeleting('documents');
    try {
      const failed = await confirmDelete(`/documents/${w.diary}/delete`, [ids.zorblatt!]);
      expect(failed.status).toBe(500);
    } finally {
      undo();
    }
    expect(await everything()).toEqual(before);

    const done = await confirmDelete(`/documents/${w.diary}/delete`, [ids.zorblatt!]);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/containers/${w.container}`);
    const after = await everything();
    expect(after.facts).toEqual(['Plays the xylofungus every evening.', 'Was born in Vantablue harbour.']);
    expect(after.documents).toEqual([w.keeper]);
    expect(after.diary).toBe(0);
  });

  it('changes nothing when the delete of a container fails part-way, then deletes it with the ticked fact', async () => {
    const before = await everything();
    expect(before.facts.length).toBe(3);
    const undo = refuseDeleting('containers');
    try {
      expect((await confirmDelete(`/containers/${w.container}/delete`, [ids.Vantablue!])).status).toBe(500);
    } finally {
      undo();
    }
    expect(await everything()).toEqual(before);
    const done = await confirmDelete(`/containers/${w.container}/delete`, [ids.Vantablue!]);
    expect(done.status).toBe(303);
    // The facts in the container go with it, reviewed or not; the ticked one learned into the profile from its diary too.
    expect((await allFacts(w)).map((f) => f.content)).toEqual([]);
    expect((await call(w.server, 'GET', '/v1/documents', w.key)).body.documents).toEqual([]);
  });
});
