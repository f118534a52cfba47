/** @jsxImportSource hono/jsx */
/**
 * The profile: standing (static) facts, with Confirm (learned ones), Remove and a form to add one;
 * recent (dynamic) facts.
 */
import { FactReview, type FactView } from './container-page';
import { when } from './format';
import { Layout, Messages } from './layout';

export interface ProfilePageProps {
  staticFacts: FactView[];
  dynamicFacts: FactView[];
  containerNames: Record<string, string>;
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
}

export function ProfilePage({
  staticFacts,
  dynamicFacts,
  containerNames,
  csrf,
  email,
  notice,
  error,
}: ProfilePageProps) {
  return (
    <Layout title="Profile" signedInAs={email} csrf={csrf} current="/profile">
      <section class="card" aria-labelledby="static-title">
        <h1 id="static-title">Standing facts</h1>
        <Messages notice={notice} error={error} />
        <p class="muted">
          Who you are and your lasting preferences, all of them here
          {staticFacts.length ? ` (${staticFacts.length} standing ${staticFacts.length === 1 ? 'fact' : 'facts'})` : ''}
          . Keys and apps with the profile tick read these.
        </p>
        {staticFacts.length === 0 ? (
          <p class="muted">No standing facts yet.</p>
        ) : (
          <ul class="plain" id="static-facts">
            {staticFacts.map((f) => (
              <li data-fact-id={f.id}>
                <a class="fact" href={`/facts/${f.id}`}>
                  {f.content}
                </a>{' '}
                <FactReview fact={f} csrf={csrf} back="/profile" />{' '}
                <a href={`/facts/${f.id}/forget?back=${encodeURIComponent('/profile')}`}>Remove</a>
              </li>
            ))}
          </ul>
        )}
        <form method="post" action="/profile/facts">
          <input type="hidden" name="csrf" value={csrf} />
          <label class="field">
            <span>New standing fact</span>
            <input type="text" name="content" required />
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Add standing fact
            </button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="dynamic-title">
        <h2 id="dynamic-title">Recent facts</h2>
        <p class="muted" id="dynamic-about">
          The facts you said or saved most recently (up to 20), which keys and apps with the profile tick read as
          recent. Every fact, imported ones too, is in its container: see <a href="/containers">Memory</a>.
        </p>
        {dynamicFacts.length === 0 ? (
          <p class="muted">None yet.</p>
        ) : (
          <ul class="plain" id="dynamic-facts">
            {dynamicFacts.map((f) => (
              <li data-fact-id={f.id}>
                <a class="fact" href={`/facts/${f.id}`}>
                  {f.content}
                </a>{' '}
                <small class="muted">
                  {f.container ? (containerNames[f.container] ?? f.container) : ''} · {when(f.updated_at)}
                </small>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Layout>
  );
}
