/** @jsxImportSource hono/jsx */
/** The owner's Connected apps page: each AI app with its reach, profile tick, dates, and Disconnect. */
import type { z } from 'zod';
import type { ConnectedAppList } from '../operations/apps/list-connected-apps';
import { Layout, Messages } from './layout';

export interface ConnectedAppsPageProps {
  apps: z.infer<typeof ConnectedAppList>['apps'];
  csrf: string;
  email: string;
  /** A line to show at the top, e.g. after a disconnect. */
  notice?: string | null;
  error?: string | null;
}

const day = (isoTime: string | null) => (isoTime ? isoTime.slice(0, 16).replace('T', ' ') + ' UTC' : 'never');

export function ConnectedAppsPage({ apps, csrf, email, notice, error }: ConnectedAppsPageProps) {
  return (
    <Layout title="Connected apps" signedInAs={email} csrf={csrf}>
      <div class="card">
        <h1>Connected apps</h1>
        <p class="muted">
          AI apps you approved to read your memory. Disconnecting revokes every token the app holds at once.
        </p>
        {notice ? (
          <p class="muted" role="status">
            {notice}
          </p>
        ) : null}
        <Messages error={error} />
        {apps.length === 0 ? (
          <p id="no-apps">No app is connected.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>App</th>
                <th>Reach</th>
                <th>Profile</th>
                <th>Connected</th>
                <th>Last used</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {apps.map((app) => (
                <tr data-client-id={app.client_id}>
                  <td>
                    <strong>{app.name}</strong>
                    <small class="muted"> {app.redirect_hosts.join(', ')}</small>
                    <br />
                    <a href={`/connected-apps/${encodeURIComponent(app.client_id)}/activity`} class="activity-link">
                      What it read
                    </a>
                  </td>
                  <td>
                    {app.containers.length ? (
                      <ul class="plain">
                        {app.containers.map((c) => (
                          <li>{c.name}</li>
                        ))}
                      </ul>
                    ) : (
                      <span class="muted">none</span>
                    )}
                  </td>
                  <td>{app.profile ? 'yes' : 'no'}</td>
                  <td>{day(app.connected_at)}</td>
                  <td>{day(app.last_used_at)}</td>
                  <td>
                    <form method="post" action="/connected-apps/disconnect">
                      <input type="hidden" name="csrf" value={csrf} />
                      <input type="hidden" name="client_id" value={app.client_id} />
                      <button type="submit" class="danger">
                        Disconnect
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Layout>
  );
}
