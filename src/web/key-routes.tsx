/** @jsxImportSource hono/jsx */
/** The key screen: mint (and rotate), a key's grant and usage, revocation. */
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { createKey, keyUsage, listContainers, listKeys, revokeKey, setKeyContainers, updateKey } from '../operations';
import { invoke } from '../operations/operation';
import { ConfirmPage } from './confirm-page';
import type { KeyView } from './format';
import { KeyPage } from './key-page';
import { EMPTY_DRAFT, KeysPage, type MintDraft } from './keys-page';
import { fixable, type Flash, idParam, list, type Owner, type OwnerKit, pageFrame, str } from './owner-kit';

export function keyRoutes({ services, html, flash, page, post }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  const keysPage = async (
    c: Context<AppEnv>,
    o: Owner,
    f: Flash,
    draft: MintDraft,
    minted: Parameters<typeof KeysPage>[0]['minted'] = null,
  ) => {
    const keys = await invoke(listKeys, o.ctx, {});
    const { containers } = await invoke(listContainers, o.ctx, {});
    return html(c, <KeysPage keys={keys} containers={containers} draft={draft} minted={minted} {...pageFrame(o, f)} />);
  };

  const findKeyView = async (o: Owner, id: string): Promise<{ key: KeyView | null; all: KeyView[] }> => {
    const keys = await invoke(listKeys, o.ctx, {});
    const all = [...keys.active, ...keys.expired, ...keys.revoked];
    return { key: all.find((k) => k.id === id) ?? null, all };
  };

  app.get(
    '/keys',
    page(async (c, o, f) => {
      const from = c.req.query('from');
      if (!from) return keysPage(c, o, f, EMPTY_DRAFT);
      const { key } = await findKeyView(o, from);
      if (!key) return keysPage(c, o, { notice: null, error: `No key ${from} to rotate.` }, EMPTY_DRAFT);
      // Rotation: the old key's grant and expiry duration, counted from now when the new key is made.
      return keysPage(c, o, f, {
        name: key.name,
        level: key.level,
        allViews: key.all_views,
        containers: key.containers,
        profile: key.profile,
        expiresInDays: key.expires_in_days,
        replaces: key,
      });
    }),
  );

  app.post(
    '/keys',
    post(
      () => '/keys',
      async (c, o, form) => {
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
      },
    ),
  );

  app.get(
    '/keys/:id',
    page(async (c, o, f) => {
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
      return html(
        c,
        <KeyPage
          keyView={key}
          replaces={all.find((k) => k.id === key.replaces) ?? null}
          replacedBy={all.filter((k) => k.replaces === key.id)}
          containers={containers}
          usage={usage}
          today={today}
          {...pageFrame(o, f)}
        />,
      );
    }),
  );

  app.post(
    '/keys/:id',
    post(
      (c) => `/keys/${idParam(c)}`,
      async (c, o, form) => {
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
      },
    ),
  );

  app.get(
    '/keys/:id/revoke',
    page(async (c, o) => {
      const { key } = await findKeyView(o, idParam(c));
      if (!key) return c.redirect('/keys', 303);
      return html(
        c,
        <ConfirmPage
          title={`Revoke “${key.name}”?`}
          current="/keys"
          csrf={o.csrf}
          email={o.email}
          action={`/keys/${key.id}/revoke`}
          button="Revoke key"
          cancel={`/keys/${key.id}`}
          message={`The key ${key.hint} stops working at once, for every program that holds it. This cannot be undone.`}
        />,
      );
    }),
  );

  app.post(
    '/keys/:id/revoke',
    post(
      (c) => `/keys/${idParam(c)}`,
      async (c, o) => {
        const key = await invoke(revokeKey, o.ctx, { key_id: idParam(c) });
        return { to: `/keys/${key.id}`, notice: 'Revoked: the key no longer works.' };
      },
    ),
  );

  return app;
}
