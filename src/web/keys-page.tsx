/** @jsxImportSource hono/jsx */
/**
 * The key screen: mint a key (name, level, reach, profile tick, expiry), see it once with a Copy
 * button, and the lists of Active, Expired and Revoked keys. Rotating opens the same form pre-filled
 * from the old key, with `replaces` recording the lineage.
 */
import type { MintedKey } from '../operations/schemas';
import type { z } from 'zod';
import { type ContainerView, EXPIRY_CHOICES, type KeyView, LEVEL_LABEL, reachText, when } from './format';
import { Layout, Messages, MintedSecret } from './layout';
import { StateSections } from './state-sections';

/** What the mint form starts with: empty, or the old key's grant when rotating. */
export interface MintDraft {
  name: string;
  level: KeyView['level'];
  allViews: boolean;
  containers: string[];
  profile: boolean;
  expiresInDays: number | null;
  replaces: KeyView | null;
}

export const EMPTY_DRAFT: MintDraft = {
  name: '',
  level: 'read',
  allViews: false,
  containers: [],
  profile: false,
  expiresInDays: null,
  replaces: null,
};

export interface KeysPageProps {
  keys: { active: KeyView[]; expired: KeyView[]; revoked: KeyView[] };
  containers: ContainerView[];
  draft: MintDraft;
  minted?: z.infer<typeof MintedKey> | null;
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
}

export function KeysPage({ keys, containers, draft, minted, csrf, email, notice, error }: KeysPageProps) {
  const all = [...keys.active, ...keys.expired, ...keys.revoked];
  const expiries = EXPIRY_CHOICES.some(([d]) => d === draft.expiresInDays)
    ? EXPIRY_CHOICES
    : [...EXPIRY_CHOICES, [draft.expiresInDays, `${draft.expiresInDays} days`] as [number | null, string]];
  return (
    <Layout title="Keys" signedInAs={email} csrf={csrf} current="/keys">
      {minted ? (
        <MintedSecret
          title={`Your new key “${minted.name}”`}
          hint={minted.hint}
          value={minted.key}
          inputId="new-key"
          label="The new key"
        >
          <p>
            <a href={`/keys/${minted.id}`}>See this key’s page</a>
          </p>
        </MintedSecret>
      ) : null}
      <section class="card" id="mint" aria-labelledby="mint-title">
        <h1 id="mint-title">{draft.replaces ? `Rotate “${draft.replaces.name}”` : 'Make a key'}</h1>
        <Messages notice={notice} error={error} />
        {draft.replaces ? (
          <p class="muted">
            The new key starts with the old key’s level, reach, profile tick and expiry duration (counted from now). The
            old key ({draft.replaces.hint}) keeps working until you revoke it.
          </p>
        ) : (
          <p class="muted">
            A key lets code you run use your memory. Give each program its own key, with only the reach it needs.
          </p>
        )}
        <form method="post" action="/keys">
          <input type="hidden" name="csrf" value={csrf} />
          {draft.replaces ? <input type="hidden" name="replaces" value={draft.replaces.id} /> : null}
          <label class="field">
            <span>Name</span>
            <input type="text" name="name" required maxlength={200} value={draft.name} />
          </label>
          <LevelChoice level={draft.level} />
          <ReachChoice containers={containers} allViews={draft.allViews} ticked={draft.containers} />
          <fieldset>
            <legend>Profile</legend>
            <label class="tick">
              <input type="checkbox" name="profile" value="on" checked={draft.profile} />
              <span>
                Profile access<small>Your standing facts, and saving new ones.</small>
              </span>
            </label>
          </fieldset>
          <label class="field">
            <span>Expires</span>
            <select name="expires_in_days">
              {expiries.map(([days, label]) => (
                <option value={days == null ? 'never' : String(days)} selected={days === draft.expiresInDays}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              {draft.replaces ? 'Make the new key' : 'Make key'}
            </button>
            {draft.replaces ? <a href="/keys">Cancel</a> : null}
          </div>
        </form>
      </section>
      <StateSections
        prefix="keys"
        noun="keys"
        groups={keys}
        rowId="data-key-id"
        head={
          <>
            <th>Name</th>
            <th>Level</th>
            <th>Reach</th>
            <th>Profile</th>
          </>
        }
        tail={<th>Last used</th>}
        cells={(k) => (
          <>
            <td>
              <a href={`/keys/${k.id}`}>{k.name}</a> <small class="muted">{k.hint}</small>
              {k.replaces ? (
                <small class="muted lineage">
                  {' '}
                  replaces {all.find((o) => o.id === k.replaces)?.name ?? k.replaces}
                </small>
              ) : null}
            </td>
            <td>{LEVEL_LABEL[k.level]}</td>
            <td>{reachText(k, containers)}</td>
            <td>{k.profile ? 'yes' : 'no'}</td>
          </>
        )}
        tailCells={(k) => <td>{when(k.last_used_at)}</td>}
      />
    </Layout>
  );
}

export function LevelChoice({ level }: { level: KeyView['level'] }) {
  const help = {
    read: 'Search, list and read.',
    suggest: 'Also add documents and facts.',
    manage: 'Also delete documents and forget facts.',
  };
  return (
    <fieldset>
      <legend>Level</legend>
      {(['read', 'suggest', 'manage'] as const).map((l) => (
        <div class="choice">
          <label class="tick">
            <input
              type="radio"
              name="level"
              value={l}
              checked={l === level}
              required
              aria-describedby={`level-${l}-help`}
            />
            <span>{LEVEL_LABEL[l]}</span>
          </label>
          <small class="muted" id={`level-${l}-help`}>
            {help[l]}
          </small>
        </div>
      ))}
    </fieldset>
  );
}

export function ReachChoice({
  containers,
  allViews,
  ticked,
}: {
  containers: ContainerView[];
  allViews: boolean;
  ticked: string[];
}) {
  const on = new Set(ticked);
  return (
    <fieldset>
      <legend>Reach</legend>
      <label class="tick">
        <input type="radio" name="reach" value="all" checked={allViews} />
        <span>
          All containers<small>Including ones you make later.</small>
        </span>
      </label>
      <label class="tick">
        <input type="radio" name="reach" value="some" checked={!allViews} />
        <span>Only the containers ticked below</span>
      </label>
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
  );
}
