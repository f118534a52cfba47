/** @jsxImportSource hono/jsx */
/**
 * The shares screen: make an agent share or a workflow (name, containers, expiry, and a workflow's
 * instruction), see its token once with a Copy button, and the lists of Active, Expired and Revoked
 * ones. One share's page is share-page.tsx.
 */
import type { z } from 'zod';
import type { Share, MintedShare } from '../operations/schemas';
import { type ContainerView, EXPIRY_CHOICES } from './format';
import { Layout, Messages, MintedSecret } from './layout';
import { StateSections } from './state-sections';

export type ShareView = z.infer<typeof Share>;

export const KIND_LABEL: Record<ShareView['kind'], string> = { agent_share: 'Agent share', workflow: 'Workflow' };

/** What the token is for, in the words of the contract's tools (docs/protocol.md). */
export const KIND_HELP: Record<ShareView['kind'], string> = {
  agent_share: 'Answers questions from the ticked containers: POST /v1/ask, or the MCP tool ask_agent.',
  workflow: 'Runs your instruction over the ticked containers: the MCP tool workflow_invoke.',
};

/** The share's containers by name, in the order of the owner's container list. */
export const containerNames = (s: ShareView, containers: ContainerView[]): string =>
  containers
    .filter((c) => s.containers.includes(c.id))
    .map((c) => c.name)
    .join(', ') || 'No containers';

export interface SharesPageProps {
  shares: { active: ShareView[]; expired: ShareView[]; revoked: ShareView[] };
  containers: ContainerView[];
  minted?: z.infer<typeof MintedShare> | null;
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
}

export function SharesPage({ shares, containers, minted, csrf, email, notice, error }: SharesPageProps) {
  return (
    <Layout title="Shares" signedInAs={email} csrf={csrf} current="/shares">
      {minted ? (
        <MintedSecret
          title={`Your new ${KIND_LABEL[minted.kind].toLowerCase()} “${minted.name}”`}
          hint={minted.hint}
          value={minted.token}
          inputId="new-token"
          label="The new token"
        >
          <p class="muted">{KIND_HELP[minted.kind]}</p>
          <p>
            <a href={`/shares/${minted.id}`}>See its page</a>
          </p>
        </MintedSecret>
      ) : null}
      <section class="card" id="make" aria-labelledby="make-title">
        <h1 id="make-title">Share an agent or a workflow</h1>
        <Messages notice={notice} error={error} />
        <p class="muted">
          A share is a token you hand to someone else: it can only ask your memory questions (an agent share) or run one
          instruction of yours (a workflow), over the containers you tick, never your profile.
        </p>
        <form method="post" action="/shares">
          <input type="hidden" name="csrf" value={csrf} />
          <fieldset>
            <legend>Kind</legend>
            {(['agent_share', 'workflow'] as const).map((kind) => (
              <div class="choice">
                <label class="tick">
                  <input
                    type="radio"
                    name="kind"
                    value={kind}
                    checked={kind === 'agent_share'}
                    required
                    aria-describedby={`kind-${kind}-help`}
                  />
                  <span>{KIND_LABEL[kind]}</span>
                </label>
                <small class="muted" id={`kind-${kind}-help`}>
                  {KIND_HELP[kind]}
                </small>
              </div>
            ))}
          </fieldset>
          <label class="field">
            <span>Name</span>
            <input type="text" name="name" required maxlength={200} />
          </label>
          <fieldset>
            <legend>Containers</legend>
            {containers.length === 0 ? <p class="muted">You have no containers yet.</p> : null}
            {containers.map((c) => (
              <label class="tick">
                <input type="checkbox" name="containers" value={c.id} />
                <span>
                  {c.name}
                  {c.description ? <small>{c.description}</small> : null}
                </span>
              </label>
            ))}
          </fieldset>
          <label class="field">
            <span>Instruction (workflows only)</span>
            <textarea name="instruction"></textarea>
          </label>
          <label class="field">
            <span>Expires</span>
            <select name="expires_in_days">
              {EXPIRY_CHOICES.map(([days, label]) => (
                <option value={days == null ? 'never' : String(days)} selected={days == null}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Make share
            </button>
          </div>
        </form>
      </section>
      <StateSections
        prefix="shares"
        groups={shares}
        rowId="data-share-id"
        head={
          <>
            <th>Name</th>
            <th>Kind</th>
            <th>Containers</th>
          </>
        }
        cells={(s) => (
          <>
            <td>
              <a href={`/shares/${s.id}`}>{s.name}</a> <small class="muted">{s.hint}</small>
            </td>
            <td>{KIND_LABEL[s.kind]}</td>
            <td>{containerNames(s, containers)}</td>
          </>
        )}
      />
    </Layout>
  );
}
