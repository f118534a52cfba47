// The address guard through fetchDocument, with DNS and the transport stubbed: nothing here opens a socket.
import { describe, expect, it } from 'bun:test';
import { FetchError, fetchDocument, type Transport } from '../../src/fetch/fetch-document';
import type { Lookup, ResolvedAddress } from '../../src/fetch/resolve-host';

const PUBLIC = '93.184.216.34';

/** A resolver from a fixed table; any other name fails the test instead of reaching DNS. */
function table(entries: Record<string, ResolvedAddress[]>): Lookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (name: string) => {
    calls.push(name);
    const answer = entries[name];
    if (!answer) throw new Error(`unexpected lookup of ${name}`);
    return answer;
  };
  return Object.assign(lookup, { calls });
}

/** A transport that records each request and answers with `respond`, never touching the network. */
function recorder(
  respond: (url: string, init: BunFetchRequestInit) => Response = () =>
    new Response('ok', { headers: { 'content-type': 'text/plain' } }),
) {
  const requests: { url: string; init: BunFetchRequestInit }[] = [];
  const transport: Transport = async (url, init) => {
    requests.push({ url, init });
    return respond(url, init);
  };
  return { transport, requests };
}

const noLookup: Lookup = async (name) => {
  throw new Error(`unexpected lookup of ${name}`);
};

async function refusal(url: string, lookup: Lookup = noLookup): Promise<FetchError> {
  const { transport, requests } = recorder();
  const error = await fetchDocument(url, { allowPrivate: false, lookup, fetch: transport }).catch((e) => e);
  expect(requests).toEqual([]); // refused before any connection
  expect(error).toBeInstanceOf(FetchError);
  return error as FetchError;
}

describe('literal addresses in any notation', () => {
  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.0.0.1/',
    'http://0x7f000001/',
    'http://127.1/',
    'http://127.0.0.1./',
    'http://0/',
    'http://0.0.0.0/',
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/',
    'http://0251.0376.0251.0376/',
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'https://240.0.0.1/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[fc00::1]/',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/',
    'http://[ff02::1]/',
    'http://[2002:7f00:1::]/',
  ])('refuses %s without DNS or a connection', async (url) => {
    const error = await refusal(url);
    expect(error.permanent).toBe(true);
    expect(error.message).toStartWith('Refused to fetch');
    expect(error.message).toContain('ENGRAM_FETCH_ALLOW_PRIVATE');
  });

  it.each(['http://localhost/', 'http://LOCALHOST./', 'http://app.localhost:8080/x'])(
    'refuses the name %s without asking DNS',
    async (url) => {
      const error = await refusal(url);
      expect(error.message).toContain('loopback name');
    },
  );

  it('names the range in the reason', async () => {
    expect((await refusal('http://169.254.169.254/')).message).toContain('link-local');
    expect((await refusal('http://0x7f.1/')).message).toContain('127.0.0.1 is a loopback address');
  });
});

