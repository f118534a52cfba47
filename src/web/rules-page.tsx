/** @jsxImportSource hono/jsx */
/** The standing rules: how the memory may be used, account-wide or for one key; add and remove. */
import type { z } from 'zod';
import type { Rule } from '../operations/schemas';
import type { KeyView } from './format';
import { Layout, Messages } from './layout';

export interface RulesPageProps {
  rules: z.infer<typeof Rule>[];
  keys: KeyView[];
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
}

export function RulesPage({ rules, keys, csrf, email, notice, error }: RulesPageProps) {
  const keyName = (id: string | null) => keys.find((k) => k.id === id)?.name ?? id ?? '';
  return (
    <Layout title="Rules" signedInAs={email} csrf={csrf} current="/rules">
      <section class="card" aria-labelledby="rules-title">
        <h1 id="rules-title">Standing rules</h1>
        <Messages notice={notice} error={error} />
        <p class="muted">Apps and keys read these rules (memory_rules) and are asked to follow them.</p>
        {rules.length === 0 ? (
          <p class="muted">No rules yet.</p>
        ) : (
          <table id="rules">
            <thead>
              <tr>
                <th>Rule</th>
                <th>For</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r) => (
                <tr data-rule-id={r.id}>
                  <td>{r.text}</td>
                  <td>{r.scope === 'account' ? 'Every key and app' : keyName(r.credential_id)}</td>
                  <td>
                    <form method="post" action={`/rules/${r.id}/delete`} data-confirm="Remove this rule?">
                      <input type="hidden" name="csrf" value={csrf} />
                      <button type="submit" class="danger">
                        Remove
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="card" aria-labelledby="new-rule-title">
        <h2 id="new-rule-title">Add a rule</h2>
        <form method="post" action="/rules">
          <input type="hidden" name="csrf" value={csrf} />
          <label class="field">
            <span>Rule</span>
            <input type="text" name="text" required maxlength={4000} />
          </label>
          <label class="field">
            <span>For</span>
            <select name="credential_id">
              <option value="">Every key and app</option>
              {keys.map((k) => (
                <option value={k.id}>
                  {k.name} ({k.hint})
                </option>
              ))}
            </select>
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Add rule
            </button>
          </div>
        </form>
      </section>
    </Layout>
  );
}
