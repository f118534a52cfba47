// fetchDocument against real local servers on 127.0.0.1 (ephemeral ports); nothing else is ever reached.
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { Server, TCPSocketListener } from 'bun';
import { FetchError, fetchDocument, type FetchOptions, type Transport } from '../../src/fetch/fetch-document';
import type { Lookup } from '../../src/fetch/resolve-host';

const MiB = 1024 * 1024;
const PUBLIC = '93.184.216.34';

const PAGE = `<!doctype html>
<html><head><title>  The   Garden
  Notes </title><style>body { color: red }</style><script>var tracker = "SCRIPT-TEXT";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">NAV-LINK</a></nav>
<main>
<h1>Tomatoes</h1>
<p>Plant them after the <a href="/frost">last frost</a>, in full sun.</p>
<p>Water deeply &amp; rarely.<script>document.write("INLINE-SCRIPT")</script></p>
<ul><li>Roma</li><li>Cherry</li></ul>
</main>
<form><button>FORM-BUTTON</button></form>
</body></html>`;

let server: Server<undefined>;
let silent: TCPSocketListener<undefined>;
let base: string;
let secretHits = 0;
let endlessSent = 0;

/** 64 KiB chunks up to `total` bytes, streamed without a Content-Length; `onChunk` counts what was pulled. */
function stream(total: number, onChunk: (n: number) => void = () => {}): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.byteLength;
      onChunk(chunk.byteLength);
    },
  });
}

const text = (body: BodyInit, type: string | null, status = 200) =>
  new Response(body, { status, headers: type ? { 'content-type': type } : {} });

beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      const [, first, arg] = path.split('/');
      switch (first) {
        case 'plain':
          return text('hello, plain world', 'text/plain; charset=utf-8');
        case 'markdown':
          return text('# Heading\n\nA *markdown* body.', 'text/markdown');
        case 'page':
          return text(PAGE, 'text/html; charset=utf-8');
        case 'latin1':
          return text(
            new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x63, 0x72, 0xe8, 0x6d, 0x65]),
            'text/plain; charset="ISO-8859-1"',
          );
        case 'meta-charset': {
          // "Привет" in windows-1251, named only by the page's <meta>.
          const cyr = [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2];
          const bytes = [
            ...new TextEncoder().encode('<html><head><meta charset="windows-1251"><title>'),
            ...cyr,
            ...new TextEncoder().encode('</title></head><body><p>'),
            ...cyr,
            ...new TextEncoder().encode('</p></body></html>'),
          ];
          return text(new Uint8Array(bytes), 'text/html');
        }
        case 'utf8-default':
          return text(new TextEncoder().encode('naïve café ✓'), 'text/plain');
        case 'unknown-charset':
          return text(new TextEncoder().encode('déjà vu'), 'text/plain; charset=x-made-up');
        case 'pdf':
          return text(new Uint8Array([0x25, 0x50, 0x44, 0x46]), 'application/pdf');
        case 'png':
          return text(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), 'image/png');
        case 'no-type':
          return new Response(new Uint8Array([0x68, 0x69]));
        case 'empty':
          return text('', 'text/plain');
        case 'script-only':
          return text('<html><body><script>render()</script></body></html>', 'text/html');
        case 'status':
          return text(`status ${arg}`, 'text/plain', Number(arg));
        case 'hops': {
          const left = Number(arg);
          return left > 0
            ? new Response(null, { status: 302, headers: { location: `/hops/${left - 1}` } })
            : text('arrived', 'text/plain');
        }
        case 'relative':
          return new Response(null, { status: 301, headers: { location: '../plain' } });
        case 'to-loopback':
          return new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${server.port}/secret` } });
        case 'to-mapped':
          return new Response(null, {
            status: 307,
            headers: { location: `http://[::ffff:7f00:1]:${server.port}/secret` },
          });
        case 'to-hex':
          return new Response(null, { status: 308, headers: { location: `http://0x7f.1:${server.port}/secret` } });
        case 'secret':
          secretHits++;
          return text('internal secret', 'text/plain');
        case 'big-stream':
          return new Response(stream(11 * MiB), { headers: { 'content-type': 'text/plain' } });
        case 'endless':
          return new Response(
            stream(64 * MiB, (n) => (endlessSent += n)),
            { headers: { 'content-type': 'text/plain' } },
          );
        case 'big-declared':
          return text(new Uint8Array(11 * MiB).fill(0x61), 'text/plain');
        case 'stall':
          return new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode('first part, then nothing'));
              },
            }),
            { headers: { 'content-type': 'text/plain' } },
          );
        default:
          return text('not here', 'text/plain', 404);
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  // Accepts connections and never says a word.
  silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
});

