import { z } from 'zod';
import { resolveContainer } from '../../auth/access';
import { ServiceError } from '../../errors';
import { newId } from '../../ids';
import { insertDocument } from '../../learning/queue';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { LIMITS, text } from '../../limits';
import { containerParam, metadata, title } from '../schemas';

export const addDocument = defineOperation({
  name: 'add_document',
  description:
    'Add a document (text content or a public URL) to a container. It lands at once and is learned in the background; it becomes searchable once learned. The same custom_id twice starts nothing.',
  access: 'suggest',
  unlimited: true,
  output: S.AddDocumentResponse,
  accessed: (r) =>
    r.status === 'queued' ? [{ action: 'written', kind: 'document', id: r.id, container: r.container }] : [],
  input: z.object({
    container: containerParam,
    content: text(LIMITS.contentBytes).nullish().describe('The text. Give exactly one of content and url.'),
    url: z
      .string()
      .max(LIMITS.urlChars)
      .nullish()
      .describe('A public http(s) address to read. Give exactly one of content and url.'),
    custom_id: z
      .string()
      .min(1)
      .max(LIMITS.customIdChars)
      .optional()
      .describe("The caller's own id; adding it again is a no-op."),
    metadata: metadata.nullish(),
    title: title.optional(),
  }),
  async run(ctx, input) {
    checkDocumentSource(input);
    const container = await resolveContainer(ctx, input.container);
    const now = ctx.clock.now();
    const { inserted, document } = await insertDocument(ctx.store, {
      id: newId('doc'),
      accountId: ctx.caller.accountId,
      containerId: container.id,
      title: input.title ?? null,
      content: input.content ?? null,
      url: input.url ?? null,
      customId: input.custom_id ?? null,
      metadata: input.metadata ?? null,
      status: 'queued',
      error: null,
      createdAt: now,
      updatedAt: now,
      learnedAt: null,
    });
    if (inserted) ctx.notifyQueued();
    return {
      id: document.id,
      status: inserted ? ('queued' as const) : ('exists' as const),
      container: document.containerId,
      custom_id: document.customId,
    };
  },
});

/**
 * What the input schema cannot say: exactly one of content (not blank) and url (http or https).
 * `engram import` checks it too.
 */
export function checkDocumentSource(input: { content?: string | null; url?: string | null }): void {
  const hasContent = input.content != null;
  const hasUrl = input.url != null;
  if (hasContent === hasUrl)
    throw new ServiceError('validation', 'Give exactly one of content and url.', { fields: ['content', 'url'] });
  if (hasContent && !input.content!.trim())
    throw new ServiceError('validation', 'content must not be empty.', { fields: ['content'] });
  if (hasUrl && !isHttpUrl(input.url!))
    throw new ServiceError('validation', 'url must be an http or https address.', { fields: ['url'] });
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
