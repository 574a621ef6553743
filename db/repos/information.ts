import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { isPostgres } from '../knex.ts';
import type { Counted, Page } from '../types.ts';
import { bool, byName, countAndPage, scoped, whereContains } from './util.ts';

/** A request's state: drafted, sent to its companies (taking answers), or closed. */
export type RequestStatus = 'draft' | 'sent' | 'closed';

export interface InformationRequestRow {
  id: string;
  firm_id: string;
  name: string;
  due_date: string;
  period_start_date: string;
  period_end_date: string;
  period: string;
  status: string;
  created_at: string;
  created_by?: string | null;
  updated_at?: string | null;
  sent_at?: string | null;
  closed_at?: string | null;
  /** JSON array of days relative to the due date. */
  reminder_days?: string | null;
  copied_from?: string | null;
  message?: string;
}

/** The reports of a request, tallied in SQL over the reports the caller may see. */
export interface RequestCounts {
  completed_count: number;
  in_progress_count: number;
  not_started_count: number;
  partially_complete_count: number;
  past_due_count: number;
  unanswered_count: number;
  /** Companies the request asks (that the caller may see). */
  company_count: number;
}

export type CountedRequestRow = InformationRequestRow & RequestCounts;

/** A document or metric an information request asks for. */
export interface RequestedItemRow {
  id: string;
  request_id: string;
  name: string;
  optional: boolean;
  position: number;
  description?: string;
  /** Metrics only: the standard category or custom metric, and the period its value covers. */
  category_id?: string | null;
  time_period?: string | null;
}

export interface InformationReportRow {
  id: string;
  firm_id: string;
  company_id: string;
  information_request_id: string;
  submitted_at: string | null;
  status: string;
  created_at: string;
  updated_at?: string | null;
  reminded_at?: string | null;
  late_at?: string | null;
}

/** A report as listed: with its company's name and its request's due date. */
export interface ListedReportRow extends InformationReportRow {
  company_name: string;
  due_date: string;
}

export interface ReportDocumentRow {
  id: string;
  report_id: string;
  requested_document: string;
  status: string;
  position: number;
  request_document_id?: string | null;
  optional?: boolean;
  /** The document the company's file became. */
  document_id?: string | null;
  file_sha256?: string | null;
  updated_at?: string | null;
}

export interface ReportMetricRow {
  id: string;
  report_id: string;
  name: string;
  date: string;
  status: string;
  time_period: string;
  position: number;
  request_metric_id?: string | null;
  category_id?: string | null;
  optional?: boolean;
  /** The draft or submitted value, and its currency (money only). */
  value?: string | null;
  currency?: string | null;
  /** The metric datum the submitted value was written to. */
  datum_id?: string | null;
  updated_at?: string | null;
}

export interface ReportFilter {
  /** One report by id. */
  reportId?: string;
  companyId?: string;
  requestId?: string;
  /** Statuses to keep, or (with `excludeStatuses`) to leave out, compared as `normalStatus` does. */
  statuses?: readonly string[];
  excludeStatuses?: readonly string[];
  /** Late (submitted after the due date, or unsubmitted past it) or not, as of `today` (YYYY-MM-DD). */
  late?: { late: boolean; today: string };
  /** Submitted (true) or not yet (false). */
  submitted?: boolean;
}

/** A report status in lower case with `-` for `_`, so `In_Progress` is `in-progress`. */
const NORMAL_STATUS = "replace(lower(trim(information_reports.status)), '_', '-')";
const SUBMITTED_DAY = 'substr(information_reports.submitted_at, 1, 10)';

function groupBy<T extends Record<K, string>, K extends keyof T>(rows: T[], key: K): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const list = out.get(row[key]) ?? [];
    list.push(row);
    out.set(row[key], list);
  }
  return out;
}

/** The statuses a report counts under; any other status counts as not-started. */
const COUNTED = "('completed', 'in-progress', 'partially-complete')";
const REPORT_STATUS = "replace(lower(trim(rep.status)), '_', '-')";

/**
 * The counters of each request as columns of the same statement, each a count of the request's
 * reports the caller may see (correlated, so a page costs its own rows, not the firm's): lateness
 * from the due date against `today`, in SQL.
 */
