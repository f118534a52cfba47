/** @jsxImportSource hono/jsx */
/**
 * The owner's web app beyond sign-in: first-run setup, the key screen and a key's usage, the memory
 * pages (containers, documents, passages, facts, profile, rules) and the search box. Every read and
 * write goes through an operation with the owner as caller (`invoke`), so the pages hold no rules of
 * their own; the only direct store reads are the lists no operation gives (a container's facts, a
 * document's passages, one fact to name on its confirmation page). Forms carry CSRF tokens and
 * removals ask first on a page of their own, so everything works without the script.
 */
import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { HtmlEscapedString } from 'hono/utils/html';
import { createAccount, startSession } from '../auth/owner';
import { learningProgress, refinedPercent } from '../learning/progress';
import { ServiceError } from '../errors';
import type { AppEnv } from '../http/app-env';
import { clientAddress } from '../http/client-address';
import {
  addDocument, addMemory, addRule, confirmFact, createContainer, createKey, deleteContainer, deleteDocument, deleteRule, forgetMemory, getDocument,
  getProfile, keyUsage, listContainers, listDocuments, listKeys, memoryRules, revokeKey, searchMemories, setKeyContainers, updateContainer, updateKey,
} from '../operations';
import { containerLoss, documentLoss, forgottenSummary } from '../operations/forgetting';
import { type Context as OpContext, invoke } from '../operations/operation';
import { RateLimiter } from '../operations/rate-limiter';
import { toFact } from '../operations/shapes';
import type { ForgetTarget, Memory } from '../storage/store';
import { type ConfirmChoices, ConfirmPage } from './confirm-page';
import { ContainerPage } from './container-page';
import { ContainersPage } from './containers-page';
import { DocumentPage } from './document-page';
import type { KeyView } from './format';
import { KeyPage } from './key-page';
import { EMPTY_DRAFT, KeysPage, type MintDraft } from './keys-page';
import { pageHeaders, SCRIPT_PATH } from './layout';
import { ProfilePage } from './profile-page';
import { emailOf, ownerContext, SIGN_IN_PATH, signInUrl, type WebDeps } from './routes';
import { RulesPage } from './rules-page';
import { SCRIPT } from './script';
import { SearchPage } from './search-page';
import { foreignOrigin, localPath, type OwnerSession, ownerSession, setSessionCookie, SIGN_IN_COOKIE, signInSubject } from './session';
import { SetupPage } from './setup-page';

export const HOME_PATH = '/containers';
const FLASH_COOKIE = 'engram_flash';
/** Setup attempts a minute from one address, as for sign-in. */
const SETUP_PER_MIN = 10;
/** How many of a container's facts its page shows, most recently changed first. */
const FACTS_SHOWN = 200;
/** How much of a document's text its row on a container page shows when it has no title. */
const OPENING_CHARS = 120;
/** The tick boxes of a delete's confirmation page: reviewed facts, kept unless ticked. */
const FORGET_TOO = 'forget_fact';

type Form = Record<string, string | File | (string | File)[]>;

interface Owner {
  session: OwnerSession;
  ctx: OpContext;
  csrf: string;
  email: string;
}

/** A one-time message for the next page (after a redirect): `notice` or `error`. */
interface Flash {
  notice: string | null;
  error: string | null;
}

const str = (form: Form, name: string): string => {
  const v = form[name];
  const one = Array.isArray(v) ? v[0] : v;
  return typeof one === 'string' ? one : '';
};
const list = (form: Form, name: string): string[] => {
  const v = form[name];
  return (Array.isArray(v) ? v : v == null ? [] : [v]).filter((x): x is string => typeof x === 'string');
};

/** The `:id` of the route (typed loosely by handlers shared across paths). */
const idParam = (c: Context<AppEnv>): string => c.req.param('id') ?? '';

/** Refusals the owner can act on (a bad name, a clash, a key that changed meanwhile, a busy account) become a message; the rest are errors. */
const fixable = (err: unknown): err is ServiceError =>
  err instanceof ServiceError && ['validation', 'conflict', 'not_found', 'unauthorized', 'rate_limited', 'capability_unavailable'].includes(err.code);

