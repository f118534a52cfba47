/** @jsxImportSource hono/jsx */
/**
 * Facts and the profile: a fact's page (provenance, history, edit), confirm, forget, and the
 * owner's own standing facts.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { addMemory, confirmFact, forgetMemory, getFact, getProfile, listContainers, updateMemory } from '../operations';
import { invoke } from '../operations/operation';
import { ConfirmPage } from './confirm-page';
import { FactPage } from './fact-page';
import { fixable, idParam, type OwnerKit, pageFrame, str } from './owner-kit';
import { ProfilePage } from './profile-page';
import { localPath } from './forms';

export function factRoutes({ html, flash, page, post }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(
    '/facts/:id',
    page(async (c, o, f) => {
      const detail = await invoke(getFact, o.ctx, { memory_id: idParam(c) }).catch((err: unknown) => {
        if (!fixable(err)) throw err;
        flash(c, 'error', err.message);
        return null;
      });
      if (!detail) return c.redirect('/profile', 303);
      return html(c, <FactPage detail={detail} {...pageFrame(o, f)} />);
    }),
  );

  app.post(
    '/facts/:id/edit',
    post(
      (c) => `/facts/${idParam(c)}`,
      async (c, o, form) => {
        const fact = await invoke(updateMemory, o.ctx, { memory_id: idParam(c), content: str(form, 'content') });
        return {
          to: `/facts/${fact.id}`,
          notice: 'Saved. The fact is yours now: it stays if the document it was learned from is deleted.',
        };
      },
    ),
  );

  app.post(
    '/facts/:id/confirm',
    post(
      () => '/profile',
      async (c, o, form) => {
        await invoke(confirmFact, o.ctx, { memory_id: idParam(c) });
        return {
          to: localPath(str(form, 'back'), '/profile'),
          notice: 'Confirmed: this fact is kept if the document it was learned from is deleted.',
        };
      },
    ),
  );

  app.get(
    '/facts/:id/forget',
    page(async (c, o) => {
      const back = localPath(c.req.query('back'), '/profile');
      const detail = await invoke(getFact, o.ctx, { memory_id: idParam(c) }).catch((err: unknown) => {
        if (!fixable(err)) throw err;
        return null;
      });
      if (!detail) return c.redirect(back, 303);
      const { fact } = detail;
      return html(
        c,
        <ConfirmPage
          title={fact.static ? 'Remove this standing fact?' : 'Forget this fact?'}
          csrf={o.csrf}
          email={o.email}
          action={`/facts/${fact.id}/forget`}
          button={fact.static ? 'Remove fact' : 'Forget fact'}
          cancel={back}
          hidden={{ back }}
          message={`“${fact.content}” will no longer be found by search or read from your profile.`}
        />,
      );
    }),
  );

  app.post(
    '/facts/:id/forget',
    post(
      () => '/profile',
      async (c, o, form) => {
        await invoke(forgetMemory, o.ctx, { memory_id: idParam(c), confirm: true });
        return { to: localPath(str(form, 'back'), '/profile'), notice: 'Forgotten.' };
      },
    ),
  );

  app.get(
    '/profile',
    page(async (c, o, f) => {
      const profile = await invoke(getProfile, o.ctx, {});
      const { containers } = await invoke(listContainers, o.ctx, {});
      const names = Object.fromEntries(containers.map((x) => [x.id, x.name]));
      return html(
        c,
        <ProfilePage
          staticFacts={profile.static}
          dynamicFacts={profile.dynamic}
          containerNames={names}
          {...pageFrame(o, f)}
        />,
      );
    }),
  );

  app.post(
    '/profile/facts',
    post(
      () => '/profile',
      async (_c, o, form) => {
        await invoke(addMemory, o.ctx, { content: str(form, 'content'), static: true });
        return { to: '/profile', notice: 'Added to your standing facts.' };
      },
    ),
  );

  return app;
}
