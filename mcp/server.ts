import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  type Tool as McpTool,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { z } from 'zod';
import { BoundedMap } from '../core/bounded-map.ts';
import type { OAuthScope, Principal } from '../core/principal.ts';
import { mcpInput, mcpOutput, present, splitFormat } from '../tools/concise.ts';
import type { ToolContext } from '../tools/context.ts';
import type { AnyTool } from '../tools/define.ts';
import { ToolError } from '../tools/errors.ts';
import { inToolsets, registry, toolByName } from '../tools/registry.ts';
import { allowsTool, checkScope, runTool } from '../tools/run.ts';
import { MAX_PER_PAGE } from '../tools/schemas/page.ts';
import { DEFAULT_TOOLSETS, type Toolset } from '../tools/toolsets.ts';
import { boundResult } from '../tools/truncate.ts';
import { listViews, readView } from '../tools/views.ts';
import { compactSchema } from './json-schema.ts';
import { prompts } from './prompts/index.ts';
import { closeObjects } from './strict-input.ts';

export const SERVER_INFO = { name: 'portfolio-data-service', version: '0.1.0' };

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): McpTool['inputSchema'] {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return compactSchema(rest, io) as McpTool['inputSchema'];
}

/** The hints as listed: a read-only tool's destructive and idempotent hints mean nothing to a client (MCP spec), so they are left out. */
function listedAnnotations(tool: AnyTool): McpTool['annotations'] {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
  return readOnlyHint
    ? { readOnlyHint, openWorldHint }
    : { readOnlyHint, destructiveHint, idempotentHint, openWorldHint };
}

/** The fields of a page of results, stated once in the server's instructions rather than on every list. */
const PAGE_FIELDS = ['count', 'page', 'per_page', 'has_more'];

/**
 * What many results share is said once, in the server's instructions (INSTRUCTIONS), not in every tool's
 * listed result: a page's count, page, per_page and has_more, a concise list's same_in_every_result, and the
 * truncated field of a cut result (tools/truncate.ts). A result's schema stays open, so each still holds.
 */
function outputSchema(tool: AnyTool): McpTool['outputSchema'] {
  const schema = jsonSchema(mcpOutput(tool), 'output') as { properties?: Record<string, unknown> };
  const properties = { ...schema.properties };
  if (PAGE_FIELDS.every((f) => f in properties) && 'results' in properties)
    for (const f of PAGE_FIELDS) delete properties[f];
  delete properties.same_in_every_result;
  return { ...schema, properties } as unknown as McpTool['outputSchema'];
}

/** The server's instructions: what every tool shares, said once instead of in each listing. */
const INSTRUCTIONS =
  'Portfolio data of one investment firm: companies, metrics, budgets, documents, notes, custom ' +
  'columns, information requests and reports, funds, users and cap tables. Start with ' +
  'list_companies or search_companies to find company ids. Reads answer concisely; response_format ' +
  'detailed adds data-point ids (for update_metric, delete_metric), audit times and sources. ' +
  'A paged list (page, per_page) also answers count (over all pages), page, per_page and has_more; concise lists ' +
  'state a field that is the same in every result once, in same_in_every_result. A result cut to fit ' +
  'its size carries truncated: what was left out and how to ask for it.';

export function describeTool(tool: AnyTool): McpTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(mcpInput(tool), 'input'),
    outputSchema: outputSchema(tool),
    annotations: listedAnnotations(tool),
    // MCP Apps hosts read ui.resourceUri; ChatGPT reads openai/outputTemplate.
    ...(tool.ui && {
      _meta: { ui: { resourceUri: tool.ui.resourceUri }, 'openai/outputTemplate': tool.ui.resourceUri },
    }),
  };
}

/**
 * The tools an MCP client sees: reads always, writes only when the operator turned them on; of
 * those, the ones in the chosen toolsets (all of them when none are given) and the ones the token's
 * scopes allow (all of them when no scopes are given).
 */
