import { z } from 'zod';
import { groundedAnswer } from '../../agent/grounded-answer';
import { requireModel } from '../../language-model/model-client';
import { containersInReach } from '../../auth/access';
import { ServiceError } from '../../errors';
import { hitsReturned } from '../calls/access-items';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toAnswer } from '../shapes';
import { LIMITS, text } from '../../limits';

const ASK_SYSTEM = 'You answer questions about a person from their own memory, on their behalf.';

export const askAgent = defineOperation({
  name: 'ask_agent',
  description:
    "Ask the person's shared agent a question. It answers from passages of the shared containers and cites them; when the memory holds no answer it says so.",
  access: 'read',
  output: S.AskAnswer,
  accessed: (r) => hitsReturned(r.citations),
  input: z.object({
    message: text(LIMITS.queryBytes).describe('The question, in natural language.'),
    model: z
      .string()
      .max(200)
      .nullish()
      .describe(
        "The model to answer with: one the server offers (its own, or one of ENGRAM_ASK_MODELS); absent, the server's own.",
      ),
  }),
  async run(ctx, input) {
    if (!input.message.trim())
      throw new ServiceError('validation', 'message must not be empty.', { fields: ['message'] });
    const model = requireModel(ctx.model).forAsk(input.model);
    const turn = { search: ctx.search, accountId: ctx.caller.accountId, traceId: ctx.traceId };
    return ctx.turns.run(ctx.caller.accountId, async () =>
      toAnswer(
        await groundedAnswer(
          turn,
          model,
          await containersInReach(ctx),
          input.message,
          ASK_SYSTEM,
          `Question: ${input.message}`,
        ),
      ),
    );
  },
});
