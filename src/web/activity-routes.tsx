/** @jsxImportSource hono/jsx */
/**
 * Activity: what a key, share or connected app read and wrote (the access log), a page at a time,
 * and its export as JSON. Undo of a saved fact is the facts area's forget post, which comes back here.
 */
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { appAccessLog, keyAccessLog, listConnectedApps, listConsentTokens, listKeys, listShares } from '../operations';
import { invoke } from '../operations/operation';
import { type AccessLogView, ActivityPage } from './activity-page';
import { fixable, idParam, type Owner, type OwnerKit, pageFrame } from './owner-kit';

/** Entries a page; the export reads the largest pages the operation gives. */
const PAGE = 20;
const EXPORT_PAGE = 200;

type Subject = { key_id: string } | { client_id: string };

export function activityRoutes({ services, html, flash, page }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  const read = (o: Owner, subject: Subject, cursor: string | null, limit: number): Promise<AccessLogView> =>
    'key_id' in subject
      ? invoke(keyAccessLog, o.ctx, { ...subject, cursor, limit })
      : invoke(appAccessLog, o.ctx, { ...subject, cursor, limit });

  const timeline = (
    subject: Subject,
    describe: (
      o: Owner,
      c: Context<AppEnv>,
    ) => Promise<{ name: string; back: { href: string; label: string }; current: string }>,
  ) =>
    page(async (c, o, f) => {
      const { name, back, current } = await describe(o, c);
      let log: AccessLogView;
      try {
        log = await read(o, subject, c.req.query('cursor') || null, PAGE);
      } catch (err) {
        if (!fixable(err)) throw err;
        flash(c, 'error', err.message);
        return c.redirect(back.href, 303);
      }
      return html(
        c,
        <ActivityPage
          subject={name}
          path={c.req.path}
          back={back}
          log={log}
          retentionDays={services.accessLog.retentionDays}
          current={current}
          {...pageFrame(o, f)}
        />,
      );
    });

  /** Every entry of the subject, newest first, as one JSON download. */
  const exported = (subject: Subject, file: string) =>
    page(async (c, o) => {
      const entries: AccessLogView['entries'] = [];
      let cursor: string | null = null;
      do {
        const log: AccessLogView = await read(o, subject, cursor, EXPORT_PAGE);
        entries.push(...log.entries);
        cursor = log.next_cursor;
      } while (cursor);
      c.header('Content-Disposition', `attachment; filename="${file}"`);
      return c.json({ ...subject, exported_at: new Date(services.clock.now()).toISOString(), entries });
    });

  /** A key's or a share's name and page (both are read by key_access_log). */
  const keyOrShare = async (o: Owner, id: string) => {
    const keys = await invoke(listKeys, o.ctx, {});
    const key = [...keys.active, ...keys.expired, ...keys.revoked].find((k) => k.id === id);
    if (key)
      return { name: `key “${key.name}”`, back: { href: `/keys/${id}`, label: 'Back to the key' }, current: '/keys' };
    const shares = await invoke(listShares, o.ctx, {});
    const share = [...shares.active, ...shares.expired, ...shares.revoked].find((e) => e.id === id);
    return {
      name: share ? `share “${share.name}”` : id,
      back: { href: share ? `/shares/${id}` : '/shares', label: 'Back to the share' },
      current: '/shares',
    };
  };

  /** A connected app's name; a disconnected one's as its tokens were issued. */
  const appName = async (o: Owner, clientId: string): Promise<string> => {
    const live = (await invoke(listConnectedApps, o.ctx, {})).apps.find((a) => a.client_id === clientId);
    const issued = live
      ? null
      : (await invoke(listConsentTokens, o.ctx, {})).tokens.find((t) => t.client_id === clientId);
    return `app “${live?.name ?? issued?.app ?? clientId}”`;
  };

  app.get('/keys/:id/activity', (c) => timeline({ key_id: idParam(c) }, (o) => keyOrShare(o, idParam(c)))(c));
  app.get('/keys/:id/activity/export', (c) => exported({ key_id: idParam(c) }, `activity-${idParam(c)}.json`)(c));

  const clientId = (c: Context<AppEnv>) => c.req.param('client_id') ?? '';
  app.get('/connected-apps/:client_id/activity', (c) =>
    timeline({ client_id: clientId(c) }, async (o) => ({
      name: await appName(o, clientId(c)),
      back: { href: '/connected-apps', label: 'Back to connected apps' },
      current: '/connected-apps',
    }))(c),
  );
  app.get('/connected-apps/:client_id/activity/export', (c) =>
    exported({ client_id: clientId(c) }, 'activity-app.json')(c),
  );

  return app;
}