export function mcpTools(options: {
  writeTools: boolean;
  scopes?: readonly OAuthScope[];
  tools?: readonly AnyTool[];
  toolsets?: readonly Toolset[];
}): AnyTool[] {
  return (options.tools ?? registry).filter(
    (t) =>
      t.mcp !== false &&
      (!t.write || options.writeTools) &&
      (!options.toolsets || inToolsets(t, options.toolsets)) &&
      (!options.scopes || allowsTool({ scopes: options.scopes }, t)),
  );
}

/**
 * Refuses, before any work, a tools/call of a tool the operator lists but the token's scopes do not
 * allow: the InsufficientScope error becomes an HTTP 403 whose challenge names the scope to ask for.
 */
export function checkMcpCallScope(
  body: unknown,
  principal: Principal,
  options: Pick<McpOptions, 'writeTools' | 'toolsets'>,
): void {
  const message = body as { method?: unknown; params?: { name?: unknown } } | null;
  if (!message || typeof message !== 'object' || message.method !== 'tools/call') return;
  // One lookup by name, not a filtered copy of the registry on every request.
  const tool = toolByName(String(message.params?.name));
  if (
    tool &&
    tool.mcp !== false &&
    (!tool.write || options.writeTools) &&
    inToolsets(tool, options.toolsets ?? DEFAULT_TOOLSETS)
  )
    checkScope(tool, principal);
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function describeError(err: ToolError): string {
  // Field errors the message already states are not repeated.
  const unsaid = err.errors.filter((e) => !err.message.includes(e.message));
  const fields = unsaid.length
    ? ` Fields: ${unsaid.map((e) => `${e.field} (${e.message})`).join(', ')}.`
    : '';
  return `${err.message}.${fields}`.replace(/\.\./g, '.');
}

/**
 * A JSON-RPC error whose message goes out as written: the client adds its own "MCP error <code>:"
 * prefix, so an McpError (which already carries one) would arrive with it twice.
 */
function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A per_page above the maximum is lowered to it, as REST does, with a note saying so. */
function clampPerPage(
  tool: AnyTool,
  raw: Record<string, unknown>,
): { args: Record<string, unknown>; note?: string } {
  const perPage = raw.per_page;
  if (!('per_page' in tool.input.shape) || typeof perPage !== 'number' || perPage <= MAX_PER_PAGE)
    return { args: raw };
  return {
    args: { ...raw, per_page: MAX_PER_PAGE },
    note: `per_page ${perPage} is above the maximum of ${MAX_PER_PAGE}; this answer used per_page=${MAX_PER_PAGE}.`,
  };
}

export interface McpOptions {
  writeTools: boolean;
  /** Validates every result against its output schema (tests); production skips the cost. */
  validateOutput?: boolean;
  /** The tools to serve; the registry unless a test brings its own table. */
  tools?: readonly AnyTool[];
  /** The toolsets listed (see tools/toolsets.ts); every read toolset unless chosen. */
  toolsets?: readonly Toolset[];
}

interface Catalog {
  byName: Map<string, AnyTool>;
  /** The tools/list answer, described on the first listing (a call needs only the tools). */
  listing(): { tools: McpTool[] };
}

const closedTools = new WeakMap<AnyTool, AnyTool>();

/** The tool as an MCP call runs it: an unknown field anywhere in the input is an error naming it. */
function closedTool(tool: AnyTool): AnyTool {
  let closed = closedTools.get(tool);
  if (!closed) {
    closed = { ...tool, input: closeObjects(tool.input) };
    closedTools.set(tool, closed);
  }
  return closed;
}

const catalogs = new WeakMap<readonly AnyTool[], BoundedMap<string, Catalog>>();

/** Catalogs kept per tool table: a few write-tool, scope and toolset combinations are in use at once. */
const CATALOGS_KEPT = 64;

/**
 * The listed tools and their JSON Schemas (tens of milliseconds to build): once per process, tool
 * table and combination of write tools, scopes and toolsets in use, not per request.
 */
function catalog(options: McpOptions, scopes: readonly OAuthScope[]): Catalog {
  const { writeTools, toolsets = DEFAULT_TOOLSETS } = options;
  const table = options.tools ?? registry;
  const byTable = catalogs.get(table) ?? new BoundedMap<string, Catalog>(CATALOGS_KEPT);
  catalogs.set(table, byTable);
  const key = `${writeTools}:${scopes.join(' ')}:${toolsets.join(',')}`;
  let found = byTable.get(key);
  if (!found) {
    const tools = mcpTools({ writeTools, scopes, tools: table, toolsets });
    let described: { tools: McpTool[] } | undefined;
    found = {
      byName: new Map(tools.map((t) => [t.name, closedTool(t)])),
      listing() {
        described ??= { tools: tools.map(describeTool) };
        return described;
      },
    };
    byTable.set(key, found);
  }
  return found;
}

/**
 * The SDK builds an Ajv instance (with its formats) for every server unless given one; a server is
 * built per request, so they share this one.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** An MCP server bound to one request's context; stateless, so one is built per request. */
export function createMcpServer(ctx: ToolContext, options: McpOptions): Server {
  const { byName, listing } = catalog(options, ctx.principal.scopes);
  const server = new Server(SERVER_INFO, {
    jsonSchemaValidator,
    capabilities: {
      tools: { listChanged: false },
      prompts: { listChanged: false },
      resources: { listChanged: false },
    },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => listing());
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: prompts.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args,
    })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
    const prompt = prompts.find((p) => p.name === request.params.name);
    if (!prompt) {
      const known = prompts.map((p) => p.name).join(', ');
      throw rpcError(
        ErrorCode.InvalidParams,
        `unknown prompt ${request.params.name}; the prompts are ${known}`,
      );
    }
    const args = request.params.arguments ?? {};
    const missing = prompt.arguments.filter((a) => a.required && !args[a.name]?.trim()).map((a) => a.name);
    if (missing.length > 0) {
      throw rpcError(ErrorCode.InvalidParams, `prompt ${prompt.name} needs ${missing.join(' and ')}`);
    }
    return {
      description: prompt.description,
      messages: [{ role: 'user', content: { type: 'text', text: prompt.text(args) } }],
    };
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: listViews() }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const view = await readView(request.params.uri);
    // -32002: the MCP spec's code for an unknown resource.
    if (!view) throw rpcError(-32002, `unknown resource ${request.params.uri}; call resources/list`);
    return { contents: [view] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw rpcError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}; call tools/list`);
    }
    return callTool(ctx, options, tool, request.params.arguments ?? {});
  });
  return server;
}

/** One tool call's result: a tool's refusal or failure is a result with isError, as MCP asks. */
async function callTool(
  ctx: ToolContext,
  options: McpOptions,
  tool: AnyTool,
  raw: Record<string, unknown>,
): Promise<CallToolResult> {
  try {
    const { format, args: toolArgs } = splitFormat(tool, raw);
    const { args, note } = clampPerPage(tool, toolArgs);
    const result = await runTool(tool, ctx, args);
    const detailed = (options.validateOutput ? tool.output.parse(result) : result) as Record<string, unknown>;
    const structured = present(tool, detailed, args, format);
    const bounded = boundResult(structured, { name: tool.name, params: Object.keys(tool.input.shape) });
    if (note) bounded.content.push({ type: 'text', text: note });
    return bounded as CallToolResult;
  } catch (err) {
    if (err instanceof ToolError) return errorResult(describeError(err));
    ctx.logger.error('tool failed', { tool: tool.name, error: String((err as Error)?.stack ?? err) });
    return errorResult(`internal error while running ${tool.name} (request id ${ctx.requestId}); try again`);
  }
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
