/**
 * The MCP prompts, the same under every protocol revision: commands a person picks in a client.
 * `recall` searches the containers in reach and hands the model what it found; `save_decisions`
 * asks the model to save what the conversation decided with add_memory. Each is offered only to a
 * caller that holds the tool it uses, and its arguments are checked before anything runs.
 */
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { refuseContainer } from '../auth/access';
import { ServiceError } from '../errors';
import { LIMITS, text } from '../limits';
import { addMemory, listContainers, searchMemories } from '../operations';
import { type Context, invoke, isOffered, type Operation, parseInput } from '../operations/operation';
import { counted } from './resources';
import { failureOf } from './rpc-errors';

interface PromptDefinition {
  prompt: Prompt;
  /** The tool the prompt uses: it is offered only to a caller holding it. */
  uses: Operation;
  /** Its arguments, all strings as MCP sends them; an unknown one is refused. */
  args: z.ZodObject;
  messages(ctx: Context, args: Record<string, string | undefined>): Promise<string>;
}

/** How many passages `recall` hands the model. */
const RECALLED = 10;

const PROMPTS: readonly PromptDefinition[] = [
  {
    prompt: {
      name: 'recall',
      title: 'Recall from memory',
      description: 'What the memory holds about a subject: the most relevant passages from every container in reach.',
      arguments: [{ name: 'subject', description: 'What to recall, in natural language.', required: true }],
    },
    uses: searchMemories,
    args: z.strictObject({
      subject: text(LIMITS.queryBytes).refine((s) => s.trim() !== '', { message: 'must not be empty' }),
    }),
    messages: recall,
  },
  {
    prompt: {
      name: 'save_decisions',
      title: 'Save what we decided',
      description: 'Asks the model to save what this conversation decided to the memory, one fact per decision.',
      arguments: [
        {
          name: 'container',
          description: 'The id of the container to save into; without it, the model picks among those in reach.',
          required: false,
        },
      ],
    },
    uses: addMemory,
    args: z.strictObject({ container: z.string().max(100).optional() }),
    messages: saveDecisions,
  },
];

/** The prompts a caller is offered, in order. */
export function listPrompts(ctx: Context): Prompt[] {
  return PROMPTS.filter((p) => isOffered(p.uses, ctx.caller)).map((p) => p.prompt);
}

/**
 * A prompt's messages for a caller. A prompt not offered is refused as one that does not exist;
 * arguments that do not fit, a container outside reach and any other refusal are -32602 with the
 * envelope's fields as `data`.
 */
export async function getPrompt(
  ctx: Context,
  name: string,
  args: Record<string, unknown> = {},
): Promise<GetPromptResult> {
  try {
    const found = PROMPTS.find((p) => p.prompt.name === name && isOffered(p.uses, ctx.caller));
    if (!found) throw new ServiceError('not_found', `No prompt named ${name}.`, { prompt: name });
    // Every argument schema holds strings only (MCP sends prompt arguments as strings).
    const text = await found.messages(ctx, parseInput(found.args, args) as Record<string, string | undefined>);
    return { description: found.prompt.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
  } catch (err) {
    throw failureOf(ctx, err, { prompt: name });
  }
}

async function recall(ctx: Context, args: Record<string, string | undefined>): Promise<string> {
  const subject = args.subject!.trim();
  const found = await invoke(counted(searchMemories), ctx, { q: subject, container: '*', limit: RECALLED });
  const failed = found.containers.filter((c) => c.error);
  const lines = [
    found.results.length
      ? `Here is what my memory (Engram) holds about "${subject}", most relevant first:`
      : `My memory (Engram) holds nothing about "${subject}" in the containers you may search (${found.containers.map((c) => c.name).join(', ') || 'none'}).`,
    ...found.results.map(
      (hit, i) =>
        `${i + 1}. [${hit.container_name}] ${hit.content}${hit.document_id ? ` (document ${hit.document_id})` : ''}`,
    ),
    ...failed.map((c) => `The search failed in ${c.name} (${c.error!.message}): what it holds there is unknown.`),
    '',
    found.results.length
      ? 'Use these where they help, say which you relied on, and say so where they do not cover it. They are passages, not answers: check them against each other.'
      : 'Say so rather than guess.',
  ];
  return lines.join('\n');
}

async function saveDecisions(ctx: Context, args: Record<string, string | undefined>): Promise<string> {
  const { containers } = await invoke(counted(listContainers), ctx, {});
  const named = args.container ? containers.find((c) => c.id === args.container) : undefined;
  if (args.container && !named) throw refuseContainer(args.container);
  if (containers.length === 0) throw new ServiceError('validation', 'No container is in reach of this credential.');
  const only = named ?? (containers.length === 1 ? containers[0] : undefined);
  const where = only
    ? `with container "${only.id}" (${only.name})`
    : `with the container each belongs in, one of:\n${containers.map((c) => `- "${c.id}": ${c.name}${c.description ? `, ${c.description}` : ''}`).join('\n')}`;
  return [
    'Summarize what this conversation decided: each decision, agreement or lasting conclusion, in a sentence or two that will make sense later without the conversation (who, what, by when). Leave out what was only discussed and not settled.',
    `Then save each one with the add_memory tool, content set to that sentence, ${where}`,
    'Tell me what you saved. If nothing was decided, say so and save nothing.',
  ].join('\n\n');
}
