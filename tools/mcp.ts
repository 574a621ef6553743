import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolContext } from './context.ts';
import type { AnyTool } from './define.ts';
import { ToolError } from './errors.ts';
import { registry } from './registry.ts';
import { runTool } from './run.ts';
import { boundResult } from './truncate.ts';

export const SERVER_INFO = { name: 'portfolio-data-service', version: '0.1.0' };

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): McpTool['inputSchema'] {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest as McpTool['inputSchema'];
}

export function describeTool(tool: AnyTool): McpTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    outputSchema: jsonSchema(tool.output, 'output') as McpTool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/** The tools an MCP client sees: reads always, writes only when the operator turned them on. */
export function mcpTools(options: { writeTools: boolean; tools?: readonly AnyTool[] }): AnyTool[] {
  return (options.tools ?? registry).filter((t) => t.mcp !== false && (!t.write || options.writeTools));
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function describeError(err: ToolError): string {
  const fields = err.errors.length
    ? ` Fields: ${err.errors.map((e) => `${e.field} (${e.message})`).join(', ')}.`
    : '';
  return `${err.message}.${fields}`.replace(/\.\./g, '.');
}

export interface McpOptions {
  writeTools: boolean;
  /** Validates every result against its output schema (tests); production skips the cost. */
  validateOutput?: boolean;
  /** The tools to serve; the registry unless a test brings its own table. */
  tools?: readonly AnyTool[];
}

interface Catalog {
  byName: Map<string, AnyTool>;
  listing: { tools: McpTool[] };
}

const catalogs = new WeakMap<readonly AnyTool[], Map<boolean, Catalog>>();

/** The listed tools and their JSON Schemas (tens of milliseconds to build): once per process, not per request. */
function catalog(writeTools: boolean, table: readonly AnyTool[]): Catalog {
  const byTable = catalogs.get(table) ?? new Map<boolean, Catalog>();
  catalogs.set(table, byTable);
  let found = byTable.get(writeTools);
  if (!found) {
    const tools = mcpTools({ writeTools, tools: table });
    found = { byName: new Map(tools.map((t) => [t.name, t])), listing: { tools: tools.map(describeTool) } };
    byTable.set(writeTools, found);
  }
  return found;
}

/** An MCP server bound to one request's context; stateless, so one is built per request. */
export function createMcpServer(ctx: ToolContext, options: McpOptions): Server {
  const { byName, listing } = catalog(options.writeTools, options.tools ?? registry);
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions:
      'Portfolio data of one investment firm: companies, metrics, budgets, documents, notes, custom ' +
      'columns, information requests and reports, funds, users and cap tables. Start with ' +
      'list_companies or search_companies to find company ids.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => listing);
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}; call tools/list`);
    }
    try {
      const result = await runTool(tool, ctx, request.params.arguments ?? {});
      const structured = (options.validateOutput ? tool.output.parse(result) : result) as Record<
        string,
        unknown
      >;
      return boundResult(structured, tool.name) as CallToolResult;
    } catch (err) {
      if (err instanceof ToolError) return errorResult(describeError(err));
      ctx.logger.error('tool failed', { tool: tool.name, error: String((err as Error)?.stack ?? err) });
      return errorResult(
        `internal error while running ${tool.name} (request id ${ctx.requestId}); try again`,
      );
    }
  });
  return server;
}

/** Serves one Streamable HTTP request statelessly: a fresh server and transport, closed with the response. */
export async function handleMcpRequest(
  ctx: ToolContext,
  options: McpOptions,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const server = createMcpServer(ctx, options);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport as Transport);
  await transport.handleRequest(req, res, body);
}

/** Serves the same tools over stdio until the client closes stdin (for clients that launch a command). */
export async function serveMcpStdio(ctx: ToolContext, options: McpOptions): Promise<void> {
  const server = createMcpServer(ctx, options);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  await closed;
}
