/** @jsxImportSource hono/jsx */
/**
 * The search box: what an app would get for a query, passage by passage, with failures per
 * container; as the owner or seen as a key or app.
 */
import type { z } from 'zod';
import type { SearchResponse } from '../operations/schemas';
import type { ContainerView } from './format';
import { Layout, Messages } from './layout';

/** A key or connected app's consent token the owner can search as. */
export interface SeeAsOption {
  id: string;
  label: string;
}

export interface SearchPageProps {
  q: string;
  container: string;
  /** The containers in reach of whoever the search is as. */
  containers: ContainerView[];
  /** The credential id searched as; '' for the owner. */
  as: string;
  seeAs: SeeAsOption[];
  answer: z.infer<typeof SearchResponse> | null;
  csrf: string;
  email: string;
  error?: string | null;
  /** Share of passages the strong embedding tier has refined, while refinement runs; else null. */
  refined: number | null;
}

export function SearchPage({
  q,
  container,
  containers,
  as,
  seeAs,
  answer,
  csrf,
  email,
  error,
  refined,
}: SearchPageProps) {
  return (
    <Layout title="Search" signedInAs={email} csrf={csrf} current="/search">
      <section class="card" aria-labelledby="search-title">
        <h1 id="search-title">Search your memory</h1>
        <p class="muted">The passages an app would get for this query (search_memories), most relevant first.</p>
        {refined !== null && refined < 100 ? (
          <p class="muted" id="search-quality">
            Search quality: {refined} % refined. Engram is reading your memory again with its stronger model; search
            gets better as this rises.
          </p>
        ) : null}
        <search>
          <form method="get" action="/search">
            <label class="field">
              <span>Query</span>
              <input type="search" name="q" value={q} required />
            </label>
            <label class="field">
              <span>See as</span>
              <select name="as" id="see-as">
                <option value="">You (every container)</option>
                {seeAs.map((x) => (
                  <option value={x.id} selected={x.id === as}>
                    {x.label}
                  </option>
                ))}
              </select>
            </label>
            <p class="muted">
              Seen as a key or app, search has exactly its reach, profile tick and level; it does not count as the key's
              or app's use.
            </p>
            <label class="field">
              <span>In</span>
              <select name="container">
                <option value="*">{as ? 'All containers in its reach' : 'All containers'}</option>
                {containers.map((c) => (
                  <option value={c.id} selected={c.id === container}>
                    {c.name}
                  </option>
                ))}
              </select>
            </label>
            <div class="actions">
              <button type="submit" class="primary">
                Search
              </button>
            </div>
          </form>
        </search>
        <Messages error={error} />
      </section>
      {answer ? (
        <section class="card" aria-labelledby="results-title">
          <h2 id="results-title">
            {answer.results.length} {answer.results.length === 1 ? 'passage' : 'passages'}
          </h2>
          {answer.containers
            .filter((c) => c.error)
            .map((c) => (
              <p class="error" role="alert">
                {c.name}: {c.error!.message}
              </p>
            ))}
          <ol id="results">
            {answer.results.map((hit) => (
              <li
                class="passage"
                data-container={hit.container}
                data-document={hit.document_id ?? ''}
                data-memory={hit.memory_id ?? ''}
                data-position={String(hit.position)}
                data-score={hit.score.toFixed(6)}
              >
                <small class="muted">
                  {hit.container_name}
                  {hit.title ? ` · ${hit.title}` : ''}
                  {hit.memory_id ? ' · fact' : ''} · score {hit.score.toFixed(3)}
                </small>
                {'\n'}
                {hit.memory_id ? (
                  <a href={`/facts/${hit.memory_id}`}>{hit.content}</a>
                ) : hit.document_id ? (
                  <a href={`/documents/${hit.document_id}#passage-${hit.position}`}>{hit.content}</a>
                ) : (
                  hit.content
                )}
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </Layout>
  );
}
