/** Each format's importer: how a source of it is opened (format-labels.ts names them). */
import { openChatGpt } from './chatgpt';
import { openClaude } from './claude';
import { openEngramExport } from './engram';
import type { ImportFormatName } from './format-labels';
import type { ContainerTarget, ImportReader } from './items';
import { openMarkdown } from './markdown';
import { openMcpMemory } from './mcp-memory';

/**
 * Opens the source at `path` (a file, or for Markdown a folder; `label` is what messages call it).
 * `into` is the container the person named, or null for the format's own (one per source).
 */
type Open = (path: string, label: string, into: ContainerTarget | null) => Promise<ImportReader>;

export const IMPORTERS: Record<ImportFormatName, Open> = {
  engram: async (path, label) => openEngramExport(path, label),
  chatgpt: openChatGpt,
  claude: openClaude,
  'mcp-memory': async (path, label, into) => openMcpMemory(path, label, into),
  markdown: openMarkdown,
};
