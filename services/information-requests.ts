// Information requests from the firm's side: drafted, changed, closed and deleted here; sent and
// reminded in information-sending.ts. Every write checks the caller's scope covers every company of
// the request (information-common.ts), and records its change-log row and event in its transaction.
//
// What may change when: a draft, anything. A sent request: its name, message, due date (its links'
// expiry moves with it), reminder days, and more companies (each gets its report, links and mail at
// once); its period, dates and items are what its reports were built from, and no company leaves it.
// A closed request: nothing.
import { type FieldError, InvalidInput } from '../core/errors.ts';
import { parseReminderDays } from '../core/information.ts';
import { newId } from '../db/ids.ts';
import type { InformationRequestRow } from '../db/repos/information.ts';
import { record, type ServiceContext, withRecorder } from './changes.ts';
import {
  type LoopContext,
  linkExpiryOf,
  type OwnedRequest,
  ownRequest,
  requestRecord,
  requireStatus,
} from './information-common.ts';
import { type CheckedRequest, checkRequest, type RequestInput, storedInput } from './information-fields.ts';
import { openReports, type SendResult } from './information-sending.ts';

const defined = <T extends object>(input: T): Partial<T> =>
  Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;

function asOwned(row: InformationRequestRow, checked: CheckedRequest): OwnedRequest {
  const item = (i: (typeof checked.metrics)[number]) => ({ ...i, request_id: row.id });
  return {
    row,
    companyIds: checked.company_ids,
    metrics: checked.metrics.map(item),
    documents: checked.documents.map(item),
  };
}

/**
 * Drafts a request. With `copy_from`, an earlier request gives what the caller leaves out (its items,
 * companies, message and reminder days); name, period and dates are the caller's.
 */
export async function createRequest(
  ctx: ServiceContext,
  input: RequestInput & { copy_from?: string },
): Promise<string> {
  const { copy_from, ...given } = input;
  return withRecorder(ctx, async (repos, recorder) => {
    const inTrx = { ...ctx, repos };
    let base: RequestInput = {};
    if (copy_from) {
      const source = await ownRequest(inTrx, repos, copy_from);
      const days = parseReminderDays(source.row.reminder_days);
      const {
        name: _n,
        period: _p,
        period_start_date: _s,
        period_end_date: _e,
        due_date: _d,
        ...copied
      } = storedInput(source.row, source.companyIds, source.documents, source.metrics, days);
      base = copied;
    }
    const checked = await checkRequest(inTrx, { ...base, ...defined(given) });
    const row: InformationRequestRow = {
      id: newId(),
      firm_id: ctx.principal.firm.id,
      name: checked.name,
      due_date: checked.due_date,
      period_start_date: checked.period_start_date,
      period_end_date: checked.period_end_date,
      period: checked.period,
      status: 'draft',
      message: checked.message,
      reminder_days: JSON.stringify(checked.reminder_days),
      copied_from: copy_from ?? null,
      created_by: recorder.actor.userId,
      created_at: recorder.at,
      updated_at: recorder.at,
      sent_at: null,
      closed_at: null,
    };
    await repos.informationWrites.insertRequest(row, checked.company_ids, checked.documents, checked.metrics);
    const created = asOwned(row, checked);
    await record(recorder, requestRecord('created', created, { ...given, copy_from }));
    return row.id;
  });
}

const FROZEN_WHEN_SENT = ['period', 'period_start_date', 'period_end_date', 'metrics', 'documents'] as const;

