/** @jsxImportSource hono/jsx */
/** Memory rules: what apps may remember, for every app or one key. */
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { addRule, deleteRule, listKeys, memoryRules } from '../operations';
import { invoke } from '../operations/operation';
import { idParam, type OwnerKit, pageFrame, str } from './owner-kit';
import { RulesPage } from './rules-page';

export function rulesRoutes({ html, page, post }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(
    '/rules',
    page(async (c, o, f) => {
      const { rules } = await invoke(memoryRules, o.ctx, {});
      const keys = await invoke(listKeys, o.ctx, {});
      return html(c, <RulesPage rules={rules} keys={keys.active} {...pageFrame(o, f)} />);
    }),
  );

  app.post(
    '/rules',
    post(
      () => '/rules',
      async (_c, o, form) => {
        await invoke(addRule, o.ctx, { text: str(form, 'text'), credential_id: str(form, 'credential_id') || null });
        return { to: '/rules', notice: 'Rule added.' };
      },
    ),
  );

  app.post(
    '/rules/:id/delete',
    post(
      () => '/rules',
      async (c, o) => {
        await invoke(deleteRule, o.ctx, { rule_id: idParam(c) });
        return { to: '/rules', notice: 'Rule removed.' };
      },
    ),
  );

  return app;
}
