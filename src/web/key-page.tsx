/** @jsxImportSource hono/jsx */
/**
 * One key: its grant (level, reach, profile tick) changed in place, its lineage, Rotate and Revoke,
 * and its usage: calls per day as a small inline SVG chart, refusals, calls per tool, the last twenty.
 */
import type { z } from 'zod';
import type { Usage } from '../operations/schemas';
import { type ContainerView, type KeyView, LEVEL_LABEL, reachText, when } from './format';
import { LevelChoice, ReachChoice } from './keys-page';
import { Layout, Messages } from './layout';

export type UsageView = z.infer<typeof Usage>;

export interface KeyPageProps {
  keyView: KeyView;
  /** The key it replaces and the keys that replace it, for the lineage line. */
  replaces: KeyView | null;
  replacedBy: KeyView[];
  containers: ContainerView[];
  usage: UsageView;
  /** Today (YYYY-MM-DD, UTC): the chart's last day. */
  today: string;
  csrf: string;
  email: string;
  notice?: string | null;
  error?: string | null;
}

export function KeyPage({
  keyView: k,
  replaces,
  replacedBy,
  containers,
  usage,
  today,
  csrf,
  email,
  notice,
  error,
}: KeyPageProps) {
  const calls = usage.per_day.reduce((n, d) => n + d.calls, 0);
  return (
    <Layout title={k.name} signedInAs={email} csrf={csrf} current="/keys">
      <section class="card" aria-labelledby="key-title">
        <h1 id="key-title">{k.name}</h1>
        <Messages notice={notice} error={error} />
        <p>
          <span class="badge" id="key-state">
            {k.state}
          </span>{' '}
          <code>{k.hint}</code> · {LEVEL_LABEL[k.level]} · {reachText(k, containers)} · profile{' '}
          {k.profile ? 'yes' : 'no'}
        </p>
        <p class="muted">
          Made {when(k.created_at)} · expires {when(k.expires_at)} · last used {when(k.last_used_at)}
          {k.revoked_at ? ` · revoked ${when(k.revoked_at)}` : ''}
        </p>
        {replaces || replacedBy.length ? (
          <p id="lineage">
            {replaces ? (
              <>
                Replaces <a href={`/keys/${replaces.id}`}>{replaces.name}</a> ({replaces.hint}).{' '}
              </>
            ) : null}
            {replacedBy.map((r) => (
              <>
                Replaced by <a href={`/keys/${r.id}`}>{r.name}</a> ({r.hint}).{' '}
              </>
            ))}
          </p>
        ) : null}
        {k.state === 'active' ? (
          <div class="actions">
            <a href={`/keys?from=${k.id}#mint`}>Rotate</a>
            <a href={`/keys/${k.id}/revoke`} class="danger">
              Revoke
            </a>
          </div>
        ) : null}
      </section>
      <section class="card" id="usage" aria-labelledby="usage-title">
        <h2 id="usage-title">Usage, last 30 days</h2>
        <p>
          <strong id="usage-calls">{calls}</strong> calls, <strong id="usage-refused">{usage.refused}</strong> refused.
        </p>
        <p>
          <a href={`/keys/${k.id}/activity`} id="activity-link">
            What it read and wrote
          </a>
        </p>
        <UsageChart perDay={usage.per_day} today={today} />
        <h2>Calls per tool</h2>
        {usage.per_tool.length === 0 ? (
          <p class="muted">No calls yet.</p>
        ) : (
          <table id="per-tool">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Calls</th>
                <th>Refused</th>
              </tr>
            </thead>
            <tbody>
              {usage.per_tool.map((t) => (
                <tr data-tool={t.tool}>
                  <td>{t.tool}</td>
                  <td>{t.calls}</td>
                  <td>{t.refused}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <h2>Last twenty calls</h2>
        {usage.recent.length === 0 ? (
          <p class="muted">No calls yet.</p>
        ) : (
          <div class="table-scroll">
            <table id="recent">
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Tool</th>
                  <th>Outcome</th>
                </tr>
              </thead>
              <tbody>
                {usage.recent.map((r) => (
                  <tr data-outcome={r.outcome}>
                    <td>{r.at.slice(0, 19).replace('T', ' ')}</td>
                    <td>{r.tool}</td>
                    <td>
                      {r.outcome} ({r.status})
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {k.state === 'active' ? (
        <section class="card" aria-labelledby="grant-title">
          <h2 id="grant-title">Change what it may do</h2>
          <p class="muted">The next call with the key reads the new grant; the key itself stays the same.</p>
          <form method="post" action={`/keys/${k.id}`}>
            <input type="hidden" name="csrf" value={csrf} />
            <LevelChoice level={k.level} />
            <ReachChoice containers={containers} allViews={k.all_views} ticked={k.containers} />
            <fieldset>
              <legend>Profile</legend>
              <label class="tick">
                <input type="checkbox" name="profile" value="on" checked={k.profile} />
                <span>Profile access</span>
              </label>
            </fieldset>
            <div class="actions">
              <button type="submit" class="primary">
                Save changes
              </button>
            </div>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}

const CHART_DAYS = 14;

/** Calls per day over the last two weeks, refused calls stacked in the danger colour; no script. */
function UsageChart({ perDay, today }: { perDay: UsageView['per_day']; today: string }) {
  const end = Date.parse(`${today}T00:00:00Z`);
  const days = Array.from({ length: CHART_DAYS }, (_, i) =>
    new Date(end - (CHART_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
  const byDay = new Map(perDay.map((d) => [d.day, d]));
  const max = Math.max(1, ...days.map((d) => byDay.get(d)?.calls ?? 0));
  const w = 20;
  const h = 80;
  const label = days
    .map((d) => `${d}: ${byDay.get(d)?.calls ?? 0} calls, ${byDay.get(d)?.refused ?? 0} refused`)
    .join('; ');
  return (
    <svg
      class="chart"
      id="usage-chart"
      viewBox={`0 0 ${CHART_DAYS * w} ${h + 14}`}
      role="img"
      aria-label={`Calls per day. ${label}`}
    >
      {days.map((d, i) => {
        const row = byDay.get(d);
        const total = ((row?.calls ?? 0) / max) * h;
        const refused = ((row?.refused ?? 0) / max) * h;
        return (
          <g>
            <title>{`${d}: ${row?.calls ?? 0} calls, ${row?.refused ?? 0} refused`}</title>
            <rect x={i * w + 3} y={h - total} width={w - 6} height={total} fill="currentColor" />
            {refused > 0 ? <rect class="refused" x={i * w + 3} y={h - refused} width={w - 6} height={refused} /> : null}
            {i % 7 === 6 || i === 0 ? (
              <text x={i * w + 1} y={h + 12}>
                {d.slice(5)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}
