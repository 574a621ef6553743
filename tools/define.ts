import type { z } from 'zod';
import type { ToolContext } from './context.ts';

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
  | 'manage_webhooks'
  | 'edit_alert_rules'
  | 'edit_information_requests';

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
  handler(ctx: ToolContext, input: z.output<I>): Promise<z.input<O>>;
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
