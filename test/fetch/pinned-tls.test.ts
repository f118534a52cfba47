// https to a pinned address on 127.0.0.1: the name must travel as SNI and be what the certificate is checked against.
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { Server } from 'bun';
import { FetchError, fetchDocument, type Transport } from '../../src/fetch/fetch-document';
import type { Lookup } from '../../src/fetch/resolve-host';

// A self-signed certificate for pinned.test only, made for this test (fixtures/); it secures nothing.
const cert = await Bun.file(new URL('fixtures/pinned-test.cert.pem', import.meta.url)).text();
const key = await Bun.file(new URL('fixtures/pinned-test.key.pem', import.meta.url)).text();

let server: Server<undefined>;
const seen: { host: string | null; url: string }[] = [];

beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    tls: { cert, key },
    fetch(req) {
      seen.push({ host: req.headers.get('host'), url: req.url });
      return new Response('<title>Pinned</title><p>over tls</p>', { headers: { 'content-type': 'text/html' } });
    },
  });
});

afterAll(() => server.stop(true));

const loopbackFor: Lookup = async () => [{ address: '127.0.0.1', family: 4 }];

/** The real fetch, trusting the test certificate; everything else comes from fetchDocument unchanged. */
const trustingTestCert: Transport = (url, init) => {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error(`test transport refuses ${url}`);
  return fetch(url, { ...init, tls: { ...init.tls, ca: cert } });
};

describe('https to the checked address', () => {
  it('connects to the IP and verifies the certificate against the name', async () => {
    const doc = await fetchDocument(`https://pinned.test:${server.port}/doc`, {
      allowPrivate: true,
      lookup: loopbackFor,
      fetch: trustingTestCert,
    });
    expect(doc).toEqual({
      text: 'over tls',
      title: 'Pinned',
      contentType: 'text/html',
      finalUrl: `https://pinned.test:${server.port}/doc`,
    });
    expect(seen.at(-1)?.host).toBe(`pinned.test:${server.port}`);
  });

  it('refuses, permanently, a certificate that is not for the name', async () => {
    const error = await fetchDocument(`https://other.test:${server.port}/doc`, {
      allowPrivate: true,
      lookup: loopbackFor,
      fetch: trustingTestCert,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain(`The TLS certificate of other.test:${server.port} could not be verified`);
  });

  it('refuses an untrusted certificate with the default transport', async () => {
    const error = await fetchDocument(`https://pinned.test:${server.port}/doc`, {
      allowPrivate: true,
      lookup: loopbackFor,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('could not be verified');
  });
});
