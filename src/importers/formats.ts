/**
 * Each format's importer: how a source of it is opened (format-labels.ts names them). Each is
 * loaded when used, so importing an Engram export loads no zip, YAML or encoding library.
 */
import type { ImportFormatName } from './format-labels';
import type { ContainerTarget, ImportReader } from './items';

/**
 * Opens the source at `path` (a file, or for Markdown a folder; `label` is what messages call it).
 * `into` is the container the person named, or null for the format's own (one per source).
 */
type Open = (path: string, label: string, into: ContainerTarget | null) => Promise<ImportReader>;

export const IMPORTERS: Record<ImportFormatName, Open> = {
  engram: async (path, label) => (await import('./engram')).openEngramExport(path, label),
  chatgpt: async (path, label, into) => (await import('./chatgpt')).openChatGpt(path, label, into),
  claude: async (path, label, into) => (await import('./claude')).openClaude(path, label, into),
  'mcp-memory': async (path, label, into) => (await import('./mcp-memory')).openMcpMemory(path, label, into),
  markdown: async (path, label, into) => (await import('./markdown')).openMarkdown(path, label, into),
};
