/** Store rows → the wire shapes of `schemas.ts`. */
import type { z } from 'zod';
import { DAY_MS, iso } from '../clock';
import type { GroundedAnswer } from '../agent/grounded-answer';
import type { SearchHit, SearchResult } from '../search/search-engine';
import type {
  Container as ContainerRow,
  Credential,
  DocumentRow,
  Share,
  Fact,
  Rule as RuleRow,
} from '../storage/store';
import type * as S from './schemas';

export const toContainer = (c: ContainerRow): z.infer<typeof S.Container> => ({
  id: c.id,
  name: c.name,
  description: c.description,
  created_at: iso(c.createdAt)!,
  learns_into_profile: c.learnsIntoProfile,
});

export const toFact = (m: Fact): z.infer<typeof S.Fact> => ({
  id: m.id,
  content: m.content,
  title: m.title,
  static: m.static,
  container: m.containerId,
  created_at: iso(m.createdAt)!,
  updated_at: iso(m.updatedAt)!,
  ...(m.sourceDocumentId ? { source: { document_id: m.sourceDocumentId, position: m.sourcePosition ?? 0 } } : {}),
  ...(m.reviewedAt != null ? { reviewed_at: iso(m.reviewedAt)! } : {}),
});

export function toDocument(d: DocumentRow, withContent: boolean): z.infer<typeof S.Document> {
  return {
    id: d.id,
    container: d.containerId,
    title: d.title,
    ...(withContent ? { content: d.content } : {}),
    url: d.url,
    custom_id: d.customId,
    metadata: d.metadata,
    status: d.status,
    learned: d.status === 'learned',
    error: d.error,
    created_at: iso(d.createdAt)!,
    updated_at: iso(d.updatedAt)!,
  };
}

export const toRule = (r: RuleRow): z.infer<typeof S.Rule> => ({
  id: r.id,
  text: r.text,
  scope: r.credentialId ? 'credential' : 'account',
  credential_id: r.credentialId,
  created_at: iso(r.createdAt)!,
});

type TokenState = 'active' | 'expired' | 'revoked';

/** Where a key or a share stands: revoked, past its expiry, or active (the same rules for both). */
export function keyState(k: Pick<Credential, 'revokedAt' | 'expiresAt'>, now: number): TokenState {
  if (k.revokedAt != null) return 'revoked';
  return k.expiresAt != null && k.expiresAt <= now ? 'expired' : 'active';
}

/** How long a revoked key or share stays listed (docs/protocol.md, "Limits"). */
const REVOKED_LISTED_MS = 30 * DAY_MS;

/** Keys or shares grouped as the owner sees them: Active, Expired, and Revoked for thirty days. */
export function byState<R extends Pick<Credential, 'revokedAt' | 'expiresAt'>, V>(
  rows: R[],
  now: number,
  view: (r: R) => V,
): Record<TokenState, V[]> {
  const groups: Record<TokenState, V[]> = { active: [], expired: [], revoked: [] };
  for (const row of rows) {
    const state = keyState(row, now);
    if (state === 'revoked' && row.revokedAt! < now - REVOKED_LISTED_MS) continue;
    groups[state].push(view(row));
  }
  return groups;
}

export const toKey = (k: Credential, now: number): z.infer<typeof S.Key> => ({
  id: k.id,
  name: k.name,
  level: k.level,
  containers: k.allContainers ? [] : k.containerIds,
  all_views: k.allContainers,
  profile: k.profile,
  expires_in_days: k.expiresInDays,
  expires_at: iso(k.expiresAt),
  created_at: iso(k.createdAt)!,
  revoked_at: iso(k.revokedAt),
  replaces: k.replaces,
  hint: k.hint,
  last_used_at: iso(k.lastUsedAt),
  state: keyState(k, now),
});

export const confirmation = (verb: string, how: string): z.infer<typeof S.ConfirmationRequest> => ({
  status: 'confirmation_required',
  verb,
  how,
});

export const toShare = (e: Share, now: number): z.infer<typeof S.Share> => ({
  id: e.id,
  kind: e.kind,
  name: e.name,
  instruction: e.instruction,
  containers: e.containerIds,
  hint: e.hint,
  created_at: iso(e.createdAt)!,
  expires_at: iso(e.expiresAt),
  revoked_at: iso(e.revokedAt),
  state: keyState(e, now),
});

export const toSearchHit = (h: SearchHit): z.infer<typeof S.SearchHit> => ({
  container: h.containerId,
  container_name: h.container.name,
  content: h.content,
  score: h.score,
  document_id: h.documentId,
  memory_id: h.memoryId,
  custom_id: h.customId,
  title: h.title,
  position: h.position,
  ...(h.source
    ? { source: { document_id: h.source.documentId, custom_id: h.source.customId, passage: h.source.position } }
    : {}),
});

/**
 * A search's answer as the contract gives it (docs/protocol.md, "Resources"): the hits, and each container searched, with an error
 * where its search failed.
 */
export const toSearchResponse = (r: SearchResult): z.infer<typeof S.SearchResponse> => ({
  results: r.hits.map(toSearchHit),
  containers: r.containers.map(({ container, failed }) => ({
    id: container.id,
    name: container.name,
    ...(failed ? { error: { code: 'internal', message: 'Searching this container failed.' } } : {}),
  })),
});

/** A grounded turn's answer (ask, a workflow) with the passages it cites. */
export const toAnswer = (a: GroundedAnswer): z.infer<typeof S.AskAnswer> => ({
  answer: a.answer,
  answered: a.answered,
  citations: a.citations.map(({ n, hit }) => ({
    n,
    container: hit.containerId,
    container_name: hit.container.name,
    document_id: hit.documentId,
    memory_id: hit.memoryId,
    title: hit.title,
    content: hit.content,
  })),
});