afterAll(async () => {
  await server.stop(true);
  silent.stop(true);
});

const local: FetchOptions = { allowPrivate: true };

async function failure(url: string, options: FetchOptions = local): Promise<FetchError> {
  const error = await fetchDocument(url, options).catch((e) => e);
  expect(error).toBeInstanceOf(FetchError);
  return error as FetchError;
}

describe('loopback', () => {
  it('is refused by default', async () => {
    const error = await failure(`${base}/plain`, { allowPrivate: false });
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('127.0.0.1 is a loopback address');
  });

  it('is fetched when allowPrivate is set', async () => {
    const doc = await fetchDocument(`${base}/plain`, local);
    expect(doc).toEqual({
      text: 'hello, plain world',
      title: null,
      contentType: 'text/plain',
      finalUrl: `${base}/plain`,
    });
  });
});

describe('redirects', () => {
  /** Makes public.example look public to the guard, and carries its requests to the local server. */
  const publicHost: Lookup = async (name) => {
    if (name !== 'public.example') throw new Error(`unexpected lookup of ${name}`);
    return [{ address: PUBLIC, family: 4 }];
  };
  const toLocal: Transport = (url, init) => {
    const target = new URL(url);
    if (target.hostname !== PUBLIC) throw new Error(`test transport refuses ${url}`);
    target.hostname = '127.0.0.1';
    return fetch(target, init);
  };

  it.each(['to-loopback', 'to-mapped', 'to-hex'])(
    'refuses a hop to loopback (/%s) when allowPrivate is false',
    async (route) => {
      const error = await failure(`http://public.example:${server.port}/${route}`, {
        allowPrivate: false,
        lookup: publicHost,
        fetch: toLocal,
      });
      expect(error.permanent).toBe(true);
      expect(error.message).toContain('is a loopback address');
      expect(error.message).toContain(`reached by a redirect from http://public.example:${server.port}/${route}`);
      expect(secretHits).toBe(0);
    },
  );

  it('follows the allowed first hop through the pinned address', async () => {
    const doc = await fetchDocument(`http://public.example:${server.port}/hops/1`, {
      allowPrivate: false,
      lookup: publicHost,
      fetch: toLocal,
    });
    expect(doc.text).toBe('arrived');
    expect(doc.finalUrl).toBe(`http://public.example:${server.port}/hops/0`);
  });

  it('follows up to maxRedirects hops', async () => {
    const doc = await fetchDocument(`${base}/hops/5`, local);
    expect(doc.text).toBe('arrived');
    expect(doc.finalUrl).toBe(`${base}/hops/0`);
  });

  it('gives up permanently after maxRedirects hops', async () => {
    const error = await failure(`${base}/hops/6`);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('redirected more than 5 times');
    const two = await failure(`${base}/hops/3`, { ...local, maxRedirects: 2 });
    expect(two.message).toContain('redirected more than 2 times');
  });

  it('resolves a relative Location against the URL asked for', async () => {
    const doc = await fetchDocument(`${base}/relative/x`, local);
    expect(doc.finalUrl).toBe(`${base}/plain`);
    expect(doc.text).toBe('hello, plain world');
  });
});

