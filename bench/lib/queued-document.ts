/** A benchmark's document row as an add queues it: text only, no title, URL, custom id or metadata. */
import type { DocumentRow } from '../../src/storage/documents';

export const queuedDocument = (
  d: Pick<DocumentRow, 'id' | 'accountId' | 'containerId' | 'content'>,
  at: number,
): DocumentRow => ({
  ...d,
  title: null,
  url: null,
  customId: null,
  metadata: null,
  status: 'queued',
  error: null,
  createdAt: at,
  updatedAt: at,
  learnedAt: null,
});
