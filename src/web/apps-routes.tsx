/** @jsxImportSource hono/jsx */
/** Connected apps: the AI apps the owner let in with OAuth, and Disconnect, which ends every token of one at once. */
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { disconnectApp, listConnectedApps } from '../operations';
import { invoke } from '../operations/operation';
import { ConnectedAppsPage } from './connected-apps-page';
import { type OwnerKit, pageFrame, str } from './owner-kit';
import { CONNECTED_APPS_PATH } from './paths';

export function appsRoutes({ html, page, post }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(
    CONNECTED_APPS_PATH,
    page(async (c, o, f) => {
      const { apps } = await invoke(listConnectedApps, o.ctx, {});
      return html(c, <ConnectedAppsPage apps={apps} {...pageFrame(o, f)} />);
    }),
  );

  app.post(
    `${CONNECTED_APPS_PATH}/disconnect`,
    post(
      () => CONNECTED_APPS_PATH,
      async (_c, o, form) => {
        const { revoked } = await invoke(disconnectApp, o.ctx, { client_id: str(form, 'client_id') });
        return {
          to: CONNECTED_APPS_PATH,
          notice: revoked
            ? 'The app was disconnected: its tokens no longer work.'
            : 'The app was already disconnected.',
        };
      },
    ),
  );

  return app;
}