function counterColumns(db: Knex, scope: Scope, today: string): Knex.Raw[] {
  const ids = scope.companyIds ? JSON.stringify(scope.companyIds) : undefined;
  const inScope = (column: string) =>
    ids === undefined
      ? ''
      : isPostgres(db)
        ? ` and ${column} in (select json_array_elements_text(?::json))`
        : ` and ${column} in (select value from json_each(?))`;
  const scopeBinding = ids === undefined ? [] : [ids];
  const reports = (where: string, alias: string, extra: string[] = []) =>
    db.raw(
      `(select count(*) from information_reports rep where rep.information_request_id = information_requests.id${inScope('rep.company_id')} and ${where}) as ${alias}`,
      [...scopeBinding, ...extra],
    );
  return [
    reports(`${REPORT_STATUS} = 'completed'`, 'completed_count'),
    reports(`${REPORT_STATUS} = 'in-progress'`, 'in_progress_count'),
    reports(`${REPORT_STATUS} = 'partially-complete'`, 'partially_complete_count'),
    reports(`${REPORT_STATUS} not in ${COUNTED}`, 'not_started_count'),
    reports(`${REPORT_STATUS} <> 'completed' and information_requests.due_date < ?`, 'past_due_count', [
      today,
    ]),
    reports('rep.submitted_at is null', 'unanswered_count'),
    db.raw(
      `(select count(*) from information_request_companies rc where rc.request_id = information_requests.id${inScope('rc.company_id')}) as company_count`,
      scopeBinding,
    ),
  ];
}

const COUNT_COLUMNS = [
  'completed_count',
  'in_progress_count',
  'not_started_count',
  'partially_complete_count',
  'past_due_count',
  'unanswered_count',
  'company_count',
] as const;

/** PostgreSQL answers count(*) as text; SQLite as a number. */
function withCounts(row: Record<string, unknown>): CountedRequestRow {
  const out = { ...row } as Record<string, unknown>;
  for (const c of COUNT_COLUMNS) out[c] = Number(row[c] ?? 0);
  return out as unknown as CountedRequestRow;
}

export interface RequestListFilter {
  name?: string;
  status?: string;
}

