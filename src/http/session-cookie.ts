/**
 * The owner's signed-in session as a browser carries it: a cookie holding the same session token
 * `egs_<id>_<secret>` as scripts use (HttpOnly, SameSite=Lax, Secure over https). Read by the owner's
 * pages, the consent screen and the health check.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { AuthError, authenticate } from '../auth/credentials';
import type { Services } from '../operations/operation';
import { servesHttps, type Site } from '../site';

const SESSION_COOKIE = 'engram_session';

export interface OwnerSession {
  accountId: string;
  sessionId: string;
}

/** The owner signed in with the cookie, or null (no cookie, or a session that ended). */
export async function ownerSession(c: Context, services: Services): Promise<OwnerSession | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return null;
  try {
    const caller = await authenticate(services.store, services.clock, token);
    return caller.kind === 'owner' && caller.sessionId !== null
      ? { accountId: caller.accountId, sessionId: caller.sessionId }
      : null;
  } catch (err) {
    if (err instanceof AuthError) return null;
    throw err;
  }
}

export function setSessionCookie(c: Context, site: Site, token: string, expiresAt: number, now: number): void {
  setCookie(c, SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: servesHttps(site),
    maxAge: Math.max(0, Math.floor((expiresAt - now) / 1000)),
  });
}

export function clearSessionCookie(c: Context, site: Site): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'Lax', secure: servesHttps(site) });
}
