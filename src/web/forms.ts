/**
 * What guards the owner's forms: their CSRF tokens, where a post came from, and where a redirect may
 * go. A form's CSRF token is an HMAC, under a server secret kept in the store's settings, of the
 * session id (or, before sign-in, of a random value in its own cookie), so nothing more is stored per
 * form and a token from one session is worthless in another. The session's own cookie is
 * http/session-cookie.ts's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { randomBase62 } from '../ids';
import { servesHttps, type Site } from '../site';
import type { Repositories } from '../storage/store';

/** Before sign-in there is no session to bind a form to: a random value in this cookie stands in. */
export const SIGN_IN_COOKIE = 'engram_sign_in';
const SECRET_SETTING = 'web_csrf_secret';

/** Signs CSRF tokens with the server's own secret, created on first use and kept in the store. */
export class FormTokens {
  private key: Buffer | null = null;
  private loading: Promise<void> | null = null;
  /** Why the secret could not be read (a full disk, when it must first be made): thrown by the form that needs it. */
  private failure: unknown = null;

  constructor(private readonly store: Repositories) {}

  /**
   * Reads (or makes) the secret, once; every request waits for it first, so that pages sign and
   * check forms synchronously. Never rejects: a failure is the forms', thrown when one is signed
   * or checked (a REST call needs no form), and the next request tries again.
   */
  ready(): Promise<void> {
    if (this.key) return Promise.resolve();
    this.loading ??= this.store.settings
      .ensure(SECRET_SETTING, () => randomBase62(64))
      .then(
        (secret) => {
          this.key = Buffer.from(secret);
        },
        (err) => {
          this.failure = err;
          this.loading = null;
        },
      );
    return this.loading;
  }

  /** The token a form bound to `subject` (a session id, or the sign-in cookie's value) must carry. */
  tokenFor(purpose: 'session' | 'sign_in', subject: string): string {
    if (!this.key) throw this.failure ?? new Error('FormTokens.ready() was not awaited before signing a form.');
    return createHmac('sha256', this.key).update(`${purpose}:${subject}`).digest('base64url');
  }

  /** Whether `given` is that token; compared in constant time. */
  check(purpose: 'session' | 'sign_in', subject: string, given: unknown): boolean {
    if (typeof given !== 'string' || !subject) return false;
    const a = Buffer.from(this.tokenFor(purpose, subject));
    const b = Buffer.from(given);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/** The sign-in form's subject: the value of its cookie, set now when there is none. */
export function signInSubject(c: Context, site: Site): string {
  let value = getCookie(c, SIGN_IN_COOKIE);
  if (!value || !/^[A-Za-z0-9]{32}$/.test(value)) {
    value = randomBase62(32);
    setCookie(c, SIGN_IN_COOKIE, value, {
      path: '/',
      httpOnly: true,
      sameSite: 'Lax',
      secure: servesHttps(site),
      maxAge: 3600,
    });
  }
  return value;
}

/**
 * Where a form post came from, when that is not one of the server's own pages; null when it may
 * go on to the CSRF token check. The token already stops a forged post; this is a second wall,
 * built from what the browser itself says: `Sec-Fetch-Site: cross-site`; an Origin that is not the
 * server's (`null` included: a sandboxed frame or a `data:` page sends it, and the pages' own
 * `Referrer-Policy: same-origin` makes a browser send their real origin); without an Origin, a
 * Referer from another origin. A post that says nothing (a script, an old browser) goes on to the
 * token. Only the server's own origins count: an app origin allowed on /mcp-http posts no form.
 */
export function foreignOrigin(c: Context, site: Site): string | null {
  if (c.req.header('Sec-Fetch-Site') === 'cross-site') return 'another site';
  const origin = c.req.header('Origin');
  if (origin !== undefined)
    return site.ownOrigins.has(origin) ? null : origin === 'null' ? 'a page without an origin' : origin;
  const referer = c.req.header('Referer');
  if (referer === undefined) return null;
  const from = URL.parse(referer)?.origin;
  return from && site.ownOrigins.has(from) ? null : (from ?? 'another page');
}

/**
 * A redirect target is printable ASCII without a backslash: browsers strip tabs and newlines and
 * read a backslash as `/` before resolving a Location (`/\t/evil.example` becomes `//evil.example`),
 * and a header value cannot carry other characters anyway. Our own paths are always ASCII.
 */
const SAFE_PATH = /^\/[\x21-\x5b\x5d-\x7e]*$/;
const PROBE_ORIGIN = 'http://local.invalid';

/**
 * The one guard for every redirect to a path the request chose (sign-in's `next`, the forget
 * page's `back`): only a path of this server, never another origin (an open redirect). A path
 * starts with one `/`, holds only safe characters, and resolves to this origin as a URL parser
 * reads it, so neither `//host`, `/\host`, `/\t/host` nor a scheme gets through.
 */
export function localPath(next: unknown, fallback: string): string {
  if (typeof next !== 'string' || !SAFE_PATH.test(next) || next.startsWith('//')) return fallback;
  try {
    return new URL(next, PROBE_ORIGIN).origin === PROBE_ORIGIN ? next : fallback;
  } catch {
    return fallback;
  }
}
