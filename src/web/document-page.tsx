/** @jsxImportSource hono/jsx */
/** One document: its learning state (and why it failed) and the passages it was cut into. */
import type { PassageInput } from '../storage/store';
import type { DocumentView } from './container-page';
import { type ContainerView, when } from './format';
import { Layout } from './layout';

export interface DocumentPageProps {
  document: DocumentView;
  container: ContainerView | null;
  passages: PassageInput[];
  csrf: string;
  email: string;
}

export function DocumentPage({ document: d, container, passages, csrf, email }: DocumentPageProps) {
  return (
    <Layout title={d.title ?? 'Document'} signedInAs={email} csrf={csrf} current="/containers">
      <section class="card" aria-labelledby="document-title">
        <h1 id="document-title">{d.title ?? d.url ?? d.id}</h1>
        <p>
          <span class={`badge ${d.status}`} id="document-state">
            {d.status}
          </span>{' '}
          in {container ? <a href={`/containers/${container.id}`}>{container.name}</a> : d.container} · added{' '}
          {when(d.created_at)}
        </p>
        {d.url ? (
          <p>
            From <code>{d.url}</code>
          </p>
        ) : null}
        {d.error ? (
          <p class="error" role="alert">
            Learning failed: {d.error}
          </p>
        ) : null}
        <p>
          <a href={`/documents/${d.id}/delete`} class="danger">
            Delete document
          </a>
        </p>
        <h2>Passages</h2>
        {passages.length === 0 ? (
          <p class="muted">
            {d.status === 'learned' ? 'No passages.' : 'Passages appear once the document is learned.'}
          </p>
        ) : (
          <ol id="passages">
            {passages.map((p) => (
              <li class="passage" id={`passage-${p.position}`}>
                {p.title ? (
                  <strong>
                    {p.title}
                    {'\n'}
                  </strong>
                ) : null}
                {p.content}
              </li>
            ))}
          </ol>
        )}
      </section>
    </Layout>
  );
}
