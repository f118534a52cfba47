/** Learning: the durable queue, URL documents behind the address guard, restarts, and failure states. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { splitPassages } from '../../../src/learning/split-passages';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

/** A small web server on loopback: the "remote" pages URL documents point at. */
function startPages() {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname === '/recipe.html') {
        return new Response(
          '<html><head><title>Grandma’s soup</title><script>var tracking = 1;</script></head><body><nav>Home | About</nav>' +
            '<h1>Soup</h1><p>Simmer the lentils with cumin for forty minutes.</p></body></html>',
          { headers: { 'Content-Type': 'text/html; charset=utf-8' } },
        );
      }
      if (pathname === '/notes.txt')
        return new Response('Plain notes about kayaks.', { headers: { 'Content-Type': 'text/plain' } });
      if (pathname === '/file.pdf') return new Response('%PDF-1.4', { headers: { 'Content-Type': 'application/pdf' } });
      return new Response('missing', { status: 404 });
    },
  });
}

async function pollLearned(server: TestServer, key: string, id: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const doc = (await call(server, 'GET', `/v1/documents/${id}`, key)).body;
    if (doc.status !== 'queued') return doc;
    await Bun.sleep(25);
  }
  throw new Error(`document ${id} was never learned`);
}

describe('learning on the worker thread', () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ manualLearning: false });
    const owner = (await makeOwner(server)).token;
    const container = await makeContainer(server, owner, 'Notes');
    key = (await makeKey(server, owner, { level: 'manage', containers: [container] })).key;
  });
  afterAll(() => server.close());

  it('learns an added document in the background; it is searchable only once learned', async () => {
    const added = await call(server, 'POST', '/v1/documents', key, {
      content: 'The spare key is under the blue flowerpot.',
    });
    expect(added.body.status).toBe('queued');
    const doc = await pollLearned(server, key, added.body.id);
    expect(doc.learned).toBe(true);
    const found = await call(server, 'POST', '/v1/search', key, { q: 'where is the spare key?' });
    expect(found.body.results[0].content).toContain('blue flowerpot');
    expect(found.body.results[0].document_id).toBe(added.body.id);
  });
});

describe('the queue across restarts', () => {
  it('learns every document exactly once when the server stops mid-learning', async () => {
    let server = await startTestServer();
    const owner = (await makeOwner(server)).token;
    const container = await makeContainer(server, owner, 'Diary');
    const { key } = await makeKey(server, owner, { level: 'suggest', containers: [container] });
    const text = (n: number) =>
      Array.from({ length: 8 }, (_, i) => `Entry ${n}, paragraph ${i}: the weather was mild and the garden grew.`).join(
        '\n\n',
      );
    const ids: string[] = [];
    for (let n = 0; n < 5; n++)
      ids.push((await call(server, 'POST', '/v1/documents', key, { content: text(n), custom_id: `d${n}` })).body.id);
    // Interrupt: one job is claimed (running) and never finished, as if the server died mid-step.
    const claimed = await server.services.store.jobs.claim(server.clock.now(), 1);
    expect(claimed).toHaveLength(1);
    server = await server.restart();
    expect(await server.learning.drain()).toBe(5);
    const [account] = await server.services.store.accounts.list();
    for (const [n, id] of ids.entries()) {
      expect((await call(server, 'GET', `/v1/documents/${id}`, key)).body.learned).toBe(true);
      expect(await server.services.store.passages.list(account!.id, id)).toHaveLength(
        splitPassages(text(n), null).length,
      );
    }
    // A custom_id seen before the restart is still seen after it, and starts nothing.
    const again = await call(server, 'POST', '/v1/documents', key, { content: 'different', custom_id: 'd3' });
    expect(again.body).toMatchObject({ status: 'exists', id: ids[3] });
    expect(await server.learning.drain()).toBe(0);
    await server.close();
  });
});

describe('URL documents', () => {
  const pages = startPages();
  const base = `http://127.0.0.1:${pages.port}`;
  afterAll(() => pages.stop(true));

  async function serverWith(env: Record<string, string>) {
    const server = await startTestServer({ env });
    const owner = (await makeOwner(server)).token;
    const container = await makeContainer(server, owner, 'Web');
    const { key } = await makeKey(server, owner, { level: 'suggest', containers: [container] });
    const add = async (url: string) => {
      const id = (await call(server, 'POST', '/v1/documents', key, { url })).body.id;
      await server.learning.drain();
      return (await call(server, 'GET', `/v1/documents/${id}`, key)).body;
    };
    return { server, key, add };
  }

  it('refuses a loopback address by default, with the reason on the document', async () => {
    const { server, add, key } = await serverWith({});
    let hits = 0;
    const canary = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => {
        hits++;
        return new Response('secret');
      },
    });
    const doc = await add(`http://127.0.0.1:${canary.port}/admin`);
    expect(doc.status).toBe('failed');
    expect(doc.learned).toBe(false);
    expect(doc.error).toMatch(/loopback|private|not allowed|refus/i);
    expect(hits).toBe(0);
    expect((await call(server, 'POST', '/v1/search', key, { q: 'secret' })).body.results).toHaveLength(0);
    await canary.stop(true);
    await server.close();
  });

  it('reads pages on loopback when the operator allows it: HTML as readable text, with its title', async () => {
    const { server, key, add } = await serverWith({ ENGRAM_FETCH_ALLOW_PRIVATE: 'true' });
    const doc = await add(`${base}/recipe.html`);
    expect(doc.status).toBe('learned');
    const found = (await call(server, 'POST', '/v1/search', key, { q: 'lentils cumin' })).body.results;
    expect(found[0].content).toContain('Simmer the lentils with cumin');
    expect(found[0].content).not.toContain('tracking');
    expect(found[0].title).toBe('Grandma’s soup');
    expect((await add(`${base}/notes.txt`)).status).toBe('learned');
    await server.close();
  });

  it('ends in a failed state with the reason for a page that is not text, or not there', async () => {
    const { server, add } = await serverWith({ ENGRAM_FETCH_ALLOW_PRIVATE: 'true' });
    const pdf = await add(`${base}/file.pdf`);
    expect(pdf.status).toBe('failed');
    expect(pdf.error).toContain('application/pdf');
    const missing = await add(`${base}/nothing-here`);
    expect(missing.status).toBe('failed');
    expect(missing.error).toContain('404');
    await server.close();
  });
});
