// Sending a request opens one report per company, mints a link per contact and queues the request
// mail; reminding mints fresh links for the reports not submitted yet and queues reminders; a late
// report is announced once. Each in the transaction of its write.
import type { Clock } from '../core/clock.ts';
import { type FieldError, InvalidInput } from '../core/errors.ts';
import { daysBetween } from '../core/information.ts';
import type { Firm } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import type { ContactRow } from '../db/repos/contacts.ts';
import { inTransaction, type Repos } from '../db/repos/index.ts';
import type { InformationReportRow } from '../db/repos/information.ts';
import type { NewReport } from '../db/repos/information-writes.ts';
import { type Recorded, type Recorder, record, SYSTEM_ACTOR, withRecorder } from './changes.ts';
import { DEFAULT_LINK_DAYS_AFTER_DUE, linkExpiry, mintLinks } from './founder-links.ts';
import {
  type LoopContext,
  linkExpiryOf,
  lockedRequest,
  mailValues,
  type OwnedRequest,
  ownRequest,
  requestRecord,
  requireStatus,
} from './information-common.ts';
import { type LoopMail, queueRequestMail } from './information-mail.ts';

/** A company's report and the contacts a mail went to. */
export interface ReachedCompany {
  company_id: string;
  company_name: string;
  report_id: string;
  contacts: { id: string; name: string; email: string }[];
}

export interface SendResult {
  reports: ReachedCompany[];
  /** Companies asked that have no contact yet: their reports exist, but no mail went out. */
  companies_without_contacts: { company_id: string; company_name: string; report_id: string }[];
}

function newReport(r: OwnedRequest, companyId: string, at: string): NewReport {
  const id = newId();
  const report: InformationReportRow = {
    id,
    firm_id: r.row.firm_id,
    company_id: companyId,
    information_request_id: r.row.id,
    submitted_at: null,
    status: 'not-started',
    created_at: at,
    updated_at: at,
    reminded_at: null,
    late_at: null,
  };
  const documents = r.documents.map((d, position) => ({
    id: newId(),
    report_id: id,
    request_document_id: d.id,
    requested_document: d.name,
    optional: d.optional,
    status: 'missing',
    position,
    document_id: null,
    file_sha256: null,
    updated_at: at,
  }));
  const metrics = r.metrics.map((m, position) => ({
    id: newId(),
    report_id: id,
    request_metric_id: m.id,
    category_id: m.category_id ?? null,
    name: m.name,
    optional: m.optional,
    date: r.row.period_end_date,
    status: 'missing',
    time_period: m.time_period ?? 'point_in_time',
    position,
    value: null,
    currency: null,
    datum_id: null,
    updated_at: at,
  }));
  return { report, documents, metrics };
}

/** How a message reaches a report's contacts: for which firm, where links point, until when, and its key. */
interface Reach {
  firmName: string;
  publicUrl: string;
  expiresAt: string;
  kind: 'request' | 'reminder';
  reminderKind?: ReminderKind;
  /** Queueing a message of the same key twice sends it once. */
  dedupeKey(reportId: string, contactId: string): string;
}

export type ReminderKind = 'before' | 'on' | 'after';

/** Whether a reminder sent on `today` comes before, on or after the due date. */
export function reminderKindOn(dueDate: string, today: string): ReminderKind {
  return today < dueDate ? 'before' : today === dueDate ? 'on' : 'after';
}

