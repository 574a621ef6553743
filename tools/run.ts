import type { z } from 'zod';
import { mayEditCapTable, type OAuthScope, type Principal, type User } from '../core/principal.ts';
import type { ToolContext } from './context.ts';
import type { AnyTool, Permission, ToolCall, ToolRoute } from './define.ts';
import {
  type FieldError,
  InsufficientScope,
  InvalidInput,
  MissingParameter,
  PermissionDenied,
  ToolError,
} from './errors.ts';

/** `financing_rounds[2].company_id` from a Zod issue path. */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function isMissing(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && /received undefined/.test(issue.message);
}

/** Turns a Zod failure into one typed error naming every offending field. */
export function inputError(error: z.ZodError, rename: (field: string) => string = (f) => f): InvalidInput {
  const errors: FieldError[] = error.issues.map((issue) => {
    const field = rename(fieldName(issue.path)) || 'body';
    return { field, message: isMissing(issue) ? 'is required' : issue.message };
  });
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  if (error.issues.every(isMissing))
    return new MissingParameter(`missing ${summary}`, errors) as InvalidInput;
  return new InvalidInput(`invalid ${summary}`, errors);
}

const permissionChecks: Record<Permission, (user: User) => string | null> = {
  documents: (user) => (user.can_view_documents ? null : 'your account does not have access to documents'),
  cap_table: (user) =>
    mayEditCapTable(user)
      ? null
      : 'your account may not add cap table data; ask a firm admin for the cap-table permission',
  edit_metrics: (user) => (user.role === 'viewer' ? 'changing metrics needs the editor or admin role' : null),
  edit_companies: (user) =>
    user.role === 'viewer'
      ? 'creating or changing companies, notes and custom column values needs the editor or admin role'
      : null,
  add_documents: (user) =>
    !user.can_view_documents
      ? 'your account does not have access to documents'
      : user.role === 'viewer'
        ? 'adding documents needs the editor or admin role'
        : null,
  // A document's proposed figures show its cells, and confirming them writes metrics: both are needed.
  review_documents: (user) =>
    !user.can_view_documents
      ? 'your account does not have access to documents'
      : user.role === 'viewer'
        ? "reviewing a document's figures needs the editor or admin role"
        : null,
  edit_alert_rules: (user) =>
    user.role === 'viewer' ? 'creating or changing alert rules needs the editor or admin role' : null,
  edit_information_requests: (user) =>
    user.role === 'viewer'
      ? 'creating, sending or changing information requests and company contacts needs the editor or admin role'
      : null,
  // Webhooks carry every company's changes out of the service, signed with a secret.
  manage_webhooks: (user) =>
    user.role !== 'admin'
      ? 'managing webhooks needs the admin role'
      : !user.all_companies
        ? 'managing webhooks needs access to all companies of the firm'
        : null,
  manage_firm_settings: (user) =>
    user.role !== 'admin' ? "changing the firm's settings needs the admin role" : null,
};

/** Throws PermissionDenied when the user lacks the permission (also used by routes that are not tools). */
export function requirePermission(permission: Permission | undefined, user: User): void {
  const problem = permission && permissionChecks[permission](user);
  if (problem) throw new PermissionDenied(problem);
}

/** The OAuth scope a tool needs: `write` for writes, `read` for everything else. */
export function requiredScope(tool: Pick<AnyTool, 'write'>): OAuthScope {
  return tool.write ? 'write' : 'read';
}

export function allowsTool(principal: Pick<Principal, 'scopes'>, tool: Pick<AnyTool, 'write'>): boolean {
  return principal.scopes.includes(requiredScope(tool));
}

/** Throws InsufficientScope when the token's scopes do not cover the tool. */
export function checkScope(tool: AnyTool, principal: Principal): void {
  if (!allowsTool(principal, tool)) throw new InsufficientScope(requiredScope(tool));
}

export function checkPermission(tool: AnyTool, ctx: ToolContext): void {
  requirePermission(tool.permission, ctx.principal.user);
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The first string in the raw input that no database can store as text: one with a NUL character
 * (PostgreSQL rejects it) or a lone surrogate (silently replaced on the way to UTF-8). Walks without
 * recursion, so any nesting depth is safe.
 */
export function unstorableText(raw: unknown): { path: PropertyKey[]; message: string } | undefined {
  const stack: [unknown, PropertyKey[]][] = [[raw, []]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path, message: 'must not contain the NUL character (U+0000)' };
      if (loneSurrogate.test(value))
        return { path, message: 'must be well-formed Unicode (no lone surrogates)' };
    } else if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) stack.push([item, [...path, i]]);
    } else if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
      // The bytes of an uploaded file are not text.
      for (const [key, item] of Object.entries(value)) stack.push([item, [...path, key]]);
    }
  }
  return undefined;
}

/** Validates raw input against the tool's schema, checks its permission and runs it. */
export async function runTool(
  tool: AnyTool,
  ctx: ToolContext,
  raw: unknown,
  rename?: (field: string) => string,
  call?: ToolCall,
): Promise<unknown> {
  try {
    const result = await validateAndRun(tool, ctx, raw, rename, call);
    ctx.onToolCall?.(tool.name, 'ok');
    return result;
  } catch (err) {
    ctx.onToolCall?.(
      tool.name,
      err instanceof ToolError && err.status < 500 ? 'client_error' : 'server_error',
    );
    throw err;
  }
}

const routeSchemas = new WeakMap<object, z.ZodObject>();

/** The tool's input schema, with the fields a route takes in its own form replaced by that form. */
function inputSchema(tool: AnyTool, route: ToolRoute | undefined): z.ZodObject {
  if (!route?.narrower) return tool.input;
  let found = routeSchemas.get(route.narrower);
  if (!found) {
    found = tool.input.extend(route.narrower);
    routeSchemas.set(route.narrower, found);
  }
  return found;
}

async function validateAndRun(
  tool: AnyTool,
  ctx: ToolContext,
  raw: unknown,
  rename?: (field: string) => string,
  call?: ToolCall,
): Promise<unknown> {
  checkScope(tool, ctx.principal);
  const bad = unstorableText(raw);
  if (bad)
    throw InvalidInput.field((rename ?? ((f: string) => f))(fieldName(bad.path)) || 'body', bad.message);
  const parsed = inputSchema(tool, call?.route).safeParse(raw ?? {});
  if (!parsed.success) throw inputError(parsed.error, rename);
  checkPermission(tool, ctx);
  return tool.handler(ctx, parsed.data, call);
}
