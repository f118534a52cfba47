/** @jsxImportSource hono/jsx */
/** Active, expired and revoked tokens, a card each with its table: the key screen's and the shares page's lists. */
import type { Child } from 'hono/jsx';
import { when } from './format';

type State = 'active' | 'expired' | 'revoked';
const TITLE: Record<State, string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

interface Ended {
  id: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface StateSectionsProps<T extends Ended> {
  /** The cards' ids: `${prefix}-active`, ... */
  prefix: string;
  /** After the state in each card's title ("keys" makes "Active keys"); none when absent. */
  noun?: string;
  groups: Record<State, T[]>;
  /** The columns before the date (Revoked or Expires), and after it. */
  head: Child;
  tail?: Child;
  /** One row's cells before the date, and after it. */
  cells(item: T): Child;
  tailCells?(item: T): Child;
  /** The data attribute naming each row's id. */
  rowId: 'data-key-id' | 'data-share-id';
}

export function StateSections<T extends Ended>({
  prefix,
  noun,
  groups,
  head,
  tail,
  cells,
  tailCells,
  rowId,
}: StateSectionsProps<T>) {
  return (
    <>
      {(['active', 'expired', 'revoked'] as const).map((state) => (
        <section class="card" id={`${prefix}-${state}`} aria-labelledby={`${prefix}-${state}-title`}>
          <h2 id={`${prefix}-${state}-title`}>
            {TITLE[state]}
            {noun ? ` ${noun}` : ''}
          </h2>
          {groups[state].length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <div class="table-scroll">
              <table>
                <thead>
                  <tr>
                    {head}
                    <th>{state === 'revoked' ? 'Revoked' : 'Expires'}</th>
                    {tail}
                  </tr>
                </thead>
                <tbody>
                  {groups[state].map((item) => (
                    <tr {...{ [rowId]: item.id }}>
                      {cells(item)}
                      <td>{state === 'revoked' ? when(item.revoked_at) : when(item.expires_at)}</td>
                      {tailCells?.(item)}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
    </>
  );
}
