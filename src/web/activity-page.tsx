/** @jsxImportSource hono/jsx */
/**
 * What one key, share or connected app read and wrote: its access log as a timeline, newest first.
 * A search shows the passages it was given, with links; saved facts each carry an Undo that forgets
 * the fact. The log holds ids only: what they name is looked up now, so something forgotten since
 * shows as gone.
 */
import type { z } from 'zod';
import type { AccessLog } from '../operations/account/access-log';
import { when } from './format';
import { Layout, Messages } from './layout';

export type AccessLogView = z.infer<typeof AccessLog>;
type Entry = AccessLogView['entries'][number];
type Item = Entry['items'][number];

export interface ActivityPageProps {
  /** Who: "key “Laptop”", "app “Claude”". */
  subject: string;
  /** This page (the Undo's way back, the next page's base). */
  path: string;
  /** Where the subject's own page is. */
  back: { href: string; label: string };
  log: AccessLogView;
  /** How long entries are kept, when the server prunes them. */
  retentionDays: number | null;
  csrf: string;
  email: string;
  current: string;
  notice?: string | null;
  error?: string | null;
}

const VERBS: Record<string, string> = {
  search_memories: 'Searched',
  get_profile: 'Read the profile',
  list_containers: 'Listed containers',
  list_documents: 'Listed documents',
  get_document: 'Read a document',
  add_memory: 'Saved a fact',
  add_document: 'Added a document',
  delete_document: 'Deleted a document',
  forget_memory: 'Forgot a fact',
  ask_agent: 'Answered a question',
  workflow_invoke: 'Ran the workflow',
};

export function ActivityPage(p: ActivityPageProps) {
  return (
    <Layout title={`Activity of ${p.subject}`} signedInAs={p.email} csrf={p.csrf} current={p.current}>
      <section class="card" aria-labelledby="activity-title">
        <h1 id="activity-title">What {p.subject} read and wrote</h1>
        <Messages notice={p.notice} error={p.error} />
        <p class="muted">
          Every call it made, with what the call returned or changed, newest first. Only ids are kept
          {p.retentionDays ? `, for ${p.retentionDays} days` : ''}; what they name is shown as it is now.
        </p>
        <div class="actions">
          <a href={p.back.href}>{p.back.label}</a>
          <a href={`${p.path}/export`} download id="export">
            Export (JSON)
          </a>
        </div>
      </section>
      <section class="card" aria-label="Timeline">
        {p.log.entries.length === 0 ? (
          <p class="muted" id="no-activity">
            Nothing yet.
          </p>
        ) : (
          <ol class="plain timeline" id="timeline">
            {p.log.entries.map((e) => (
              <EntryView entry={e} {...p} />
            ))}
          </ol>
        )}
        {p.log.next_cursor ? (
          <div class="actions">
            <a href={`${p.path}?cursor=${p.log.next_cursor}`} id="older">
              Older
            </a>
          </div>
        ) : null}
      </section>
    </Layout>
  );
}

function EntryView({ entry: e, path, csrf }: { entry: Entry } & ActivityPageProps) {
  const returned = e.items.filter((i) => i.action === 'returned');
  const written = e.items.filter((i) => i.action === 'written');
  const removed = e.items.filter((i) => i.action === 'removed');
  const passages = returned.filter((i) => i.kind === 'document' || i.kind === 'fact');
  const profile = returned.filter((i) => i.kind === 'profile');
  const containers = returned.filter((i) => i.kind === 'container');
  return (
    <li class="entry" data-entry={e.id} data-operation={e.operation}>
      <h2>
        {VERBS[e.operation] ?? e.operation} <small class="muted">{when(e.at)}</small>
      </h2>
      {passages.length ? (
        <>
          <p>{passages.length === 1 ? 'Showed this passage:' : `Showed these ${passages.length} passages:`}</p>
          <ol class="shown">
            {passages.map((i) => (
              <li>
                <ItemLink item={i} />
              </li>
            ))}
          </ol>
        </>
      ) : e.operation === 'search_memories' ? (
        <p class="muted">Found nothing.</p>
      ) : null}
      {profile.length ? (
        <>
          <p>
            Read {profile.length} standing {profile.length === 1 ? 'fact' : 'facts'} of the profile:
          </p>
          <ul class="plain">
            {profile.map((i) => (
              <li>
                <ItemLink item={i} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {containers.length ? (
        <p>
          Saw {containers.length} {containers.length === 1 ? 'container' : 'containers'}.
        </p>
      ) : null}
      {written.length ? (
        <>
          <p>
            {written.some((i) => i.kind === 'document')
              ? 'Saved:'
              : `Saved ${written.length === 1 ? 'this fact' : 'these facts'}:`}
          </p>
          <ul class="plain written">
            {written.map((i) => (
              <li data-id={i.id}>
                <ItemLink item={i} />
                {i.kind !== 'document' && i.label != null ? (
                  <form method="post" action={`/facts/${i.id}/forget`} class="inline">
                    <input type="hidden" name="csrf" value={csrf} />
                    <input type="hidden" name="back" value={path} />{' '}
                    <button type="submit" class="danger undo">
                      Undo
                    </button>
                  </form>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {removed.length ? (
        <p>
          Removed{' '}
          {removed.map((i) => (
            <code>{i.id}</code>
          ))}
          .
        </p>
      ) : null}
    </li>
  );
}

function ItemLink({ item }: { item: Item }) {
  const { label } = item;
  if (label == null)
    return (
      <span class="muted" data-gone={item.id}>
        {item.kind === 'document' ? 'a document' : 'a fact'} since removed (<code>{item.id}</code>)
      </span>
    );
  if (item.kind === 'document') {
    return (
      <a href={`/documents/${item.id}`} data-document={item.id}>
        {label}
        {item.position != null ? <small class="muted"> · passage {item.position + 1}</small> : null}
      </a>
    );
  }
  return (
    <a href={`/facts/${item.id}`} data-fact={item.id}>
      “{label}”
    </a>
  );
}
