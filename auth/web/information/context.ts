import type { Response } from 'express';
import type { z } from 'zod';
import type { Clock } from '../../../core/clock.ts';
import type { FieldError } from '../../../core/errors.ts';
import type { Logger } from '../../../core/logger.ts';
import type { Repos } from '../../../db/repos/index.ts';
import { listCompanies } from '../../../tools/companies/list-companies.ts';
import type { ToolContext } from '../../../tools/context.ts';
import type { AnyTool, Tool } from '../../../tools/define.ts';
import { PermissionDenied, ToolError } from '../../../tools/errors.ts';
import { runTool } from '../../../tools/run.ts';
import { principalFor } from '../../principal.ts';
import { messagePage } from '../pages.ts';
import { sendHtml } from '../respond.ts';
import type { WebSession } from '../sessions.ts';

/** What the information pages need beyond the account pages: how the tools they run are configured. */
export interface InformationWebOptions {
  repos: Repos;
  clock: Clock;
  logger: Logger;
  publicUrl: () => string;
  documentStorageQuotaBytes: () => number;
  founderLinkDaysAfterDue: () => number | undefined;
}

/**
 * The signed-in user as the tools see them: the same firm, role and company access as their tokens,
 * so every page runs the tools (and through them the services) under the rules REST and MCP follow.
 */
export async function webToolContext(
  options: InformationWebOptions,
  session: WebSession,
): Promise<ToolContext> {
  const { repos, clock, logger } = options;
  const principal = await principalFor(repos, session.user, session.firm, {
    kind: 'user',
    key: `user:${session.user.id}`,
    tokenId: 'web',
  });
  return {
    principal,
    repos,
    clock,
    logger,
    requestId: `web-${clock.now().getTime()}`,
    publicUrl: options.publicUrl(),
    documentStorageQuotaBytes: options.documentStorageQuotaBytes(),
    founderLinkDaysAfterDue: options.founderLinkDaysAfterDue(),
  };
}

/** Runs a tool with the page's input; its output typed by the tool's schema. */
export async function run<O extends z.ZodType>(
  tool: Tool<z.ZodObject, O>,
  ctx: ToolContext,
  input: unknown,
): Promise<z.output<O>> {
  return (await runTool(tool as unknown as AnyTool, ctx, input)) as z.output<O>;
}

/** A refusal a form shows: a message, and one per field it names. */
export interface FormProblem {
  status: number;
  message: string;
  fields: Map<string, string>;
}

/** A typed refusal of a write as a form shows it; anything else is not the user's to fix and is thrown on. */
export function formProblem(err: unknown): FormProblem {
  if (!(err instanceof ToolError) || err.status >= 500) throw err;
  const fields = new Map<string, string>();
  for (const e of err.errors as readonly FieldError[])
    if (!fields.has(e.field)) fields.set(e.field, e.message);
  return { status: err.status, message: sentence(err.message), fields };
}

export function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Every company the user can see, by name: the form's checkboxes, the contacts page's choice. */
export async function visibleCompanies(ctx: ToolContext): Promise<{ id: string; name: string }[]> {
  const out: { id: string; name: string }[] = [];
  for (let page = 1; page <= 50; page++) {
    const listed = await run(listCompanies, ctx, { page, per_page: 100 });
    out.push(...listed.results.map((c) => ({ id: c.id, name: c.name })));
    if (!listed.has_more) break;
  }
  return out;
}

export const mayEdit = (session: WebSession) => session.user.role !== 'viewer';

/** A refusal that is not about a form field: its own page, with the status it has over REST. */
export function refusalPage(res: Response, err: unknown, back: string): void {
  if (!(err instanceof ToolError) || err.status >= 500) throw err;
  const title =
    err instanceof PermissionDenied ? 'Not allowed' : err.status === 404 ? 'Not found' : 'Not done';
  sendHtml(
    res,
    err.status,
    messagePage({ title, message: sentence(err.message), link: { href: back, label: 'Back' } }),
  );
}
