/**
 * What an operation's answer held or changed, as access-log items (ids only): the shared readers
 * of answer shapes that several operations return. Each operation names its own in `accessed`.
 */
import type { AccessItem } from '../../storage/store';

type Hit = { container: string; document_id: string | null; memory_id: string | null; position?: number };
type FactShape = { id: string; container: string | null };

/** Search hits (a search, a profile's `results`, an answer's citations): the passage's document, or the fact. */
export const hitsReturned = (hits: readonly Hit[]): AccessItem[] =>
  hits.flatMap((h): AccessItem[] => {
    if (h.memory_id) return [{ action: 'returned', kind: 'fact', id: h.memory_id, container: h.container }];
    if (h.document_id)
      return [
        {
          action: 'returned',
          kind: 'document',
          id: h.document_id,
          container: h.container,
          ...(h.position == null ? {} : { position: h.position }),
        },
      ];
    return [];
  });

/** Facts as a profile serves them: standing facts are profile entries, the rest facts of a container. */
export const factsReturned = (facts: readonly FactShape[]): AccessItem[] =>
  facts.map((f) => ({
    action: 'returned',
    kind: f.container == null ? 'profile' : 'fact',
    id: f.id,
    container: f.container,
  }));

/** One fact made or changed by the call. */
export const factWritten = (f: FactShape): AccessItem[] => [
  { action: 'written', kind: f.container == null ? 'profile' : 'fact', id: f.id, container: f.container },
];
