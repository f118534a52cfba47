/** @jsxImportSource hono/jsx */
/**
 * One container: rename and describe it, whether it learns into the profile, add a note or a URL,
 * its documents newest first (each by its title or first words, with its size, learning state, why
 * learning failed, and where it came from), its facts with Confirm and Forget, and Delete.
 */
import type { z } from 'zod';
import type { Document, Fact } from '../operations/schemas';
import { type ContainerView, when } from './format';
import { Layout, Messages } from './layout';

export type DocumentView = z.infer<typeof Document>;
export type FactView = z.infer<typeof Fact>;

export interface ContainerPageProps {
  container: ContainerView;
  /** Each with its size in bytes and its first characters (browse_container). */
  documents: (DocumentView & { bytes: number; opening: string })[];
  /** How many the container holds, and where the next page starts (null on the last). */
  documentCount: number;
  nextCursor: string | null;
  facts: FactView[];
  factCount: number;
  nextFactsCursor: string | null;
  /** Which lists show a later page (then a link leads back to the newest). */
  paged: { documents: boolean; facts: boolean };
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
}

/** "1 document", "3,324 facts". */
const counted = (n: number, noun: string) => `${n.toLocaleString('en')} ${noun}${n === 1 ? '' : 's'}`;

/** "812 B", "3.4 KB", "1.2 MB". */
function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  return bytes < 1_000_000 ? `${(bytes / 1000).toFixed(1)} KB` : `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** The first words of `text`, cut at a word and marked with an ellipsis when there is more. */
function firstWords(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.lastIndexOf(' ', max);
  return `${flat.slice(0, cut > max / 2 ? cut : max)}…`;
}

/**
 * A learned fact's Confirm button, or its "confirmed" mark: a confirmed fact is the owner's, and
 * is kept when the document it was learned from is deleted. Nothing for a fact saved directly.
 */
export function FactReview({ fact, csrf, back }: { fact: FactView; csrf: string; back: string }) {
  if (fact.reviewed_at) return <span class="badge confirmed">confirmed</span>;
  if (!fact.source) return null;
  return (
    <form method="post" action={`/facts/${fact.id}/confirm`} class="inline">
      <input type="hidden" name="csrf" value={csrf} />
      <input type="hidden" name="back" value={back} />
      <button type="submit">Confirm</button>
    </form>
  );
}

/** The way to a list's next page, and back to its first: nothing when it is all on this one. */
function Pager({ what, newest, older }: { what: string; newest: string | null; older: string | null }) {
  if (!newest && !older) return null;
  return (
    <p class="actions">
      {newest ? <a href={newest}>Newest {what}</a> : null}
      {older ? <a href={older}>Older {what}</a> : null}
    </p>
  );
}

export function ContainerPage({
  container: c,
  documents,
  documentCount,
  nextCursor,
  facts,
  factCount,
  nextFactsCursor,
  paged,
  csrf,
  email,
  notice,
  error,
}: ContainerPageProps) {
  const here = `/containers/${c.id}`;
  return (
    <Layout title={c.name} signedInAs={email} csrf={csrf} current="/containers">
      <section class="card" aria-labelledby="container-title">
        <h1 id="container-title">{c.name}</h1>
        <Messages notice={notice} error={error} />
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
          <label class="tick">
            <input type="checkbox" name="learns_into_profile" value="on" checked={c.learns_into_profile} />
            <span>
              Learns into the profile
              <small>
                Standing facts learned from this container's documents go to your profile, which every key and app with
                profile access reads, whatever containers it reaches. Untick to keep them in this container.
              </small>
            </span>
          </label>
          <div class="actions">
            <button type="submit">Save</button>
            <a href={`/containers/${c.id}/delete`} class="danger">
              Delete container
            </a>
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
            <button type="submit" class="primary">
              Add
            </button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="documents-title">
        <h2 id="documents-title">Documents</h2>
        {documents.length === 0 && !paged.documents ? (
          <p class="muted">No documents yet.</p>
        ) : (
          <p class="muted" id="document-count">
            {counted(documentCount, 'document')}, newest first
            {documentCount > documents.length ? `; ${documents.length} on this page` : ''}.
          </p>
        )}
        {documents.length === 0 ? null : (
          <div class="table-scroll">
            <table id="documents">
              <thead>
                <tr>
                  <th>Document</th>
                  <th>Size</th>
                  <th>State</th>
                  <th>Added</th>
                </tr>
              </thead>
              <tbody>
                {documents.map((d) => {
                  const opening = d.opening ? firstWords(d.opening) : '';
                  // A page not read yet has no size to show.
                  const known = !(d.url && d.status !== 'learned' && !d.bytes);
                  const name = d.title ?? (opening || d.url || d.custom_id || d.id);
                  return (
                    <tr data-document-id={d.id}>
                      <td>
                        <a href={`/documents/${d.id}`} class="document-name">
                          {name}
                        </a>
                        {d.url && name !== d.url ? (
                          <small class="muted source">
                            {' '}
                            From <code>{d.url}</code>
                          </small>
                        ) : null}
                      </td>
                      <td class="size">{known ? size(d.bytes) : '–'}</td>
                      <td>
                        <span class={`badge ${d.status}`}>{d.status}</span>
                        {d.error ? <small class="error-reason"> {d.error}</small> : null}
                      </td>
                      <td>{when(d.created_at)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        <Pager
          what="documents"
          newest={paged.documents ? here : null}
          older={nextCursor && `${here}?cursor=${encodeURIComponent(nextCursor)}`}
        />
      </section>
      <section class="card" aria-labelledby="facts-title">
        <h2 id="facts-title">Facts</h2>
        {facts.length === 0 && !paged.facts ? (
          <p class="muted">No facts saved in this container.</p>
        ) : (
          <p class="muted" id="fact-count">
            {counted(factCount, 'fact')}, most recently changed first
            {factCount > facts.length ? `; ${facts.length} on this page` : ''}.
          </p>
        )}
        {facts.length === 0 ? null : (
          <ul class="plain" id="facts">
            {facts.map((f) => (
              <li data-fact-id={f.id}>
                <a class="fact" href={`/facts/${f.id}`}>
                  {f.content}
                </a>{' '}
                <small class="muted">{when(f.updated_at)}</small>{' '}
                <FactReview fact={f} csrf={csrf} back={`/containers/${c.id}`} />{' '}
                <a href={`/facts/${f.id}/forget?back=${encodeURIComponent(`/containers/${c.id}`)}`}>Forget</a>
              </li>
            ))}
          </ul>
        )}
        <Pager
          what="facts"
          newest={paged.facts ? `${here}#facts-title` : null}
          older={nextFactsCursor && `${here}?facts=${encodeURIComponent(nextFactsCursor)}#facts-title`}
        />
      </section>
    </Layout>
  );
}
