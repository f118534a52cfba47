/**
 * What every owner page and form post shares: the signed-in check (anyone else is sent to sign in
 * and brought back), CSRF and origin checks on posts, a one-time flash message across a redirect,
 * and the owner's operation context. The page areas (setup, keys, memory, facts, rules, search)
 * are small Hono apps built on one kit.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { HtmlEscapedString } from 'hono/utils/html';
import { ServiceError } from '../errors';
import type { AppEnv } from '../http/app-env';
import type { PasswordThrottle } from '../http/middleware/password-throttle';
import { type OwnerSession, ownerSession } from '../http/session-cookie';
import { getAccount } from '../operations/account/get-account';
import { type Context as OpContext, contextFor, invoke, type Services } from '../operations/operation';
import { servesHttps, type Site } from '../site';
import { type FormTokens, foreignOrigin } from './forms';
import type { ImportRuns } from './import-runs';
import { pageHeaders } from './layout';
import { signInUrl } from './paths';

export interface WebDeps {
  services: Services;
  site: Site;
  forms: FormTokens;
  /** The sign-in throttle shared with POST /v1/session. */
  passwords: PasswordThrottle;
  /** The Import page's runs. */
  imports: ImportRuns;
}

const FLASH_COOKIE = 'engram_flash';

/** What the owner is told of a form post refused as sent from another site or without its token. */
export const FORM_REFUSED = 'The form expired or came from another site. Nothing was changed; please try again.';

export type Form = Record<string, string | File | (string | File)[]>;

export interface Owner {
  session: OwnerSession;
  ctx: OpContext;
  csrf: string;
  email: string;
}

/** A one-time message for the next page (after a redirect): `notice` or `error`. */
export interface Flash {
  notice: string | null;
  error: string | null;
}

/** What every owner page takes from the request: the sign-out form's token, who is signed in, and the flash. */
export const pageFrame = (o: Owner, f: Flash) => ({ csrf: o.csrf, email: o.email, notice: f.notice, error: f.error });

/** A form field's (first) text value; '' when absent. */
export const str = (form: Form, name: string): string => {
  const v = form[name];
  const one = Array.isArray(v) ? v[0] : v;
  return typeof one === 'string' ? one : '';
};

/** Every text value of a repeated form field (tick boxes). */
export const list = (form: Form, name: string): string[] => {
  const v = form[name];
  return (Array.isArray(v) ? v : v == null ? [] : [v]).filter((x): x is string => typeof x === 'string');
};

/** The `:id` of the route (typed loosely by handlers shared across paths). */
export const idParam = (c: Context<AppEnv>): string => c.req.param('id') ?? '';

/**
 * Refusals the owner can act on (a bad name, a clash, a key that changed meanwhile, a busy account)
 * become a message; the rest are errors.
 */
export const fixable = (err: unknown): err is ServiceError =>
  err instanceof ServiceError &&
  ['validation', 'conflict', 'not_found', 'unauthorized', 'rate_limited', 'capability_unavailable'].includes(err.code);

/** An operation context for the owner signed in with the cookie. */
export function ownerContext(c: Context<AppEnv>, services: Services, session: OwnerSession): OpContext {
  return contextFor(services, { kind: 'owner', ...session }, c.get('traceId'));
}

export type OwnerKit = ReturnType<typeof ownerKit>;

export function ownerKit(deps: WebDeps) {
  const { services, site, forms } = deps;
  const secure = servesHttps(site);

  const html = (
    c: Context<AppEnv>,
    page: HtmlEscapedString | Promise<HtmlEscapedString>,
    status: 200 | 400 | 403 | 429 = 200,
  ) => {
    pageHeaders(c);
    return c.html(page, status);
  };

  const ownerOf = async (c: Context<AppEnv>, session: OwnerSession): Promise<Owner> => {
    const ctx = ownerContext(c, services, session);
    return {
      session,
      ctx,
      csrf: forms.tokenFor('session', session.sessionId),
      email: (await invoke(getAccount, ctx, {})).email,
    };
  };

  const flash = (c: Context<AppEnv>, kind: 'notice' | 'error', message: string) =>
    setCookie(c, FLASH_COOKIE, `${kind === 'notice' ? 'n' : 'e'}:${message.slice(0, 500)}`, {
      path: '/',
      httpOnly: true,
      sameSite: 'Lax',
      secure,
      maxAge: 60,
    });

  const takeFlash = (c: Context<AppEnv>): Flash => {
    const value = getCookie(c, FLASH_COOKIE);
    if (!value) return { notice: null, error: null };
    deleteCookie(c, FLASH_COOKIE, { path: '/', httpOnly: true, sameSite: 'Lax', secure });
    return {
      notice: value.startsWith('n:') ? value.slice(2) : null,
      error: value.startsWith('e:') ? value.slice(2) : null,
    };
  };

  /** A page for the signed-in owner; anyone else is sent to sign in and brought back. */
  const page =
    (render: (c: Context<AppEnv>, o: Owner, f: Flash) => Promise<Response> | Response) =>
    async (c: Context<AppEnv>) => {
      const session = await ownerSession(c, services);
      if (!session) return c.redirect(signInUrl(c.req.path + (new URL(c.req.url).search || '')), 303);
      return render(c, await ownerOf(c, session), takeFlash(c));
    };

  /**
   * Whether a form post of the session must be refused: sent from another site, or without the
   * session's CSRF token.
   */
  const refusedForm = (c: Context<AppEnv>, session: OwnerSession, token: string): boolean =>
    !!foreignOrigin(c, site) || !forms.check('session', session.sessionId, token);

  /**
   * A form post of the signed-in owner: refused unless it comes from this site with the session's
   * CSRF token. `act` returns where to go next (and a notice); a refusal the owner can fix is shown
   * on `back` instead.
   */
  const post =
    (
      back: (c: Context<AppEnv>) => string,
      act: (c: Context<AppEnv>, o: Owner, form: Form) => Promise<Response | { to: string; notice?: string }>,
    ) =>
    async (c: Context<AppEnv>) => {
      const session = await ownerSession(c, services);
      if (!session) return c.redirect(signInUrl(back(c)), 303);
      const form = (await c.req.parseBody({ all: true })) as Form;
      if (refusedForm(c, session, str(form, 'csrf'))) {
        flash(c, 'error', FORM_REFUSED);
        return c.redirect(back(c), 303);
      }
      try {
        const done = await act(c, await ownerOf(c, session), form);
        if (done instanceof Response) return done;
        if (done.notice) flash(c, 'notice', done.notice);
        return c.redirect(done.to, 303);
      } catch (err) {
        if (!fixable(err)) throw err;
        flash(c, 'error', err.message);
        return c.redirect(back(c), 303);
      }
    };

  return { ...deps, html, flash, page, post, ownerOf, refusedForm };
}