describe('names that resolve to refused addresses', () => {
  it('refuses a name when ANY of its addresses is refused', async () => {
    const lookup = table({
      'mixed.example': [
        { address: PUBLIC, family: 4 },
        { address: '10.1.2.3', family: 4 },
      ],
    });
    const error = await refusal('http://mixed.example/doc', lookup);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('mixed.example, which resolves to 10.1.2.3, is a private network address');
  });

  it.each(['127.0.0.1', '::1', '::ffff:169.254.169.254', '64:ff9b::7f00:1', 'fd00::1', '0.0.0.0'])(
    'refuses a name resolving to %s',
    async (address) => {
      const lookup = table({ 'evil.example': [{ address, family: address.includes(':') ? 6 : 4 }] });
      await refusal('https://evil.example/', lookup);
    },
  );

  it('treats a failed lookup as retryable', async () => {
    const lookup: Lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const error = await fetchDocument('http://nowhere.example/', {
      allowPrivate: false,
      lookup,
      fetch: recorder().transport,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('Could not find the host nowhere.example');
  });
});

describe('connecting to the checked address', () => {
  it('sends http to the resolved IP with the name in the Host header, and resolves once', async () => {
    const lookup = table({ 'docs.example': [{ address: PUBLIC, family: 4 }] });
    const { transport, requests } = recorder();
    const doc = await fetchDocument('http://docs.example:8080/a/b?q=1#frag', {
      allowPrivate: false,
      lookup,
      fetch: transport,
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url).toBe(`http://${PUBLIC}:8080/a/b?q=1`);
    expect(new Headers(requests[0]!.init.headers).get('host')).toBe('docs.example:8080');
    expect(requests[0]!.init.redirect).toBe('manual');
    expect(lookup.calls).toEqual(['docs.example']);
    expect(doc.finalUrl).toBe('http://docs.example:8080/a/b?q=1');
  });

  it('sends https to the resolved IP with the name as TLS server name, over HTTP/1.1', async () => {
    const lookup = table({ 'docs.example': [{ address: '2606:4700::1', family: 6 }] });
    const { transport, requests } = recorder();
    await fetchDocument('https://docs.example/x', { allowPrivate: false, lookup, fetch: transport });
    expect(requests[0]!.url).toBe('https://[2606:4700::1]/x');
    expect(requests[0]!.init.tls?.serverName).toBe('docs.example');
    expect(requests[0]!.init.protocol).toBe('http1.1');
    expect(new Headers(requests[0]!.init.headers).get('host')).toBe('docs.example');
    expect(new Headers(requests[0]!.init.headers).get('user-agent')).toBe('Engram/0.1 (+local memory server)');
  });

  it('tries IPv4 first and moves to the next address when a connection fails', async () => {
    const lookup = table({
      'two.example': [
        { address: '2606:4700::1', family: 6 },
        { address: PUBLIC, family: 4 },
        { address: '1.1.1.1', family: 4 },
      ],
    });
    const { transport, requests } = recorder((url) => {
      if (url.includes(PUBLIC)) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      return new Response('second', { headers: { 'content-type': 'text/plain' } });
    });
    const doc = await fetchDocument('http://two.example/', { allowPrivate: false, lookup, fetch: transport });
    expect(requests.map((r) => r.url)).toEqual([`http://${PUBLIC}/`, 'http://1.1.1.1/']);
    expect(doc.text).toBe('second');
  });

  it('re-checks every redirect hop, and refuses one that leads inside', async () => {
    const lookup = table({
      'docs.example': [{ address: PUBLIC, family: 4 }],
      'inside.example': [{ address: '192.168.0.10', family: 4 }],
    });
    const { transport, requests } = recorder(
      () => new Response(null, { status: 302, headers: { location: 'http://inside.example/admin' } }),
    );
    const error = await fetchDocument('http://docs.example/', { allowPrivate: false, lookup, fetch: transport }).catch(
      (e) => e,
    );
    expect(requests).toHaveLength(1);
    expect(error).toBeInstanceOf(FetchError);
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('inside.example, which resolves to 192.168.0.10');
    expect(error.message).toContain('reached by a redirect from http://docs.example/');
  });

  it('never falls back to the name when an address cannot be put in the URL', async () => {
    const lookup = table({ 'zoned.lan': [{ address: 'fe80::1%eth0', family: 6 }] });
    const { transport, requests } = recorder();
    const error = await fetchDocument('http://zoned.lan/', { allowPrivate: true, lookup, fetch: transport }).catch(
      (e) => e,
    );
    expect(requests).toEqual([]);
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toContain('fe80::1%eth0 cannot be connected to');
  });

  it('lets private addresses through when allowPrivate is set', async () => {
    const lookup = table({ 'nas.lan': [{ address: '192.168.1.20', family: 4 }] });
    const { transport, requests } = recorder();
    await fetchDocument('http://nas.lan/notes.txt', { allowPrivate: true, lookup, fetch: transport });
    expect(requests[0]!.url).toBe('http://192.168.1.20/notes.txt');
  });
});

describe('URLs that are not fetched at all', () => {
  it.each([
    ['ftp://files.example/a.txt', 'only http and https'],
    ['file:///etc/passwd', 'only http and https'],
    ['javascript:alert(1)', 'only http and https'],
    ['not a url', 'Not a valid URL'],
    ['http://user:secret@docs.example/', 'user name or password'],
  ])('refuses %s', async (url, reason) => {
    const error = await refusal(url);
    expect(error.permanent).toBe(true);
    expect(error.message.toLowerCase()).toContain(reason.toLowerCase());
    expect(error.message).not.toContain('secret');
  });

  it('refuses a redirect to another scheme', async () => {
    const lookup = table({ 'docs.example': [{ address: PUBLIC, family: 4 }] });
    const { transport } = recorder(
      () => new Response(null, { status: 301, headers: { location: 'file:///etc/passwd' } }),
    );
    const error = await fetchDocument('http://docs.example/', { allowPrivate: false, lookup, fetch: transport }).catch(
      (e) => e,
    );
    expect(error.message).toContain('only http and https');
    expect(error.permanent).toBe(true);
  });
});
