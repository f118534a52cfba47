/**
 * One fact with its provenance, for the owner's fact page: who saved it or what it was learned
 * from, its earlier wordings, and where it is served (its container, the profile, the keys and apps
 * that can read it).
 */
import { z } from 'zod';
import { iso } from '../../clock';
import { ServiceError } from '../../errors';
import type { Credential, Fact } from '../../storage/store';
import { FORMAT_NAMES, type ImportFormatName } from '../../importers/format-labels';
import { dynamicFacts } from '../search/get-profile';
import type { Context } from '../operation';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { keyState, toFact } from '../shapes';

type Detail = z.infer<typeof S.FactDetail>;

export const getFact = defineOperation({
  name: 'get_fact',
  description:
    'One fact with its provenance: the key that saved it or the document and passage it was learned from, its history, and where it is served.',
  access: 'owner',
  output: S.FactDetail,
  input: z.object({ memory_id: z.string().min(1).max(100) }),
  async run(ctx, input): Promise<Detail> {
    const { accountId } = ctx.caller;
    const fact = await ctx.store.facts.get(accountId, input.memory_id);
    if (!fact) throw new ServiceError('not_found', `No memory ${input.memory_id}.`, { memory_id: input.memory_id });
    return {
      fact: toFact(fact),
      written_by: await writerOf(ctx, fact),
      learned_from: await learnedFrom(ctx, fact),
      source_deleted: !fact.sourceDocumentId && fact.sourcePosition != null,
      imported: await importOf(ctx, fact),
      history: (await ctx.store.facts.listHistory(accountId, fact.id)).map((h) => ({
        content: h.content,
        replaced_at: iso(h.replacedAt)!,
      })),
      served: await servedAt(ctx, fact),
    };
  },
});

/** A key by its name; an app's consent token by the app's registered name. */
async function refOf(ctx: Context, c: Credential): Promise<z.infer<typeof S.FactDetail>['served']['readers'][number]> {
  if (c.kind !== 'consent_token') return { id: c.id, kind: 'key', name: c.name };
  return {
    id: c.clientId ?? c.id,
    kind: 'app',
    name: (c.clientId && (await ctx.store.oauth.getClient(c.clientId))?.name) || c.name,
  };
}

async function writerOf(ctx: Context, fact: Fact): Promise<Detail['written_by']> {
  const credential = fact.writtenBy ? await ctx.store.credentials.get(ctx.caller.accountId, fact.writtenBy) : null;
  return credential ? { ...(await refOf(ctx, credential)), state: keyState(credential, ctx.clock.now()) } : null;
}

async function learnedFrom(ctx: Context, fact: Fact): Promise<Detail['learned_from']> {
  const doc = fact.sourceDocumentId ? await ctx.store.documents.get(ctx.caller.accountId, fact.sourceDocumentId) : null;
  if (!doc) return null;
  const position = fact.sourcePosition ?? 0;
  const passage = (await ctx.store.passages.list(ctx.caller.accountId, doc.id)).find((p) => p.position === position);
  return { document_id: doc.id, title: doc.title ?? doc.url, position, passage: passage?.content ?? null };
}

/** The import that brought the fact: its file, its format (an Engram export's source is the exporting account) and when. */
async function importOf(ctx: Context, fact: Fact): Promise<Detail['imported']> {
  const brought = await ctx.store.importOrigins.of(ctx.caller.accountId, 'fact', fact.id);
  if (!brought) return null;
  const format: ImportFormatName = (FORMAT_NAMES as readonly string[]).includes(brought.source)
    ? (brought.source as ImportFormatName)
    : 'engram';
  return { file: brought.file, format, at: iso(brought.importedAt)! };
}

async function servedAt(ctx: Context, fact: Fact): Promise<Detail['served']> {
  const { accountId } = ctx.caller;
  const containers = await ctx.store.containers.list(accountId);
  const container = containers.find((c) => c.id === fact.containerId) ?? null;
  const recent =
    !fact.static &&
    (
      await dynamicFacts(
        ctx,
        containers.map((c) => c.id),
      )
    ).some((m) => m.id === fact.id);
  const now = ctx.clock.now();
  const live = [
    ...(await ctx.store.credentials.list(accountId)),
    ...(await ctx.store.credentials.list(accountId, 'consent_token')),
  ].filter((c) => keyState(c, now) === 'active');
  // Reach "all" includes containers made later; a standing fact is outside every container and read
  // with the profile tick.
  const reads = (c: Credential) =>
    fact.static ? c.profile : container !== null && (c.allContainers || c.containerIds.includes(container.id));
  const refs = await Promise.all(live.filter(reads).map((c) => refOf(ctx, c)));
  const readers = new Map(refs.map((r) => [`${r.kind}:${r.id}`, r]));
  return {
    container: container && { id: container.id, name: container.name },
    profile: fact.static ? 'static' : recent ? 'dynamic' : null,
    readers: [...readers.values()],
  };
}
