/** @jsxImportSource hono/jsx */
/** One agent share or workflow: what it reaches, its instruction, its dates, and Revoke while it is active. */
import { type ContainerView, when } from './format';
import { Layout, Messages } from './layout';
import { containerNames, KIND_HELP, KIND_LABEL, type ShareView } from './shares-page';

interface SharePageProps {
  share: ShareView;
  containers: ContainerView[];
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
}

export function SharePage({ share: s, containers, csrf, email, notice, error }: SharePageProps) {
  return (
    <Layout title={s.name} signedInAs={email} csrf={csrf} current="/shares">
      <section class="card" aria-labelledby="share-title">
        <h1 id="share-title">{s.name}</h1>
        <Messages notice={notice} error={error} />
        <p>
          <span class="badge" id="share-state">
            {s.state}
          </span>{' '}
          <code>{s.hint}</code> · {KIND_LABEL[s.kind]} · {containerNames(s, containers)}
        </p>
        <p class="muted">{KIND_HELP[s.kind]}</p>
        {s.instruction ? (
          <>
            <h2>Instruction</h2>
            <p id="share-instruction">{s.instruction}</p>
          </>
        ) : null}
        <p class="muted">
          Made {when(s.created_at)} · expires {when(s.expires_at)}
          {s.revoked_at ? ` · revoked ${when(s.revoked_at)}` : ''}
        </p>
        {s.state === 'active' ? (
          <div class="actions">
            <a href={`/shares/${s.id}/revoke`} class="danger">
              Revoke
            </a>
          </div>
        ) : null}
      </section>
    </Layout>
  );
}
