/**
 * Retired MCP tool names, still answered for clients that carry them and hidden from tools/list.
 * `memory_view_query` did both listing and searching: with a query it searches, without it lists.
 */
// A Map, not an object literal: a called name is untrusted, and `__proto__` or `toString` must
// find nothing rather than something inherited from Object.prototype.
const RETIRED = new Map<string, (args: Record<string, unknown>) => string>([
  ['memory_view_query', (args) => (typeof args.q === 'string' ? 'search_memories' : 'list_containers')],
  ['memory_list', () => 'list_containers'],
  ['memory_recall', () => 'search_memories'],
  ['memory_remember', () => 'add_memory'],
  ['memory_ingest', () => 'add_document'],
  ['memory_list_sources', () => 'list_documents'],
  ['memory_forget', () => 'delete_document'],
  ['agent_invoke', () => 'ask_agent'],
]);

/** The current tool name for a called name: itself, or its replacement when it is retired. */
export function currentName(name: string, args: Record<string, unknown>): string {
  return RETIRED.get(name)?.(args) ?? name;
}
