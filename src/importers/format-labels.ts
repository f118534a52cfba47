/**
 * The formats an import reads, by the name `--from` takes, with how the person knows each. Apart
 * from the importers themselves (formats.ts), so that `engram --help` loads none of them.
 */
export const IMPORT_FORMAT_LABELS = {
  engram: 'an Engram export (engram export)',
  chatgpt: "ChatGPT's export archive (.zip), or its conversations.json",
  claude: "Claude's export archive (.zip), or its conversations.json or projects.json",
  'mcp-memory': "the MCP memory server's memory.jsonl (or memory.json)",
  markdown: 'a folder of Markdown notes (Obsidian, basic-memory), or a zip of one',
} as const;

export type ImportFormatName = keyof typeof IMPORT_FORMAT_LABELS;

export const FORMAT_NAMES = Object.keys(IMPORT_FORMAT_LABELS) as [ImportFormatName, ...ImportFormatName[]];