export function ownerRoutes({ services, site, forms }: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const setupLimiter = new RateLimiter(services.clock, SETUP_PER_MIN);
  const secure = site.baseUrl.startsWith('https://');

  const html = (c: Context<AppEnv>, page: HtmlEscapedString | Promise<HtmlEscapedString>, status: 200 | 400 | 403 | 429 = 200) => {
    pageHeaders(c);
    return c.html(page, status);
  };

  const ownerOf = (c: Context<AppEnv>, session: OwnerSession): Owner => ({
    session,
    ctx: ownerContext(c, services, session),
    csrf: forms.tokenFor('session', session.sessionId),
    email: emailOf(services, session.accountId),
  });

  const flash = (c: Context<AppEnv>, kind: 'notice' | 'error', message: string) =>
    setCookie(c, FLASH_COOKIE, `${kind === 'notice' ? 'n' : 'e'}:${message.slice(0, 500)}`, {
      path: '/', httpOnly: true, sameSite: 'Lax', secure, maxAge: 60,
    });

  const takeFlash = (c: Context<AppEnv>): Flash => {
    const value = getCookie(c, FLASH_COOKIE);
    if (!value) return { notice: null, error: null };
    deleteCookie(c, FLASH_COOKIE, { path: '/', httpOnly: true, sameSite: 'Lax', secure });
    return { notice: value.startsWith('n:') ? value.slice(2) : null, error: value.startsWith('e:') ? value.slice(2) : null };
  };

  /** A page for the signed-in owner; anyone else is sent to sign in and brought back. */
  const page = (render: (c: Context<AppEnv>, o: Owner, f: Flash) => Promise<Response> | Response) => async (c: Context<AppEnv>) => {
    const session = ownerSession(c, services);
    if (!session) return c.redirect(signInUrl(c.req.path + (new URL(c.req.url).search || '')), 303);
    return render(c, ownerOf(c, session), takeFlash(c));
  };

  /**
   * A form post of the signed-in owner: refused unless it comes from this site with the session's
   * CSRF token. `act` returns where to go next (and a notice); a refusal the owner can fix is shown
   * on `back` instead.
   */
  const post = (back: (c: Context<AppEnv>) => string, act: (c: Context<AppEnv>, o: Owner, form: Form) => Promise<Response | { to: string; notice?: string }>) =>
    async (c: Context<AppEnv>) => {
      const session = ownerSession(c, services);
      if (!session) return c.redirect(signInUrl(back(c)), 303);
      const form = (await c.req.parseBody({ all: true })) as Form;
      if (foreignOrigin(c, site) || !forms.check('session', session.sessionId, str(form, 'csrf'))) {
        flash(c, 'error', 'The form expired or came from another site. Nothing was changed; please try again.');
        return c.redirect(back(c), 303);
      }
      try {
        const done = await act(c, ownerOf(c, session), form);
        if (done instanceof Response) return done;
        if (done.notice) flash(c, 'notice', done.notice);
        return c.redirect(done.to, 303);
      } catch (err) {
        if (!fixable(err)) throw err;
        flash(c, 'error', err.message);
        return c.redirect(back(c), 303);
      }
    };

  app.get(SCRIPT_PATH, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });

  app.get('/', (c) => {
    if (services.store.countAccounts() === 0) return c.redirect('/setup', 303);
    return c.redirect(ownerSession(c, services) ? HOME_PATH : signInUrl(HOME_PATH), 303);
  });

  // First run: the owner's account, made only while there is none.

  app.get('/setup', (c) => {
    if (services.store.countAccounts() > 0) return c.redirect(SIGN_IN_PATH, 303);
    return html(c, <SetupPage csrf={forms.tokenFor('sign_in', signInSubject(c, site))} />);
  });

  app.post('/setup', async (c) => {
    if (services.store.countAccounts() > 0) return c.redirect(SIGN_IN_PATH, 303);
    const form = (await c.req.parseBody()) as Form;
    const email = str(form, 'email');
    const again = (status: 400 | 403 | 429, error: string) =>
      html(c, <SetupPage csrf={forms.tokenFor('sign_in', signInSubject(c, site))} email={email} error={error} />, status);
    const origin = foreignOrigin(c, site);
    if (origin) return again(403, `A setup from ${origin} is not accepted here.`);
    if (!forms.check('sign_in', signInSubject(c, site), form.csrf)) return again(403, 'The setup form expired. Please try again.');
    try {
      setupLimiter.take(`setup:${clientAddress(c, site)}`);
    } catch {
      return again(429, 'Too many attempts. Wait a minute and try again.');
    }
    const password = str(form, 'password');
    if (password !== str(form, 'password_again')) return again(400, 'The two passwords differ.');
    try {
      const account = await createAccount(services.store, services.clock, email, password, { firstOnly: true });
      const session = startSession(services.store, services.clock, account.id);
      setSessionCookie(c, site, session.token, session.expiresAt, services.clock.now());
      deleteCookie(c, SIGN_IN_COOKIE, { path: '/' });
      flash(c, 'notice', 'Your account is ready. Make a container to start your memory.');
      return c.redirect(HOME_PATH, 303);
    } catch (err) {
      if (err instanceof ServiceError && (err.code === 'validation' || err.code === 'conflict')) return again(400, err.message);
      throw err;
    }
  });

  // The key screen.

  const keysPage = async (c: Context<AppEnv>, o: Owner, f: Flash, draft: MintDraft, minted: Parameters<typeof KeysPage>[0]['minted'] = null) => {
    const keys = await invoke(listKeys, o.ctx, {});
    const { containers } = await invoke(listContainers, o.ctx, {});
    return html(c, <KeysPage keys={keys} containers={containers} draft={draft} minted={minted} csrf={o.csrf} email={o.email} notice={f.notice} error={f.error} />);
  };

  const findKeyView = async (o: Owner, id: string): Promise<{ key: KeyView | null; all: KeyView[] }> => {
    const keys = await invoke(listKeys, o.ctx, {});
    const all = [...keys.active, ...keys.expired, ...keys.revoked];
    return { key: all.find((k) => k.id === id) ?? null, all };
  };

  app.get('/keys', page(async (c, o, f) => {
    const from = c.req.query('from');
    if (!from) return keysPage(c, o, f, EMPTY_DRAFT);
    const { key } = await findKeyView(o, from);
    if (!key) return keysPage(c, o, { notice: null, error: `No key ${from} to rotate.` }, EMPTY_DRAFT);
    // Rotation: the old key's grant and expiry duration, counted from now when the new key is made.
    return keysPage(c, o, f, {
      name: key.name, level: key.level, allViews: key.all_views, containers: key.containers, profile: key.profile,
      expiresInDays: key.expires_in_days, replaces: key,
    });
  }));

  app.post('/keys', post(() => '/keys', async (c, o, form) => {
    const expiry = str(form, 'expires_in_days');
    const all = str(form, 'reach') === 'all';
    const replaces = str(form, 'replaces');
    const minted = await invoke(createKey, o.ctx, {
      name: str(form, 'name'),
      level: str(form, 'level'),
      all_views: all,
      containers: all ? [] : list(form, 'containers'),
      profile: str(form, 'profile') === 'on',
      expires_in_days: expiry && expiry !== 'never' ? Number(expiry) : null,
      replaces: replaces || null,
    });
    // Shown in the answer to this post and never again: no redirect, and the page is not cached.
    const notice = replaces ? 'The new key is made. The old key keeps working until you revoke it.' : null;
    return keysPage(c, o, { notice, error: null }, EMPTY_DRAFT, minted);
  }));

  app.get('/keys/:id', page(async (c, o, f) => {
    let usage;
    try {
      // First: reading usage writes the pending records, so "last used" below is current.
      usage = await invoke(keyUsage, o.ctx, { key_id: idParam(c) });
    } catch (err) {
      if (!fixable(err)) throw err;
      flash(c, 'error', 'No such key.');
      return c.redirect('/keys', 303);
    }
    const { key, all } = await findKeyView(o, idParam(c));
    if (!key) {
      flash(c, 'error', 'No such key.');
      return c.redirect('/keys', 303);
    }
    const { containers } = await invoke(listContainers, o.ctx, {});
    const today = new Date(services.clock.now()).toISOString().slice(0, 10);
    return html(c, (
      <KeyPage
        keyView={key} replaces={all.find((k) => k.id === key.replaces) ?? null} replacedBy={all.filter((k) => k.replaces === key.id)}
        containers={containers} usage={usage} today={today} csrf={o.csrf} email={o.email} notice={f.notice} error={f.error}
      />
    ));
  }));

  app.post('/keys/:id', post((c) => `/keys/${idParam(c)}`, async (c, o, form) => {
    const id = idParam(c);
    const all = str(form, 'reach') === 'all';
    const level = str(form, 'level');
    const profile = str(form, 'profile') === 'on';
    if (all) {
      await invoke(updateKey, o.ctx, { key_id: id, level, profile, all_views: true });
    } else {
      await invoke(updateKey, o.ctx, { key_id: id, level, profile });
      await invoke(setKeyContainers, o.ctx, { key_id: id, containers: list(form, 'containers') });
    }
    return { to: `/keys/${id}`, notice: 'Saved. The next call with this key reads the new grant.' };
  }));

  app.get('/keys/:id/revoke', page(async (c, o) => {
    const { key } = await findKeyView(o, idParam(c));
    if (!key) return c.redirect('/keys', 303);
    return html(c, (
      <ConfirmPage
        title={`Revoke “${key.name}”?`} current="/keys" csrf={o.csrf} email={o.email} action={`/keys/${key.id}/revoke`} button="Revoke key"
        cancel={`/keys/${key.id}`}
        message={`The key ${key.hint} stops working at once, for every program that holds it. This cannot be undone.`}
      />
    ));
  }));

  app.post('/keys/:id/revoke', post((c) => `/keys/${idParam(c)}`, async (c, o) => {
    const key = await invoke(revokeKey, o.ctx, { key_id: idParam(c) });
    return { to: `/keys/${key.id}`, notice: 'Revoked: the key no longer works.' };
  }));

  // Memory: containers, documents, passages, facts.

  app.get('/containers', page(async (c, o, f) => {
    const { containers } = await invoke(listContainers, o.ctx, {});
    const refined = refinedPercent(learningProgress(o.ctx));
    return html(c, <ContainersPage containers={containers} csrf={o.csrf} email={o.email} notice={f.notice} error={f.error} refined={refined} />);
  }));

  app.post('/containers', post(() => '/containers', async (_c, o, form) => {
    const made = await invoke(createContainer, o.ctx, { name: str(form, 'name'), description: str(form, 'description') });
    return { to: `/containers/${made.id}`, notice: `Made “${made.name}”.` };
  }));

  const ownContainer = async (o: Owner, id: string) => (await invoke(listContainers, o.ctx, {})).containers.find((x) => x.id === id) ?? null;

  app.get('/containers/:id', page(async (c, o, f) => {
    const container = await ownContainer(o, idParam(c));
    if (!container) {
      flash(c, 'error', 'No such container.');
      return c.redirect('/containers', 303);
    }
    const cursor = c.req.query('cursor') || null;
    const docs = await invoke(listDocuments, o.ctx, { container: container.id, cursor });
    const facts = services.store.listRecentFacts(o.session.accountId, [container.id], FACTS_SHOWN).map(toFact);
    const described = services.store.describeDocuments(o.session.accountId, docs.documents.map((d) => d.id), OPENING_CHARS);
    return html(c, (
      <ContainerPage
        container={container} documents={docs.documents} described={described} nextCursor={docs.next_cursor} facts={facts} csrf={o.csrf}
        email={o.email} notice={f.notice} error={f.error}
      />
    ));
  }));

  app.post('/containers/:id', post((c) => `/containers/${idParam(c)}`, async (c, o, form) => {
    const id = idParam(c);
    await invoke(updateContainer, o.ctx, { container_id: id, name: str(form, 'name'), description: str(form, 'description') });
    return { to: `/containers/${id}`, notice: 'Saved.' };
  }));

  app.post('/containers/:id/documents', post((c) => `/containers/${idParam(c)}`, async (c, o, form) => {
    const id = idParam(c);
    const url = str(form, 'url').trim();
    const content = str(form, 'content');
    const title = str(form, 'title').trim();
    // Both boxes filled is the owner's mistake to fix, as for an app: add_document refuses it.
    await invoke(addDocument, o.ctx, {
      container: id, ...(url ? { url } : {}), ...(content.trim() || !url ? { content } : {}), ...(title ? { title } : {}),
    });
    return { to: `/containers/${id}`, notice: 'Added. It will be searchable once learned.' };
  }));

  app.get('/containers/:id/delete', page(async (c, o) => {
    const container = await ownContainer(o, idParam(c));
    const plan = container && services.store.planForgetting(o.session.accountId, { containerId: container.id });
    if (!container || !plan) return c.redirect('/containers', 303);
    return html(c, (
      <ConfirmPage
        title={`Delete “${container.name}”?`} current="/containers" csrf={o.csrf} email={o.email} action={`/containers/${container.id}/delete`}
        button="Delete container" cancel={`/containers/${container.id}`} choices={keptChoices(plan.kept)}
        message={`This deletes ${containerLoss(`“${container.name}”`, plan)}, and keys lose their reach to it. This cannot be undone.`}
      />
    ));
  }));

  app.post('/containers/:id/delete', post((c) => `/containers/${idParam(c)}`, async (c, o, form) => {
    const id = idParam(c);
    const ticked = await forgetTicked(o, form, { containerId: id });
    const done = await invoke(deleteContainer, o.ctx, { container_id: id, confirm: true });
    return { to: '/containers', notice: 'status' in done && done.status === 'deleted' ? forgottenSummary(done, ticked) : 'Deleted.' };
  }));

  app.get('/documents/:id', page(async (c, o) => {
    let document;
    try {
      document = await invoke(getDocument, o.ctx, { document_id: idParam(c) });
    } catch (err) {
      if (!fixable(err)) throw err;
      flash(c, 'error', err.message);
      return c.redirect('/containers', 303);
    }
    const container = await ownContainer(o, document.container);
    const passages = services.store.listPassages(o.session.accountId, document.id);
    return html(c, <DocumentPage document={document} container={container} passages={passages} csrf={o.csrf} email={o.email} />);
  }));

  app.get('/documents/:id/delete', page(async (c, o) => {
    let document;
    try {
      document = await invoke(getDocument, o.ctx, { document_id: idParam(c) });
    } catch (err) {
      if (!fixable(err)) throw err;
      return c.redirect('/containers', 303);
    }
    const plan = services.store.planForgetting(o.session.accountId, { documentId: document.id });
    if (!plan) return c.redirect('/containers', 303);
    const what = document.title ? `“${document.title}”` : document.url ?? document.id;
    return html(c, (
      <ConfirmPage
        title={`Delete ${what}?`} current="/containers" csrf={o.csrf} email={o.email} action={`/documents/${document.id}/delete`}
        button="Delete document" cancel={`/documents/${document.id}`} choices={keptChoices(plan.kept)}
        message={`This deletes ${documentLoss(what, plan)}. This cannot be undone.`}
      />
    ));
  }));

  app.post('/documents/:id/delete', post((c) => `/documents/${idParam(c)}`, async (c, o, form) => {
    const document = await invoke(getDocument, o.ctx, { document_id: idParam(c) });
    const ticked = await forgetTicked(o, form, { documentId: document.id });
    const done = await invoke(deleteDocument, o.ctx, { document_id: document.id, confirm: true });
    return { to: `/containers/${document.container}`, notice: 'status' in done && done.status === 'deleted' ? forgottenSummary(done, ticked) : 'Deleted.' };
  }));

  app.post('/facts/:id/confirm', post((c) => '/profile', async (c, o, form) => {
    await invoke(confirmFact, o.ctx, { memory_id: idParam(c) });
    return { to: localPath(str(form, 'back'), '/profile'), notice: 'Confirmed: this fact is kept if the document it was learned from is deleted.' };
  }));

  app.get('/facts/:id/forget', page(async (c, o) => {
    const back = localPath(c.req.query('back'), '/profile');
    const fact = services.store.getMemory(o.session.accountId, idParam(c));
    if (!fact) return c.redirect(back, 303);
    return html(c, (
      <ConfirmPage
        title={fact.static ? 'Remove this standing fact?' : 'Forget this fact?'} csrf={o.csrf} email={o.email}
        action={`/facts/${fact.id}/forget`} button={fact.static ? 'Remove fact' : 'Forget fact'} cancel={back} hidden={{ back }}
        message={`“${fact.content}” will no longer be found by search or read from your profile.`}
      />
    ));
  }));

  app.post('/facts/:id/forget', post((c) => '/profile', async (c, o, form) => {
    await invoke(forgetMemory, o.ctx, { memory_id: idParam(c), confirm: true });
    return { to: localPath(str(form, 'back'), '/profile'), notice: 'Forgotten.' };
  }));

  app.get('/profile', page(async (c, o, f) => {
    const profile = await invoke(getProfile, o.ctx, {});
    const { containers } = await invoke(listContainers, o.ctx, {});
    const names = Object.fromEntries(containers.map((x) => [x.id, x.name]));
    return html(c, (
      <ProfilePage
        staticFacts={profile.static} dynamicFacts={profile.dynamic} containerNames={names} csrf={o.csrf} email={o.email} notice={f.notice}
        error={f.error}
      />
    ));
  }));

  app.post('/profile/facts', post(() => '/profile', async (_c, o, form) => {
    await invoke(addMemory, o.ctx, { content: str(form, 'content'), static: true });
    return { to: '/profile', notice: 'Added to your standing facts.' };
  }));

  app.get('/rules', page(async (c, o, f) => {
    const { rules } = await invoke(memoryRules, o.ctx, {});
    const keys = await invoke(listKeys, o.ctx, {});
    return html(c, <RulesPage rules={rules} keys={keys.active} csrf={o.csrf} email={o.email} notice={f.notice} error={f.error} />);
  }));

  app.post('/rules', post(() => '/rules', async (_c, o, form) => {
    await invoke(addRule, o.ctx, { text: str(form, 'text'), credential_id: str(form, 'credential_id') || null });
    return { to: '/rules', notice: 'Rule added.' };
  }));

  app.post('/rules/:id/delete', post(() => '/rules', async (c, o) => {
    await invoke(deleteRule, o.ctx, { rule_id: idParam(c) });
    return { to: '/rules', notice: 'Rule removed.' };
  }));

  app.get('/search', page(async (c, o) => {
    const q = c.req.query('q') ?? '';
    const container = c.req.query('container') || '*';
    const { containers } = await invoke(listContainers, o.ctx, {});
    let answer = null;
    let error: string | null = null;
    if (q.trim()) {
      try {
        answer = await invoke(searchMemories, o.ctx, { q, container });
      } catch (err) {
        if (!fixable(err)) throw err;
        error = err.message;
      }
    }
    const refined = refinedPercent(learningProgress(o.ctx));
    return html(c, <SearchPage q={q} container={container} containers={containers} answer={answer} csrf={o.csrf} email={o.email} error={error} refined={refined} />);
  }));

  /**
   * Forgets the reviewed facts the owner ticked on a delete's confirmation page (only those the
   * delete would keep), each with forget_memory; returns how many.
   */
  const forgetTicked = async (o: Owner, form: Form, target: ForgetTarget): Promise<number> => {
    const ticked = new Set(list(form, FORGET_TOO));
    const kept = services.store.planForgetting(o.session.accountId, target)?.kept ?? [];
    const chosen = kept.filter((m) => ticked.has(m.id));
    for (const m of chosen) await invoke(forgetMemory, o.ctx, { memory_id: m.id, confirm: true });
    return chosen.length;
  };

  return app;
}

/** The facts a delete keeps (the owner confirmed or edited them), each with a tick box to forget it too. */
function keptChoices(kept: Memory[]): ConfirmChoices | null {
  if (kept.length === 0) return null;
  return {
    legend: `Kept: ${kept.length === 1 ? 'a fact' : 'facts'} you confirmed or edited since ${kept.length === 1 ? 'it was' : 'they were'} learned. Tick to forget too.`,
    name: FORGET_TOO,
    items: kept.map((m) => ({ value: m.id, label: m.content, note: m.static ? 'In your profile.' : undefined })),
  };
}
