/**
 * What a delete takes with it, in words and in the answer's counts: shared by delete_document and
 * delete_container, the owner's confirmation pages, and the confirmation request an app relays.
 */
import type { z } from 'zod';
import { ServiceError } from '../../errors';
import { forgetDocument } from '../../learning/exchange';
import type { ForgetTarget, ForgettingDone, ForgettingPlan } from '../../storage/store';
import type { Context } from '../operation';
import type * as S from '../schemas';

/** "1 passage", "12 passages". */
const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The plan of deleting the target now; a target gone meanwhile is 404. */
export async function planFor(ctx: Context, target: ForgetTarget): Promise<ForgettingPlan> {
  const plan = await ctx.store.forgetting.plan(ctx.caller.accountId, target);
  if (!plan) throw gone(target);
  return plan;
}

/**
 * Deletes the target with everything learned from it in one transaction, the reviewed facts named
 * in `alsoForget` too (the others are kept), a document's words from the chat turns beside it,
 * drops its passages from the search indexes, and gives
 * the answer's counts.
 */
export async function forgetTarget(
  ctx: Context,
  target: ForgetTarget,
  alsoForget: string[] = [],
): Promise<z.infer<typeof S.Forgotten>> {
  const done: ForgettingDone | null =
    'documentId' in target
      ? await forgetDocument(ctx.store, ctx.caller.accountId, target.documentId, alsoForget)
      : await ctx.store.forgetting.forget(ctx.caller.accountId, target, alsoForget);
  if (!done) throw gone(target);
  ctx.indexes.forgetPassages(done.passageIds);
  return {
    forgotten: { documents: done.documents, passages: done.passages, facts: done.facts },
    kept: { facts: done.kept },
  };
}

/** "a", "a and b", "a, b and c". */
const listed = (parts: string[]): string =>
  parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;

/** "the document "Trip", its 12 passages and the 3 facts learned from it": what goes (nothing unsaid is taken). */
export function documentLoss(what: string, plan: ForgettingPlan): string {
  return listed([
    `the document ${what}`,
    ...(plan.passages ? [`its ${counted(plan.passages, 'passage')}`] : []),
    ...(plan.facts.length ? [`the ${counted(plan.facts.length, 'fact')} learned from it`] : []),
  ]);
}

/** "the container "Work", its 4 documents with their 30 passages and the 7 facts in it or learned from it". */
export function containerLoss(what: string, plan: ForgettingPlan): string {
  const passages = plan.passages ? ` with their ${counted(plan.passages, 'passage')}` : '';
  return listed([
    `the container ${what}`,
    ...(plan.documents ? [`its ${counted(plan.documents, 'document')}${passages}`] : []),
    ...(plan.facts.length ? [`the ${counted(plan.facts.length, 'fact')} in it or learned from it`] : []),
  ]);
}

/** " (2 facts learned from it that you confirmed or edited are kept)", or '' when there are none. */
export function keptNote(plan: ForgettingPlan, whose: 'you' | 'the person'): string {
  const n = plan.kept.length;
  return n
    ? ` (${counted(n, 'fact')} learned from it that ${whose} confirmed or edited ${n === 1 ? 'is' : 'are'} kept)`
    : '';
}

const gone = (target: ForgetTarget) =>
  'documentId' in target
    ? new ServiceError('not_found', `No document ${target.documentId}.`, { document_id: target.documentId })
    : new ServiceError('not_found', `No container ${target.containerId}.`, { container: target.containerId });

/**
 * "Deleted, and with it 4 passages and 3 facts. 1 fact you confirmed was kept." (the owner's notice
 * after a delete).
 */
export function forgottenSummary(done: z.infer<typeof S.Forgotten>): string {
  const { documents, passages, facts } = done.forgotten;
  const parts = [
    ...(documents > 1 ? [counted(documents, 'document')] : []),
    ...(passages ? [counted(passages, 'passage')] : []),
    ...(facts ? [counted(facts, 'fact')] : []),
  ];
  const kept = done.kept.facts
    ? ` ${counted(done.kept.facts, 'fact')} you confirmed ${done.kept.facts === 1 ? 'was' : 'were'} kept.`
    : '';
  return `Deleted${parts.length ? `, and with it ${listed(parts)}` : ''}.${kept}`;
}