describe('budget', () => {
  it('cuts off a body streamed past 10 MiB', async () => {
    const error = await failure(`${base}/big-stream`);
    expect(error.permanent).toBe(true);
    expect(error.message).toBe(
      `The document at ${base}/big-stream is larger than the 10 MiB limit for a fetched url body.`,
    );
  });

  it('refuses a declared Content-Length over the limit', async () => {
    const error = await failure(`${base}/big-declared`);
    expect(error.message).toContain('larger than the 10 MiB limit');
  });

  it('stops reading at the limit instead of downloading the rest', async () => {
    endlessSent = 0;
    const error = await failure(`${base}/endless`, { ...local, maxBytes: MiB });
    expect(error.message).toContain('larger than the 1 MiB limit');
    await Bun.sleep(100);
    expect(endlessSent).toBeLessThan(32 * MiB);
  });

  it('times out, retryably, on a server that never answers', async () => {
    const started = performance.now();
    const error = await failure(`http://127.0.0.1:${silent.port}/`, { ...local, timeoutMs: 300 });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('Timed out after 0.3 s');
  });

  it('times out on a body that stops arriving', async () => {
    const error = await failure(`${base}/stall`, { ...local, timeoutMs: 400 });
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('Timed out');
  });

  it('stops, retryably, when the caller cancels', async () => {
    const controller = new AbortController();
    const pending = fetchDocument(`http://127.0.0.1:${silent.port}/`, { ...local, signal: controller.signal }).catch(
      (e) => e,
    );
    setTimeout(() => controller.abort(), 50);
    const error = await pending;
    expect(error).toBeInstanceOf(FetchError);
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('cancelled');
  });
});

describe('content', () => {
  it('turns HTML into text that keeps paragraphs and drops scripts, styles, nav and forms', async () => {
    const doc = await fetchDocument(`${base}/page`, local);
    expect(doc.title).toBe('The Garden Notes');
    expect(doc.contentType).toBe('text/html');
    expect(doc.text).toContain('Tomatoes\n\nPlant them after the last frost, in full sun.\n\nWater deeply & rarely.');
    expect(doc.text).toContain('Roma');
    for (const gone of [
      'SCRIPT-TEXT',
      'INLINE-SCRIPT',
      'color: red',
      'NAV-LINK',
      'FORM-BUTTON',
      '/frost',
      'The Garden',
    ]) {
      expect(doc.text).not.toContain(gone);
    }
  });

  it('passes markdown and other text through unchanged', async () => {
    const doc = await fetchDocument(`${base}/markdown`, local);
    expect(doc).toMatchObject({ text: '# Heading\n\nA *markdown* body.', title: null, contentType: 'text/markdown' });
  });

  it('decodes the charset named in the Content-Type header', async () => {
    expect((await fetchDocument(`${base}/latin1`, local)).text).toBe('café crème');
  });

  it("decodes the charset named in an HTML page's meta when the header names none", async () => {
    const doc = await fetchDocument(`${base}/meta-charset`, local);
    expect(doc.title).toBe('Привет');
    expect(doc.text).toBe('Привет');
  });

  it('reads UTF-8 when no charset is named, or an unknown one is', async () => {
    expect((await fetchDocument(`${base}/utf8-default`, local)).text).toBe('naïve café ✓');
    expect((await fetchDocument(`${base}/unknown-charset`, local)).text).toBe('déjà vu');
  });

  it.each([
    ['pdf', 'application/pdf'],
    ['png', 'image/png'],
  ])('refuses /%s permanently as an unsupported content type', async (route, type) => {
    const error = await failure(`${base}/${route}`);
    expect(error.permanent).toBe(true);
    expect(error.message).toStartWith(`Unsupported content type ${type}`);
  });

  it('refuses a body without a content type', async () => {
    const error = await failure(`${base}/no-type`);
    expect(error.permanent).toBe(true);
    expect(error.message).toStartWith('Unsupported content type');
  });

  it('fails a page or file that has no readable text', async () => {
    const page = await failure(`${base}/script-only`);
    expect(page.permanent).toBe(true);
    expect(page.message).toContain('no readable text (the page may need JavaScript');
    expect((await failure(`${base}/empty`)).message).toBe(`The document at ${base}/empty has no readable text.`);
  });
});

describe('status', () => {
  it.each([
    [404, true, 'does not exist'],
    [410, true, 'does not exist'],
    [403, true, 'refused access'],
    [400, true, 'cannot read'],
    [503, false, 'server error'],
    [500, false, 'server error'],
    [429, false, 'try again later'],
  ])('treats %i as permanent=%p', async (status, permanent, reason) => {
    const error = await failure(`${base}/status/${status}`);
    expect(error.permanent).toBe(permanent);
    expect(error.message).toStartWith(`${base}/status/${status} answered ${status}`);
    expect(error.message).toContain(reason);
  });

  it('treats a refused connection as retryable', async () => {
    const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') });
    const port = probe.port;
    await probe.stop(true);
    const error = await failure(`http://127.0.0.1:${port}/`);
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('the connection was refused');
  });
});
