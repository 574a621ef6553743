import { STANDARD_CATEGORY_NAMES } from '../core/categories.ts';
import { Conflict, NotFound } from '../core/errors.ts';
import { parseReminderDays } from '../core/information.ts';
import type { Repos } from '../db/repos/index.ts';
import type { InformationRequestRow, RequestedItemRow } from '../db/repos/information.ts';
import type { Recorded, ServiceContext } from './changes.ts';
import { DEFAULT_LINK_DAYS_AFTER_DUE, linkExpiry } from './founder-links.ts';
import { itemLabel, type MailValues } from './information-mail.ts';

/** What the loop's writes need beyond a service context: where links point and how long they last. */
export interface LoopContext extends ServiceContext {
  publicUrl: string;
  founderLinkDaysAfterDue?: number;
}

export function requestNotFound(id: string): NotFound {
  return new NotFound(`no information request with id ${id}; list_information_requests lists them`);
}

/** A stored request with the companies it asks and what it asks for. */
export interface OwnedRequest {
  row: InformationRequestRow;
  companyIds: string[];
  documents: RequestedItemRow[];
  metrics: RequestedItemRow[];
}

/**
 * The request, locked for the caller's write, when the caller may change it: a request spans
 * companies, so their scope must cover every one of them; otherwise it is a 404, as a request they
 * cannot see would be.
 */
export async function ownRequest(ctx: ServiceContext, repos: Repos, id: string): Promise<OwnedRequest> {
  const r = await lockedRequest(repos, ctx.principal.firm.id, id);
  const visible = ctx.principal.scope.companyIds;
  if (!r || (visible && !r.companyIds.every((c) => visible.includes(c)))) throw requestNotFound(id);
  return r;
}

/** A request of the firm with its companies and items, locked for the caller's write; no scope checked. */
export async function lockedRequest(
  repos: Repos,
  firmId: string,
  id: string,
): Promise<OwnedRequest | undefined> {
  const row = await repos.informationWrites.lockRequest(firmId, id);
  if (!row) return undefined;
  const companies = await repos.information.requestCompanies([id]);
  const items = await repos.information.requestedItems([id]);
  return {
    row,
    companyIds: companies.get(id) ?? [],
    documents: items.documents.get(id) ?? [],
    metrics: items.metrics.get(id) ?? [],
  };
}

/** Refuses a write the request's state does not allow, with what would. */
export function requireStatus(row: InformationRequestRow, allowed: readonly string[], doing: string): void {
  if (allowed.includes(row.status)) return;
  throw new Conflict(
    `information request ${row.id} is ${row.status}: only a ${allowed.join(' or ')} request can be ${doing}`,
  );
}

export function linkExpiryOf(ctx: LoopContext, dueDate: string): string {
  return linkExpiry(dueDate, ctx.founderLinkDaysAfterDue ?? DEFAULT_LINK_DAYS_AFTER_DUE);
}

/** A request as its events and change log carry it. */
export function requestData(r: OwnedRequest): Record<string, unknown> {
  const { row } = r;
  return {
    id: row.id,
    name: row.name,
    period: row.period,
    period_start_date: row.period_start_date,
    period_end_date: row.period_end_date,
    due_date: row.due_date,
    status: row.status,
    message: row.message ?? '',
    reminder_days: parseReminderDays(row.reminder_days),
    copied_from: row.copied_from ?? null,
    company_ids: r.companyIds,
    requested_metrics: r.metrics.map((m) => ({
      id: m.id,
      name: m.name,
      category_id: m.category_id ?? null,
      time_period: m.time_period ?? null,
      optional: m.optional,
    })),
    requested_documents: r.documents.map((d) => ({ id: d.id, name: d.name, optional: d.optional })),
    sent_at: row.sent_at ?? null,
    closed_at: row.closed_at ?? null,
  };
}

/** The change-log row and event of a request write; a request spans companies, so its event has none. */
export function requestRecord(
  type: 'created' | 'updated' | 'sent' | 'closed' | 'deleted',
  r: OwnedRequest,
  changes?: Record<string, unknown>,
): Recorded {
  const action = type === 'created' ? 'create' : type === 'deleted' ? 'delete' : 'update';
  return {
    change: { entity: 'information_requests', entityId: r.row.id, action, changes },
    event: {
      type: `information_request.${type}`,
      companyId: null,
      resourceType: 'information_request',
      resourceId: r.row.id,
      data: requestData(r),
    },
  };
}

/** The mail values every message about one report shares. */
export function mailValues(
  r: OwnedRequest,
  names: { firmName: string; companyName: string; contactName: string },
  link: string,
): MailValues {
  const label = (item: RequestedItemRow) => itemLabel(item.name, STANDARD_CATEGORY_NAMES.includes(item.name));
  return {
    ...names,
    requestName: r.row.name,
    period: r.row.period,
    dueDate: r.row.due_date,
    link,
    metrics: r.metrics.map((m) => ({ name: label(m), optional: m.optional })),
    documents: r.documents.map((d) => ({ name: d.name, optional: d.optional })),
  };
}
