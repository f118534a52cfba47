/** @jsxImportSource hono/jsx */
/**
 * One container: rename and describe it, add a note or a URL, its documents newest first with
 * their learning state (and why learning failed), its facts with Forget, and Delete.
 */
import type { z } from 'zod';
import type { Document, Fact } from '../operations/schemas';
import { type ContainerView, when } from './format';
import { Layout } from './layout';

export type DocumentView = z.infer<typeof Document>;
export type FactView = z.infer<typeof Fact>;

export interface ContainerPageProps {
  container: ContainerView;
  documents: DocumentView[];
  nextCursor: string | null;
  facts: FactView[];
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
}

export function ContainerPage({ container: c, documents, nextCursor, facts, csrf, email, notice, error }: ContainerPageProps) {
  return (
    <Layout title={c.name} signedInAs={email} csrf={csrf} current="/containers">
      <section class="card" aria-labelledby="container-title">
        <h1 id="container-title">{c.name}</h1>
        {notice ? <p class="notice" role="status">{notice}</p> : null}
        {error ? <p class="error" role="alert">{error}</p> : null}
        <form method="post" action={`/containers/${c.id}`}>
          <input type="hidden" name="csrf" value={csrf} />
          <label class="field">
            <span>Name</span>
            <input type="text" name="name" required maxlength={200} value={c.name} />
          </label>
          <label class="field">
            <span>Description</span>
            <input type="text" name="description" maxlength={2000} value={c.description} />
          </label>
          <div class="actions">
            <button type="submit">Save</button>
            <a href={`/containers/${c.id}/delete`} class="danger">Delete container</a>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="add-title">
        <h2 id="add-title">Add to this container</h2>
        <p class="muted">It lands at once and is learned in the background; it becomes searchable once learned.</p>
        <form method="post" action={`/containers/${c.id}/documents`}>
          <input type="hidden" name="csrf" value={csrf} />
          <label class="field">
            <span>Title (optional)</span>
            <input type="text" name="title" maxlength={512} />
          </label>
          <label class="field">
            <span>Note</span>
            <textarea name="content"></textarea>
          </label>
          <label class="field">
            <span>Or a web address</span>
            <input type="url" name="url" placeholder="https://" />
          </label>
          <div class="actions">
            <button type="submit" class="primary">Add</button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="documents-title">
        <h2 id="documents-title">Documents</h2>
        {documents.length === 0 ? (
          <p class="muted">No documents yet.</p>
        ) : (
          <div class="table-scroll">
            <table id="documents">
              <thead><tr><th>Document</th><th>State</th><th>Added</th></tr></thead>
              <tbody>
                {documents.map((d) => (
                  <tr data-document-id={d.id}>
                    <td>
                      <a href={`/documents/${d.id}`}>{d.title ?? d.url ?? d.custom_id ?? d.id}</a>
                      {d.url && d.title ? <small class="muted"> {d.url}</small> : null}
                    </td>
                    <td>
                      <span class={`badge ${d.status}`}>{d.status}</span>
                      {d.error ? <small class="error-reason"> {d.error}</small> : null}
                    </td>
                    <td>{when(d.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {nextCursor ? <p><a href={`/containers/${c.id}?cursor=${encodeURIComponent(nextCursor)}`}>Older documents</a></p> : null}
      </section>
      <section class="card" aria-labelledby="facts-title">
        <h2 id="facts-title">Facts</h2>
        {facts.length === 0 ? (
          <p class="muted">No facts saved in this container.</p>
        ) : (
          <ul class="plain" id="facts">
            {facts.map((f) => (
              <li data-fact-id={f.id}>
                <span class="fact">{f.content}</span> <small class="muted">{when(f.updated_at)}</small>{' '}
                <a href={`/facts/${f.id}/forget?back=${encodeURIComponent(`/containers/${c.id}`)}`}>Forget</a>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Layout>
  );
}