/** A sent request keeps its period, items and companies; the fields given that would change them are 400s. */
function refuseFrozen(r: OwnedRequest, given: Partial<RequestInput>): void {
  const errors: FieldError[] = [];
  for (const field of FROZEN_WHEN_SENT) {
    if (given[field] !== undefined)
      errors.push({
        field,
        message: 'cannot change once the request is sent: its reports were built from it',
      });
  }
  const kept = new Set(given.company_ids ?? r.companyIds);
  const dropped = r.companyIds.filter((c) => !kept.has(c));
  if (dropped.length > 0)
    errors.push({
      field: 'company_ids',
      message: `must keep every company of a sent request (${dropped.join(', ')} would leave); companies may be added`,
    });
  if (errors.length > 0)
    throw new InvalidInput(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
}

export interface ChangeResult {
  /** Companies added to a sent request: their reports, and who was mailed. */
  opened?: SendResult;
}

/** Changes a draft, or what may change of a sent request (see the top of this file). */
export async function updateRequest(
  ctx: LoopContext,
  id: string,
  changes: RequestInput,
): Promise<ChangeResult> {
  const given = defined(changes);
  return withRecorder(ctx, async (repos, recorder) => {
    const inTrx = { ...ctx, repos };
    const r = await ownRequest(inTrx, repos, id);
    requireStatus(r.row, ['draft', 'sent'], 'changed');
    const sent = r.row.status === 'sent';
    if (sent) refuseFrozen(r, given);
    if (Object.keys(given).length === 0) return {};
    const stored = storedInput(r.row, r.companyIds, [], [], parseReminderDays(r.row.reminder_days));
    const checked = await checkRequest(inTrx, {
      ...stored,
      metrics: undefined,
      documents: undefined,
      ...given,
    });
    const row: InformationRequestRow = {
      ...r.row,
      name: checked.name,
      period: checked.period,
      period_start_date: checked.period_start_date,
      period_end_date: checked.period_end_date,
      due_date: checked.due_date,
      message: checked.message,
      reminder_days: JSON.stringify(checked.reminder_days),
      updated_at: recorder.at,
    };
    const { id: _id, firm_id: _f, status: _s, created_at: _c, created_by: _b, ...fields } = row;
    await repos.informationWrites.updateRequest(id, fields);
    await repos.informationWrites.replaceItems(
      id,
      given.documents && checked.documents,
      given.metrics && checked.metrics,
    );
    const added = checked.company_ids.filter((c) => !r.companyIds.includes(c));
    const removed = r.companyIds.filter((c) => !checked.company_ids.includes(c));
    await repos.informationWrites.removeCompanies(id, removed);
    await repos.informationWrites.addCompanies(id, added);
    const after: OwnedRequest = {
      row,
      companyIds: checked.company_ids,
      metrics: given.metrics ? asOwned(row, checked).metrics : r.metrics,
      documents: given.documents ? asOwned(row, checked).documents : r.documents,
    };
    await record(recorder, requestRecord('updated', after, given));
    if (!sent) return {};
    if (row.due_date !== r.row.due_date)
      await repos.reportLinks.setRequestExpiry(id, linkExpiryOf(ctx, row.due_date));
    return added.length > 0 ? { opened: await openReports(inTrx, recorder, after, added) } : {};
  });
}

/** Closes a sent request: its links stop working and its reports take no more answers. Closing twice is no change. */
export async function closeRequest(ctx: ServiceContext, id: string): Promise<void> {
  await withRecorder(ctx, async (repos, recorder) => {
    const r = await ownRequest({ ...ctx, repos }, repos, id);
    if (r.row.status === 'closed') return;
    requireStatus(r.row, ['sent'], 'closed (a draft is deleted instead)');
    await repos.informationWrites.updateRequest(id, {
      status: 'closed',
      closed_at: recorder.at,
      updated_at: recorder.at,
    });
    const closed = {
      ...r,
      row: { ...r.row, status: 'closed', closed_at: recorder.at, updated_at: recorder.at },
    };
    await record(recorder, requestRecord('closed', closed, { status: 'closed' }));
  });
}

/**
 * Deletes a request in any state with its reports and their links. What its reports submitted stays:
 * the metric data, and the documents (no longer tied to a request).
 */
export async function deleteRequest(ctx: ServiceContext, id: string): Promise<void> {
  await withRecorder(ctx, async (repos, recorder) => {
    const r = await ownRequest({ ...ctx, repos }, repos, id);
    await repos.informationWrites.deleteRequest(id);
    await record(recorder, requestRecord('deleted', r));
  });
}
