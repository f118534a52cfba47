/** @jsxImportSource hono/jsx */
/**
 * The consent screen: which app asks, where it will send the owner back, a tick box per container,
 * a profile-access tick, Approve and Deny. The authorization request travels in hidden fields and
 * is checked again when the form comes back (src/oauth/authorize.tsx).
 */
import type { ContainerView } from './format';
import { Layout, Messages } from './layout';

export interface ConsentApp {
  name: string;
  clientId: string;
  /** Where the owner is sent back: the redirect URI's host (or its scheme, for a native app). */
  redirectHost: string;
  /** True when the app identified itself by a metadata document at an https URL of its own. */
  documented: boolean;
}

export interface ConsentPageProps {
  app: ConsentApp;
  containers: ContainerView[];
  /** The authorization request's parameters, echoed back in hidden fields. */
  request: Record<string, string>;
  csrf: string;
  email: string;
  ttlDays: number;
  ticked?: { containers: string[]; profile: boolean };
  error?: string | null;
}

export function ConsentPage({ app, containers, request, csrf, email, ttlDays, ticked, error }: ConsentPageProps) {
  const on = new Set(ticked?.containers ?? []);
  return (
    <Layout title={`Connect ${app.name}`} signedInAs={email} csrf={csrf}>
      <div class="card">
        <h1>
          <span id="app-name">{app.name}</span> wants to read your memory
        </h1>
        <p class="muted">
          After you decide you will be sent back to <strong id="redirect-host">{app.redirectHost}</strong>.
          {app.documented ? (
            <>
              {' '}
              The app is identified by <code>{app.clientId}</code>.
            </>
          ) : (
            <> The app named itself; Engram cannot confirm that name.</>
          )}
        </p>
        <Messages error={error} />
        <form method="post" action="/oauth/authorize">
          <input type="hidden" name="csrf" value={csrf} />
          {Object.entries(request).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <fieldset>
            <legend>Containers it may search</legend>
            {containers.length === 0 ? <p class="muted">You have no containers yet.</p> : null}
            {containers.map((c) => (
              <label class="tick">
                <input type="checkbox" name="containers" value={c.id} checked={on.has(c.id)} />
                <span>
                  {c.name}
                  {c.description ? <small>{c.description}</small> : null}
                </span>
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Profile</legend>
            <label class="tick">
              <input type="checkbox" name="profile" value="on" checked={ticked?.profile ?? false} />
              <span>
                Profile access
                <small>
                  Your standing facts (who you are, lasting preferences). To change this later, disconnect the app and
                  connect it again.
                </small>
              </span>
            </label>
          </fieldset>
          <p class="muted">
            Read-only: the app can list and search what you tick, never add, change or delete anything. Access lasts{' '}
            {ttlDays} days; you can disconnect the app at any time under Connected apps.
          </p>
          <div class="actions">
            <button type="submit" name="decision" value="approve" class="primary">
              Approve
            </button>
            <button type="submit" name="decision" value="deny">
              Deny
            </button>
          </div>
        </form>
      </div>
    </Layout>
  );
}
