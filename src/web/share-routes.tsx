/** @jsxImportSource hono/jsx */
/** The shares screen: make an agent share or a workflow (its token shown once), one share's page, revocation. */
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { createShare, listContainers, listShares, revokeShare } from '../operations';
import { invoke } from '../operations/operation';
import { ConfirmPage } from './confirm-page';
import { type Flash, idParam, list, type Owner, type OwnerKit, pageFrame, str } from './owner-kit';
import { SharePage } from './share-page';
import { SharesPage, type SharesPageProps, type ShareView } from './shares-page';

export function shareRoutes({ html, flash, page, post }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  const sharesPage = async (c: Context<AppEnv>, o: Owner, f: Flash, minted: SharesPageProps['minted'] = null) => {
    const shares = await invoke(listShares, o.ctx, {});
    const { containers } = await invoke(listContainers, o.ctx, {});
    return html(c, <SharesPage shares={shares} containers={containers} minted={minted} {...pageFrame(o, f)} />);
  };

  const findShare = async (o: Owner, id: string): Promise<ShareView | null> => {
    const shares = await invoke(listShares, o.ctx, {});
    return [...shares.active, ...shares.expired, ...shares.revoked].find((s) => s.id === id) ?? null;
  };

  app.get(
    '/shares',
    page((c, o, f) => sharesPage(c, o, f)),
  );

  app.post(
    '/shares',
    post(
      () => '/shares',
      async (c, o, form) => {
        const kind = str(form, 'kind');
        const expiry = str(form, 'expires_in_days');
        const minted = await invoke(createShare, o.ctx, {
          kind,
          name: str(form, 'name'),
          containers: list(form, 'containers'),
          // One form for both kinds: the instruction box is read for workflows only.
          instruction: kind === 'workflow' ? str(form, 'instruction') : null,
          expires_in_days: expiry && expiry !== 'never' ? Number(expiry) : null,
        });
        // Shown in the answer to this post and never again: no redirect, and the page is not cached.
        return sharesPage(c, o, { notice: null, error: null }, minted);
      },
    ),
  );

  app.get(
    '/shares/:id',
    page(async (c, o, f) => {
      const share = await findShare(o, idParam(c));
      if (!share) {
        flash(c, 'error', 'No such share.');
        return c.redirect('/shares', 303);
      }
      const { containers } = await invoke(listContainers, o.ctx, {});
      return html(c, <SharePage share={share} containers={containers} {...pageFrame(o, f)} />);
    }),
  );

  app.get(
    '/shares/:id/revoke',
    page(async (c, o) => {
      const share = await findShare(o, idParam(c));
      if (!share) return c.redirect('/shares', 303);
      return html(
        c,
        <ConfirmPage
          title={`Revoke “${share.name}”?`}
          current="/shares"
          csrf={o.csrf}
          email={o.email}
          action={`/shares/${share.id}/revoke`}
          button="Revoke share"
          cancel={`/shares/${share.id}`}
          message={`The token ${share.hint} stops working at once, for everyone who holds it: their next call is refused. This cannot be undone.`}
        />,
      );
    }),
  );

  app.post(
    '/shares/:id/revoke',
    post(
      (c) => `/shares/${idParam(c)}`,
      async (c, o) => {
        const share = await invoke(revokeShare, o.ctx, { key_id: idParam(c) });
        return { to: `/shares/${share.id}`, notice: 'Revoked: the token no longer works.' };
      },
    ),
  );

  return app;
}
