import { z } from 'zod';
import { mergeStaticFact } from '../../agent/merge-static-fact';
import { requireProfile, resolveContainer } from '../../auth/access';
import type { Caller } from '../../auth/caller';
import { ServiceError } from '../../errors';
import { newId } from '../../ids';
import { insertFact } from '../../learning/queue';
import type { Fact } from '../../storage/store';
import { factWritten } from '../calls/access-items';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { LIMITS, text } from '../../limits';
import { containerParam, title } from '../schemas';
import { toFact } from '../shapes';

export const addMemory = defineOperation({
  name: 'add_memory',
  description:
    'Save one fact about the person. static=true saves a standing fact to the profile (merged with what it already holds); otherwise the fact goes to a container.',
  access: 'suggest',
  output: S.Fact,
  accessed: factWritten,
  // A static fact is merged into the profile by the model, when there is one.
  waits: (input) => input.static === true,
  input: z.object({
    content: text(LIMITS.contentBytes).describe('The fact, as the person said it.'),
    container: containerParam,
    static: z.boolean().optional().describe('true: a standing fact about the person, saved to the profile.'),
    title: title.optional(),
  }),
  async run(ctx, input) {
    checkFactContent(input.content);
    // The profile belongs to no container: a static fact needs the profile tick, not reach.
    if (input.static) {
      requireProfile(ctx);
      // A turn (it counts in the account's budget): merged into the profile by the model, if any.
      const turn = { ...ctx, accountId: ctx.caller.accountId, writtenBy: writerOf(ctx.caller) };
      return ctx.turns.run(ctx.caller.accountId, async () =>
        toFact(await mergeStaticFact(turn, input.content, input.title ?? null)),
      );
    }
    const containerId = (await resolveContainer(ctx, input.container)).id;
    const now = ctx.clock.now();
    const memory: Fact = {
      id: newId('mem'),
      accountId: ctx.caller.accountId,
      containerId,
      content: input.content,
      title: input.title ?? null,
      static: false,
      createdAt: now,
      updatedAt: now,
      writtenBy: writerOf(ctx.caller),
    };
    await insertFact(ctx.store, memory);
    return toFact(memory);
  },
});

/** What the input schema cannot say: a fact has words. `engram import` checks it too. */
export function checkFactContent(content: string): void {
  if (!content.trim()) throw new ServiceError('validation', 'content must not be empty.', { fields: ['content'] });
}

/** The credential a fact is saved by (its page names it); null for the owner. */
const writerOf = (caller: Caller): string | null => (caller.kind === 'owner' ? null : caller.grant.credentialId);