/** Mints a link per contact of each report and queues one message per link. */
async function reachContacts(
  repos: Repos,
  at: string,
  r: OwnedRequest,
  reports: readonly InformationReportRow[],
  reach: Reach,
): Promise<{ reached: ReachedCompany[]; without: SendResult['companies_without_contacts'] }> {
  const companyIds = reports.map((report) => report.company_id);
  const scope = { firmId: r.row.firm_id, companyIds: null };
  const names = await repos.companies.names(scope, companyIds);
  const contacts = await repos.contacts.ofCompanies(r.row.firm_id, companyIds);
  const reached: ReachedCompany[] = [];
  const without: SendResult['companies_without_contacts'] = [];
  const mails: LoopMail[] = [];
  for (const report of reports) {
    const companyName = names.get(report.company_id)?.name ?? '';
    const people: ContactRow[] = contacts.get(report.company_id) ?? [];
    const base = { company_id: report.company_id, company_name: companyName, report_id: report.id };
    if (people.length === 0) {
      without.push(base);
      continue;
    }
    const links = await mintLinks(repos, report, people, {
      at,
      expiresAt: reach.expiresAt,
      publicUrl: reach.publicUrl,
    });
    for (const link of links) {
      const who = { firmName: reach.firmName, companyName, contactName: link.contact.name };
      const values = mailValues(r, who, link.url);
      mails.push({
        firmId: r.row.firm_id,
        kind: reach.kind,
        to: link.contact.email,
        toName: link.contact.name,
        values: reach.reminderKind ? { ...values, reminderKind: reach.reminderKind } : values,
        dedupeKey: reach.dedupeKey(report.id, link.contact.id),
        reportId: report.id,
        requestId: r.row.id,
      });
    }
    const contactsOf = people.map((c) => ({ id: c.id, name: c.name, email: c.email }));
    reached.push({ ...base, contacts: contactsOf });
  }
  await queueRequestMail(repos, mails, at);
  return { reached, without };
}

function reportRecord(
  type: 'sent' | 'reminded',
  report: InformationReportRow,
  contacts: ReachedCompany['contacts'],
): Recorded {
  const data = {
    id: report.id,
    company_id: report.company_id,
    information_request_id: report.information_request_id,
    status: report.status,
    contacts: contacts.map((c) => ({ id: c.id, name: c.name })),
  };
  return {
    change: {
      entity: 'information_reports',
      entityId: report.id,
      action: type === 'sent' ? 'create' : 'update',
      changes: type === 'sent' ? { status: report.status } : { reminded_at: report.reminded_at },
    },
    event: {
      type: `information_report.${type}`,
      companyId: report.company_id,
      resourceType: 'information_report',
      resourceId: report.id,
      data,
    },
  };
}

/**
 * Opens a report (`not-started`, one item per requested document and metric) for each company, mints
 * links for their contacts and queues the request mail: for a request being sent, or for companies
 * added to a sent one.
 */
export async function openReports(
  ctx: LoopContext,
  recorder: Recorder,
  r: OwnedRequest,
  companyIds: readonly string[],
): Promise<SendResult> {
  const { repos, at } = recorder;
  const created = companyIds.map((companyId) => newReport(r, companyId, at));
  await repos.informationWrites.insertReports(created);
  const reports = created.map((c) => c.report);
  const { reached, without } = await reachContacts(repos, at, r, reports, {
    firmName: ctx.principal.firm.name,
    publicUrl: ctx.publicUrl,
    expiresAt: linkExpiryOf(ctx, r.row.due_date),
    kind: 'request',
    // A request goes once per report and contact.
    dedupeKey: (report, contact) => `request:${report}:${contact}`,
  });
  const contactsOf = new Map(reached.map((c) => [c.report_id, c.contacts]));
  await record(
    recorder,
    ...reports.map((report) => reportRecord('sent', report, contactsOf.get(report.id) ?? [])),
  );
  return { reports: reached, companies_without_contacts: without };
}

/** What a request must hold before it is sent. */
function checkSendable(r: OwnedRequest): void {
  const errors: FieldError[] = [];
  if (r.companyIds.length === 0) errors.push({ field: 'company_ids', message: 'name at least one company' });
  if (r.metrics.length + r.documents.length === 0)
    errors.push({ field: 'metrics', message: 'ask for at least one metric or document' });
  r.metrics.forEach((m, i) => {
    if (!m.category_id)
      errors.push({ field: `metrics[${i}].category`, message: `${m.name} is not a category of the firm` });
  });
  if (errors.length > 0) {
    const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    throw new InvalidInput(`the request cannot be sent yet: ${summary}; change it first`, errors);
  }
}

