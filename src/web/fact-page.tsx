/** @jsxImportSource hono/jsx */
/**
 * One fact: where it came from (a key, or a document's passage), its earlier wordings, where it is
 * served; edit and forget.
 */
import type { z } from 'zod';
import type { FactDetail } from '../operations/schemas';
import { when } from './format';
import { Layout, Messages } from './layout';

type FactDetailView = z.infer<typeof FactDetail>;

export interface FactPageProps {
  detail: FactDetailView;
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
}

/** Where the owner goes back to once the fact is forgotten: its container, or the profile. */
const factHome = (detail: FactDetailView): string =>
  detail.served.container ? `/containers/${detail.served.container.id}` : '/profile';

export function FactPage({ detail: d, csrf, email, notice, error }: FactPageProps) {
  const f = d.fact;
  const home = factHome(d);
  return (
    <Layout title="Fact" signedInAs={email} csrf={csrf} current={f.static ? '/profile' : '/containers'}>
      <section class="card" aria-labelledby="fact-title">
        <h1 id="fact-title">{f.static ? 'Standing fact' : 'Fact'}</h1>
        <Messages notice={notice} error={error} />
        <blockquote id="fact-content">{f.content}</blockquote>
        <p class="muted">
          Saved {when(f.created_at)} · changed {when(f.updated_at)}
          {f.reviewed_at ? (
            <>
              {' '}
              · <span class="badge confirmed">confirmed</span> {when(f.reviewed_at)}
            </>
          ) : null}
        </p>
        <form method="post" action={`/facts/${f.id}/edit`}>
          <input type="hidden" name="csrf" value={csrf} />
          <label class="field">
            <span>Edit</span>
            <textarea name="content" rows={3} required>
              {f.content}
            </textarea>
          </label>
          <p class="muted">
            The old wording is kept in the history below. An edited fact is yours: it stays when the document it was
            learned from is deleted.
          </p>
          <div class="actions">
            <button type="submit" class="primary">
              Save
            </button>
            <a href={`/facts/${f.id}/forget?back=${encodeURIComponent(home)}`} class="danger">
              Forget fact
            </a>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="source-title">
        <h2 id="source-title">Where it came from</h2>
        <Source detail={d} />
      </section>
      <section class="card" aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        {d.history.length === 0 ? (
          <p class="muted">Never reworded.</p>
        ) : (
          <ol id="history">
            {d.history.map((h) => (
              <li>
                <span class="fact">{h.content}</span> <small class="muted">until {when(h.replaced_at)}</small>
              </li>
            ))}
          </ol>
        )}
      </section>
      <section class="card" aria-labelledby="served-title">
        <h2 id="served-title">Where it is served</h2>
        <ul class="plain" id="served">
          <li>
            {d.served.container ? (
              <>
                Searchable in <a href={`/containers/${d.served.container.id}`}>{d.served.container.name}</a>
              </>
            ) : (
              'In no container: read from the profile only'
            )}
          </li>
          <li>
            {d.served.profile === 'static' ? (
              <>
                In your <a href="/profile">profile</a>, as a standing fact
              </>
            ) : d.served.profile === 'dynamic' ? (
              <>
                In your <a href="/profile">profile</a>, among the recently changed facts
              </>
            ) : (
              'Not in your profile'
            )}
          </li>
        </ul>
        <h3>Read by</h3>
        {d.served.readers.length === 0 ? (
          <p class="muted">No active key or connected app can read it.</p>
        ) : (
          <ul class="plain" id="readers">
            {d.served.readers.map((r) => (
              <li data-reader={r.id}>
                <a href={r.kind === 'key' ? `/keys/${r.id}` : '/connected-apps'}>{r.name}</a>{' '}
                <small class="muted">{r.kind === 'key' ? 'key' : 'app'}</small>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Layout>
  );
}

/** How each format's file is named where a fact says it was imported from it. */
const FROM: Record<NonNullable<FactDetailView['imported']>['format'], string> = {
  engram: 'an Engram export',
  chatgpt: "ChatGPT's export",
  claude: "Claude's export",
  'mcp-memory': "the MCP memory server's file",
  markdown: 'Markdown notes',
};

/** Which import brought the fact: its file, what it was, and when. */
function Imported({ imported: i }: { imported: NonNullable<FactDetailView['imported']> }) {
  return (
    <p id="imported">
      Imported from {i.file ? <code>{i.file}</code> : 'a file'} ({FROM[i.format]}) on {when(i.at)}.
    </p>
  );
}

/** Where the fact came from: the document it was learned from, the key that saved it, the import, or the owner. */
function Source({ detail: d }: { detail: FactDetailView }) {
  return (
    <>
      <Origin detail={d} />
      {d.imported ? <Imported imported={d.imported} /> : null}
    </>
  );
}

function Origin({ detail: d }: { detail: FactDetailView }) {
  if (d.learned_from) {
    const l = d.learned_from;
    return (
      <div id="source">
        <p>
          Learned from <a href={`/documents/${l.document_id}#passage-${l.position}`}>{l.title ?? l.document_id}</a>,
          passage {l.position + 1}:
        </p>
        {l.passage !== null ? <blockquote class="passage">{l.passage}</blockquote> : null}
      </div>
    );
  }
  if (d.written_by) {
    const w = d.written_by;
    return (
      <p id="source">
        Saved by the {w.kind === 'key' ? 'key' : 'app'}{' '}
        <a href={w.kind === 'key' ? `/keys/${w.id}` : '/connected-apps'}>{w.name}</a>
        {w.state === 'active' ? null : (
          <>
            {' '}
            <span class="badge">{w.state}</span>
          </>
        )}
      </p>
    );
  }
  if (d.source_deleted)
    return (
      <p id="source" class="muted">
        Learned from a document deleted since; kept because you confirmed or edited it.
      </p>
    );
  if (d.imported) return null;
  return (
    <p id="source" class="muted">
      Saved by you.
    </p>
  );
}
