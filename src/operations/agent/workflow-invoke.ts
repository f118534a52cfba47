import { z } from 'zod';
import { groundedAnswer } from '../../agent/grounded-answer';
import { requireModel } from '../../language-model/model-client';
import { containersInReach } from '../../auth/access';
import { ServiceError } from '../../errors';
import { hitsReturned } from '../calls/access-items';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { metadata } from '../schemas';
import { toAnswer } from '../shapes';

export const workflowInvoke = defineOperation({
  name: 'workflow_invoke',
  description:
    'Run the workflow the person exposed: its instruction over its containers, with your input. Returns the result and the passages it cites.',
  access: 'read',
  output: S.WorkflowResult,
  accessed: (r) => hitsReturned(r.citations),
  input: z.object({ input: metadata.describe('The workflow input, as an object.') }),
  async run(ctx, input) {
    const share = ctx.caller.kind === 'share' ? ctx.caller.share : undefined;
    // Held only by a workflow share (holdsTool), so the instruction is always there.
    if (!share?.instruction) throw new ServiceError('unauthorized', 'Only a workflow share can invoke a workflow.');
    const model = requireModel(ctx.model);
    const given = JSON.stringify(input.input);
    const query = [share.instruction, ...Object.values(input.input).filter((v) => typeof v === 'string')]
      .join(' ')
      .slice(0, 4000);
    const system = `You run a workflow the person wrote. Their instruction:\n${share.instruction}`;
    const turn = { search: ctx.search, accountId: ctx.caller.accountId, traceId: ctx.traceId };
    const result = await ctx.turns.run(ctx.caller.accountId, async () =>
      groundedAnswer(turn, model, await containersInReach(ctx), query, system, `Workflow input (JSON): ${given}`),
    );
    return { workflow: share.name, ...toAnswer(result) };
  },
});
