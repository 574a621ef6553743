import type { z } from 'zod';
import type { ToolContext } from './context.ts';
import type { FileUpload } from './schemas/upload.ts';
import type { ReadToolset } from './toolsets.ts';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a caller needs beyond a valid token; checked before the handler runs. */
export type Permission =
  | 'documents'
  | 'cap_table'
  | 'edit_metrics'
  | 'edit_companies'
  | 'add_documents'
  | 'review_documents'
  | 'manage_webhooks'
  | 'manage_firm_settings'
  | 'edit_alert_rules'
  | 'edit_information_requests';

/**
 * A REST route over a tool, stated as plain data beside the tool; rest/routes.ts turns the registry's
 * routes into handlers and the OpenAPI document.
 */
export interface ToolRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Express path, with `:name` for path parameters. */
  path: string;
  summary: string;
  /** Query (or path) parameter name → tool input name, where they differ. */
  rename?: Record<string, string>;
  /** Where the input comes from besides the query: a JSON body merged into it, or one field. */
  body?: 'merge' | { field: string };
  /** `page`: the v1 envelope; `plain` (the default): the result as is; `results`: only its `results` array. */
  envelope?: 'page' | 'plain' | 'results';
  status?: number;
  /**
   * Input fields of which the route needs at least one, where the tool takes them as optional (the
   * notes listing needs a company on REST; over MCP it lists every company's notes without one).
   */
  requireOneOf?: readonly string[];
  /** The largest JSON body this route accepts, where it must exceed the general 1 MiB (e.g. '16mb'). */
  bodyLimit?: string;
  /** Input values the route supplies when the request leaves them out, where REST keeps a default MCP does not. */
  defaults?: Record<string, unknown>;
  /**
   * Input fields the route takes in its own, narrower form (a REST spec's own values): schemas that
   * replace the tool's for calls through the route, giving the handler the tool's type.
   */
  narrower?: Readonly<Record<string, z.ZodType>>;
  /** Fields of the tool's result a page route keeps beside the envelope's, when the result has them. */
  alongside?: readonly string[];
  /** Fields of each result row that only MCP answers carry: the REST rows keep the reference shape. */
  mcpOnly?: readonly string[];
  /** A multipart/form-data body with one file, given to the tool in `upload.field`; other form fields map like query parameters. */
  upload?: FileUpload;
}

/** How a tool was called: over one of its REST routes, or (no route) over MCP or a page. */
export interface ToolCall {
  route?: ToolRoute;
}

/** The REST name of the page size: `page_size` is the tool's `per_page`. */
export const restPaging: Readonly<Record<string, string>> = { page_size: 'per_page' };

export interface Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  permission?: Permission;
  /** Writes are listed over MCP only when MCP_WRITE_TOOLS is on. */
  write?: boolean;
  /** False for tools that exist only to serve a REST route (they are not listed over MCP). */
  mcp?: boolean;
  /** The MCP Apps view (a `ui://` resource, see tools/views.ts) a host may show with this tool's result. */
  ui?: { resourceUri: string };
  /** The REST routes that call this tool, in the order they are matched (see rest/routes.ts). */
  routes?: readonly ToolRoute[];
  /** The domain the tool's registry entry is under (set by toolTable in tools/registry.ts), its toolset. */
  toolset?: ReadToolset;
  /** `call.route` is the REST route being served, where the call came through one (see rest/adapter.ts). */
  handler(ctx: ToolContext, input: z.output<I>, call?: ToolCall): Promise<z.input<O>>;
  /** A read's concise result over MCP (the default there), from its detailed one; see tools/concise.ts. */
  concise?(output: z.output<O>, input: z.output<I>): Record<string, unknown>;
  /** The fields the concise result has that the detailed one does not, listed as optional. */
  conciseOutput?: z.ZodObject;
}

export const readOnly: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export function defineTool<I extends z.ZodObject, O extends z.ZodType>(tool: Tool<I, O>): Tool<I, O> {
  return tool;
}

export type AnyTool = Tool<z.ZodObject, z.ZodType>;
