// The artefacts derived from the code: the OpenAPI document, the README's tool table and the tool snapshot.

import { describeTool, mcpTools } from '../mcp/server.ts';
import { openApiDocument } from '../rest/openapi.ts';
import { routes } from '../rest/routes.ts';

interface PropertySchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  items?: { type?: string };
  anyOf?: PropertySchema[];
}

function typeName(p: PropertySchema): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  if (p.type === 'array') return `array of ${p.items?.type ?? 'object'}`;
  if (Array.isArray(p.type)) return p.type.join(' \\| ');
  if (p.anyOf) return p.anyOf.map(typeName).join(' \\| ');
  return p.type ?? 'any';
}

export function toolTable(): string {
  const lines = ['| Tool | Parameters | What it is for |', '|---|---|---|'];
  for (const tool of mcpTools({ writeTools: true })) {
    const d = describeTool(tool);
    const schema = d.inputSchema as { properties?: Record<string, PropertySchema>; required?: string[] };
    const required = new Set(schema.required ?? []);
    const params = Object.entries(schema.properties ?? {}).map(([name, p]) => {
      const flags = [
        required.has(name) && p.default === undefined ? 'required' : '',
        p.default !== undefined ? `default ${JSON.stringify(p.default)}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      return `\`${name}\` ${typeName(p)}${flags ? ` (${flags})` : ''}`;
    });
    const firstSentence = tool.description.split(/(?<=\.)\s/)[0] ?? tool.description;
    const write = tool.write ? ' *(write; in the `writes` toolset, with `MCP_WRITE_TOOLS=true`)*' : '';
    lines.push(`| \`${tool.name}\` | ${params.join('<br>') || '—'} | ${firstSentence}${write} |`);
  }
  return lines.join('\n');
}

export function toolSnapshot(): string {
  const tools = mcpTools({ writeTools: true }).map(describeTool);
  return `${JSON.stringify(tools, null, 2)}\n`;
}

export function openApiText(): string {
  return `${JSON.stringify(openApiDocument(routes, 'http://127.0.0.1:8000'), null, 2)}\n`;
}
