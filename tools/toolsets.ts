/**
 * The toolsets an MCP client (`/mcp?toolsets=…`) or the operator (`MCP_TOOLSETS`) chooses from:
 * one per domain of the registry, holding its read tools, and `writes`, every write tool (listed
 * only when MCP_WRITE_TOOLS is on). Kept apart from the registry so configuration can check names
 * without loading every tool.
 */
export const READ_TOOLSETS = [
  'companies',
  'metrics',
  'budgets',
  'documents',
  'notes',
  'information',
  'firm',
  'funds',
  'analytics',
  'cap_table',
  'alerts',
  'changes',
] as const;

export const TOOLSETS = [...READ_TOOLSETS, 'writes'] as const;

export type ReadToolset = (typeof READ_TOOLSETS)[number];
export type Toolset = (typeof TOOLSETS)[number];

/** What is listed when neither the client nor the operator chose: every read tool. */
export const DEFAULT_TOOLSETS: readonly Toolset[] = READ_TOOLSETS;

const known = new Set<string>(TOOLSETS);

/**
 * A comma-separated list of toolset names, in any case; empty means the default. An unknown name
 * is an error message listing the known ones.
 */
export function parseToolsets(value: string): { toolsets: Toolset[] } | { error: string } {
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) return { toolsets: [...DEFAULT_TOOLSETS] };
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0)
    return {
      error: `unknown toolset${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the toolsets are ${TOOLSETS.join(', ')}`,
    };
  return { toolsets: [...new Set(names)].sort() as Toolset[] };
}