/**
 * Sends a draft: reports for every company, links for their contacts, the request mail. Sending a sent
 * request again changes nothing and reaches no one (reminders do that); a closed one is a 409.
 */
export async function sendRequest(ctx: LoopContext, id: string): Promise<SendResult> {
  return withRecorder(ctx, async (repos, recorder) => {
    const r = await ownRequest(ctx, repos, id);
    if (r.row.status === 'sent') return { reports: [], companies_without_contacts: [] };
    requireStatus(r.row, ['draft'], 'sent');
    checkSendable(r);
    const sent = { ...r, row: { ...r.row, status: 'sent', sent_at: recorder.at, updated_at: recorder.at } };
    await repos.informationWrites.updateRequest(id, {
      status: 'sent',
      sent_at: recorder.at,
      updated_at: recorder.at,
    });
    const result = await openReports(ctx, recorder, sent, r.companyIds);
    await record(recorder, requestRecord('sent', sent, { status: 'sent' }));
    return result;
  });
}

export interface RemindResult {
  reminded: ReachedCompany[];
  companies_without_contacts: SendResult['companies_without_contacts'];
  /** Companies named that have submitted already: nothing was sent to them. */
  already_submitted: { company_id: string; report_id: string }[];
}

/** The reports a reminder goes to: every unsubmitted one, or those of the companies named. */
function remindable(reports: InformationReportRow[], companyIds: string[] | undefined) {
  if (!companyIds) return { chosen: reports.filter((x) => x.submitted_at === null), submitted: [] };
  const byCompany = new Map(reports.map((x) => [x.company_id, x]));
  const errors: FieldError[] = [];
  companyIds.forEach((companyId, i) => {
    if (!byCompany.has(companyId))
      errors.push({
        field: `company_ids[${i}]`,
        message: `company ${companyId} is not asked by this request`,
      });
  });
  if (errors.length > 0)
    throw new InvalidInput(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  const named = [...new Set(companyIds)].map((c) => byCompany.get(c)!);
  return {
    chosen: named.filter((x) => x.submitted_at === null),
    submitted: named.filter((x) => x.submitted_at !== null),
  };
}

/** Reminds the companies of a sent request that have not submitted (all, or the ones named). */
export async function remindRequest(
  ctx: LoopContext,
  id: string,
  companyIds?: string[],
): Promise<RemindResult> {
  return withRecorder(ctx, async (repos, recorder) => {
    const r = await ownRequest(ctx, repos, id);
    requireStatus(r.row, ['sent'], 'reminded');
    const { chosen, submitted } = remindable(await repos.informationWrites.reportsOf(id), companyIds);
    const { reached, without } = await reachContacts(repos, recorder.at, r, chosen, {
      firmName: ctx.principal.firm.name,
      publicUrl: ctx.publicUrl,
      expiresAt: linkExpiryOf(ctx, r.row.due_date),
      kind: 'reminder',
      reminderKind: reminderKindOn(r.row.due_date, recorder.at.slice(0, 10)),
      // Each reminder asked for goes once.
      dedupeKey: (report, contact) => `reminder:${report}:asked-${recorder.at}:${contact}`,
    });
    const reminded = new Set(reached.map((c) => c.report_id));
    const records: Recorded[] = [];
    for (const report of chosen.filter((x) => reminded.has(x.id))) {
      await repos.informationWrites.updateReport(report.id, { reminded_at: recorder.at });
      const contacts = reached.find((c) => c.report_id === report.id)?.contacts ?? [];
      records.push(reportRecord('reminded', { ...report, reminded_at: recorder.at }, contacts));
    }
    await record(recorder, ...records);
    return {
      reminded: reached,
      companies_without_contacts: without,
      already_submitted: submitted.map((x) => ({ company_id: x.company_id, report_id: x.id })),
    };
  });
}

/** What the scheduled reminder pass gives: the repositories of its transaction, and where links point. */
export interface PassContext {
  repos: Repos;
  publicUrl: string;
  founderLinkDaysAfterDue?: number;
}

/**
 * Reminds, as the service itself and inside the caller's transaction, the unsubmitted reports of one
 * sent request for one step of its schedule (`days` from the due date, falling on `date`): a report
 * reminded on or after that date (by this step, or by hand) is left alone, so a pass repeated within
 * the step sends nothing again; each message's key is reminder:<report>:<days>:<contact>. The number
 * of messages queued.
 */
export async function remindForStep(
  ctx: PassContext,
  firm: Firm,
  requestId: string,
  step: { days: number; date: string },
  now: Date,
): Promise<number> {
  const at = now.toISOString();
  const r = await lockedRequest(ctx.repos, firm.id, requestId);
  if (r?.row.status !== 'sent') return 0;
  const reports = (await ctx.repos.informationWrites.reportsOf(requestId)).filter(
    (x) => x.submitted_at === null && !(x.reminded_at && x.reminded_at.slice(0, 10) >= step.date),
  );
  const { reached } = await reachContacts(ctx.repos, at, r, reports, {
    firmName: firm.name,
    publicUrl: ctx.publicUrl,
    expiresAt: linkExpiry(r.row.due_date, ctx.founderLinkDaysAfterDue ?? DEFAULT_LINK_DAYS_AFTER_DUE),
    kind: 'reminder',
    reminderKind: step.days < 0 ? 'before' : step.days === 0 ? 'on' : 'after',
    dedupeKey: (report, contact) => `reminder:${report}:${step.days}:${contact}`,
  });
  const recorder: Recorder = { repos: ctx.repos, firmId: firm.id, actor: SYSTEM_ACTOR, at };
  const records: Recorded[] = [];
  for (const company of reached) {
    const report = reports.find((x) => x.id === company.report_id)!;
    await ctx.repos.informationWrites.updateReport(report.id, { reminded_at: at });
    records.push(reportRecord('reminded', { ...report, reminded_at: at }, company.contacts));
  }
  await record(recorder, ...records);
  return reached.reduce((n, c) => n + c.contacts.length, 0);
}

/** A report announced late. */
export interface LateReport {
  report_id: string;
  company_id: string;
  information_request_id: string;
  due_date: string;
  days_late: number;
}

/**
 * Announces, once each, the firm's reports past their due date without a submission: marks them and
 * appends `information_report.late`, as the service itself. For the scheduled pass; safe to repeat.
 */
export async function markLate(deps: { repos: Repos; clock: Clock }, firm: Firm): Promise<LateReport[]> {
  const now = deps.clock.now().toISOString();
  const today = now.slice(0, 10);
  return inTransaction(deps.repos, async (repos) => {
    const due = await repos.informationWrites.lateToAnnounce(firm.id, today);
    if (due.length === 0) return [];
    await repos.informationWrites.markLate(
      due.map((d) => d.id),
      now,
    );
    const late = due.map((d) => ({
      report_id: d.id,
      company_id: d.company_id,
      information_request_id: d.information_request_id,
      due_date: d.due_date,
      days_late: daysBetween(d.due_date, today),
    }));
    const recorder: Recorder = { repos, firmId: firm.id, actor: SYSTEM_ACTOR, at: now };
    await record(
      recorder,
      ...late.map((l, i) => ({
        change: {
          entity: 'information_reports',
          entityId: l.report_id,
          action: 'update' as const,
          changes: { late_at: now },
        },
        event: {
          type: 'information_report.late',
          companyId: l.company_id,
          resourceType: 'information_report',
          resourceId: l.report_id,
          data: { ...l, status: due[i]!.status, request_name: due[i]!.request_name },
        },
      })),
    );
    return late;
  });
}