export function informationRepo(db: Knex) {
  async function items<T extends { position: number }>(
    table: string,
    column: string,
    ids: string[],
  ): Promise<T[]> {
    if (ids.length === 0) return [];
    const rows = (await db(table)
      .whereIn(column, [...new Set(ids)])
      .orderBy([{ column }, { column: 'position' }, { column: 'id' }])) as T[];
    return rows.map((r) => ({ ...r, position: Number(r.position) }));
  }
  const withBool = <T extends { optional?: unknown }>(rows: T[]) =>
    rows.map((r) => ({ ...r, optional: bool(r.optional) }));

  return {
    /** The firm's information requests, due date newest first, each with its counters. */
    async listRequests(
      scope: Scope,
      filter: RequestListFilter,
      page: Page,
      today: string,
    ): Promise<Counted<CountedRequestRow>> {
      const base = db('information_requests').where('information_requests.firm_id', scope.firmId);
      if (filter.name) whereContains(base, 'information_requests.name', filter.name);
      if (filter.status) base.where('information_requests.status', filter.status);
      const counted = await countAndPage<Record<string, unknown>>(
        db,
        base,
        page,
        (qb) =>
          qb.orderBy([
            { column: 'information_requests.due_date', order: 'desc' },
            { column: 'information_requests.id' },
          ]),
        (qb) => qb.select('information_requests.*', ...counterColumns(db, scope, today)),
      );
      return { count: counted.count, rows: counted.rows.map(withCounts) };
    },
    async getRequest(firmId: string, id: string): Promise<InformationRequestRow | undefined> {
      return db<InformationRequestRow>('information_requests').where({ firm_id: firmId, id }).first();
    },
    /** One request of the firm with its counters over the reports the caller may see. */
    async countedRequest(scope: Scope, id: string, today: string): Promise<CountedRequestRow | undefined> {
      const row = (await db('information_requests')
        .where({ 'information_requests.firm_id': scope.firmId, 'information_requests.id': id })
        .select('information_requests.*', ...counterColumns(db, scope, today))
        .first()) as Record<string, unknown> | undefined;
      return row && withCounts(row);
    },
    /** What each request asks for, in the order it asks. */
    async requestedItems(requestIds: string[]) {
      const documents = await items<RequestedItemRow>(
        'information_request_documents',
        'request_id',
        requestIds,
      );
      const metrics = await items<RequestedItemRow>('information_request_metrics', 'request_id', requestIds);
      return {
        documents: groupBy(withBool(documents), 'request_id'),
        metrics: groupBy(withBool(metrics), 'request_id'),
      };
    },
    /** The companies each request asks, by request id. */
    async requestCompanies(requestIds: string[]): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>();
      if (requestIds.length === 0) return out;
      const rows = (await db('information_request_companies')
        .whereIn('request_id', [...new Set(requestIds)])
        .orderBy(['request_id', 'company_id'])
        .select('request_id', 'company_id')) as { request_id: string; company_id: string }[];
      for (const r of rows) out.set(r.request_id, [...(out.get(r.request_id) ?? []), r.company_id]);
      return out;
    },
    /** Visible reports, the request due last first, then by company name. */
    async listReports(scope: Scope, filter: ReportFilter, page: Page): Promise<Counted<ListedReportRow>> {
      const base = scoped(db('information_reports'), scope, 'information_reports').join(
        'information_requests',
        'information_requests.id',
        'information_reports.information_request_id',
      );
      if (filter.reportId) base.where('information_reports.id', filter.reportId);
      if (filter.companyId) base.where('information_reports.company_id', filter.companyId);
      if (filter.requestId) base.where('information_reports.information_request_id', filter.requestId);
      const statusList = (list: readonly string[]) => list.map(() => '?').join(', ');
      if (filter.statuses)
        base.whereRaw(`${NORMAL_STATUS} in (${statusList(filter.statuses)})`, [...filter.statuses]);
      if (filter.excludeStatuses)
        base.whereRaw(`${NORMAL_STATUS} not in (${statusList(filter.excludeStatuses)})`, [
          ...filter.excludeStatuses,
        ]);
      if (filter.late) {
        const { late, today } = filter.late;
        const due = 'information_requests.due_date';
        base.where((qb) =>
          qb
            .where((q) =>
              q.whereNull('information_reports.submitted_at').where(due, late ? '<' : '>=', today),
            )
            .orWhere((q) =>
              q
                .whereNotNull('information_reports.submitted_at')
                .whereRaw(`${SUBMITTED_DAY} ${late ? '>' : '<='} ${due}`),
            ),
        );
      }
      if (filter.submitted !== undefined) {
        if (filter.submitted) base.whereNotNull('information_reports.submitted_at');
        else base.whereNull('information_reports.submitted_at');
      }
      return countAndPage<ListedReportRow>(
        db,
        base,
        page,
        (qb) =>
          qb
            .orderBy('information_requests.due_date', 'desc')
            .orderByRaw(byName(db, 'companies.name'))
            .orderBy('information_reports.id'),
        (qb) =>
          qb
            .join('companies', 'companies.id', 'information_reports.company_id')
            .select(
              'information_reports.*',
              'companies.name as company_name',
              'information_requests.due_date',
            ),
      );
    },
    /** Visible companies that have no report for the request, by name. */
    async companiesWithoutReport(scope: Scope, requestId: string): Promise<{ id: string; name: string }[]> {
      const asked = db('information_reports').where('information_request_id', requestId).select('company_id');
      return (await scoped(db('companies'), scope, 'companies', 'id')
        .whereNotIn('companies.id', asked)
        .orderByRaw(byName(db, 'companies.name'))
        .orderBy('companies.id')
        .select('companies.id', 'companies.name')) as { id: string; name: string }[];
    },
    /** The documents and metrics of each report, in the order they were requested. */
    async reportItems(reportIds: string[]) {
      const documents = await items<ReportDocumentRow>(
        'information_report_documents',
        'report_id',
        reportIds,
      );
      const metrics = await items<ReportMetricRow>('information_report_metrics', 'report_id', reportIds);
      return {
        documents: groupBy(withBool(documents), 'report_id'),
        metrics: groupBy(withBool(metrics), 'report_id'),
      };
    },
    async createRequest(
      request: InformationRequestRow,
      documents: Omit<RequestedItemRow, 'request_id'>[] = [],
      metrics: Omit<RequestedItemRow, 'request_id'>[] = [],
    ): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('information_requests').insert(request);
        if (documents.length > 0) {
          await trx('information_request_documents').insert(
            documents.map((d) => ({ ...d, request_id: request.id })),
          );
        }
        if (metrics.length > 0) {
          await trx('information_request_metrics').insert(
            metrics.map((m) => ({ ...m, request_id: request.id })),
          );
        }
      });
    },
    async createReport(
      report: InformationReportRow,
      documents: Omit<ReportDocumentRow, 'report_id'>[] = [],
      metrics: Omit<ReportMetricRow, 'report_id'>[] = [],
    ): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('information_reports').insert(report);
        if (documents.length > 0) {
          await trx('information_report_documents').insert(
            documents.map((d) => ({ ...d, report_id: report.id })),
          );
        }
        if (metrics.length > 0) {
          await trx('information_report_metrics').insert(
            metrics.map((m) => ({ ...m, report_id: report.id })),
          );
        }
      });
    },
  };
}
export type InformationRepo = ReturnType<typeof informationRepo>;
