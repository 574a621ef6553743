import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import type { Counted, Page } from '../types.ts';
import { bool, countAndPage, scoped, whereContains } from './util.ts';

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
}

/** A document or metric an information request asks for. */
export interface RequestedItemRow {
  id: string;
  request_id: string;
  name: string;
  optional: boolean;
  position: number;
}

export interface InformationReportRow {
  id: string;
  firm_id: string;
  company_id: string;
  information_request_id: string;
  submitted_at: string | null;
  status: string;
  created_at: string;
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
}

export interface ReportMetricRow {
  id: string;
  report_id: string;
  name: string;
  date: string;
  status: string;
  time_period: string;
  position: number;
}

export interface ReportStatusCount {
  information_request_id: string;
  status: string;
  count: number;
  /** Of those, the reports not submitted yet. */
  unsubmitted: number;
}

export interface ReportFilter {
  companyId?: string;
  requestId?: string;
  /** Statuses to keep, or (with `excludeStatuses`) to leave out, compared as `normalStatus` does. */
  statuses?: readonly string[];
  excludeStatuses?: readonly string[];
  /** Late (submitted after the due date, or unsubmitted past it) or not, as of `today` (YYYY-MM-DD). */
  late?: { late: boolean; today: string };
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

  return {
    /** The firm's information requests, due date newest first. */
    async listRequests(
      firmId: string,
      filter: { name?: string },
      page: Page,
    ): Promise<Counted<InformationRequestRow>> {
      const base = db('information_requests').where('information_requests.firm_id', firmId);
      if (filter.name) whereContains(base, 'information_requests.name', filter.name);
      return countAndPage<InformationRequestRow>(base, page, (qb) =>
        qb.orderBy([
          { column: 'information_requests.due_date', order: 'desc' },
          { column: 'information_requests.id' },
        ]),
      );
    },
    async getRequest(firmId: string, id: string): Promise<InformationRequestRow | undefined> {
      return db<InformationRequestRow>('information_requests').where({ firm_id: firmId, id }).first();
    },
    /** What each request asks for, in the order it asks. */
    async requestedItems(requestIds: string[]) {
      const [documents, metrics] = await Promise.all([
        items<RequestedItemRow>('information_request_documents', 'request_id', requestIds),
        items<RequestedItemRow>('information_request_metrics', 'request_id', requestIds),
      ]);
      const withBool = (rows: RequestedItemRow[]) => rows.map((r) => ({ ...r, optional: bool(r.optional) }));
      return {
        documents: groupBy(withBool(documents), 'request_id'),
        metrics: groupBy(withBool(metrics), 'request_id'),
      };
    },
    /** How many visible reports of each request are in each status. */
    async reportStatusCounts(scope: Scope, requestIds: string[]): Promise<ReportStatusCount[]> {
      if (requestIds.length === 0) return [];
      const rows = (await scoped(db('information_reports'), scope, 'information_reports')
        .whereIn('information_reports.information_request_id', requestIds)
        .groupBy('information_reports.information_request_id', 'information_reports.status')
        .select('information_reports.information_request_id', 'information_reports.status')
        .count({ count: '*' })
        .select(
          db.raw('sum(case when information_reports.submitted_at is null then 1 else 0 end) as unsubmitted'),
        )) as {
        information_request_id: string;
        status: string;
        count: number | string;
        unsubmitted: number | string;
      }[];
      return rows.map((r) => ({ ...r, count: Number(r.count), unsubmitted: Number(r.unsubmitted) }));
    },
    /** Visible reports, newest submission first and unsubmitted ones last. */
    async listReports(scope: Scope, filter: ReportFilter, page: Page): Promise<Counted<ListedReportRow>> {
      const base = scoped(db('information_reports'), scope, 'information_reports').join(
        'information_requests',
        'information_requests.id',
        'information_reports.information_request_id',
      );
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
      return countAndPage<ListedReportRow>(
        base,
        page,
        (qb) =>
          qb
            .orderByRaw('case when information_reports.submitted_at is null then 1 else 0 end')
            .orderBy([
              { column: 'information_reports.submitted_at', order: 'desc' },
              { column: 'information_reports.id' },
            ]),
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
        .orderBy([{ column: 'companies.name' }, { column: 'companies.id' }])
        .select('companies.id', 'companies.name')) as { id: string; name: string }[];
    },
    /** The documents and metrics of each report, in the order they were requested. */
    async reportItems(reportIds: string[]) {
      const [documents, metrics] = await Promise.all([
        items<ReportDocumentRow>('information_report_documents', 'report_id', reportIds),
        items<ReportMetricRow>('information_report_metrics', 'report_id', reportIds),
      ]);
      return { documents: groupBy(documents, 'report_id'), metrics: groupBy(metrics, 'report_id') };
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
