// What a founder's page shows for one report: who asks, for what period and by when; one field per
// requested metric (its kind, currency, the value saved so far and the previous period's value for
// context) and one upload per requested document. A read: nothing is written.
import { isMonetary } from '../core/categories.ts';
import type { Clock } from '../core/clock.ts';
import { isLate } from '../core/information.ts';
import type { Repos } from '../db/repos/index.ts';
import type { FounderSession } from './founder-links.ts';
import { itemLabel } from './information-mail.ts';

export interface FounderMetricField {
  item_id: string;
  /** The category or custom metric name, and how a person reads it. */
  name: string;
  label: string;
  /** currency, percentage (a fraction: 0.25 is 25 %), number, multiple, months, text or select. */
  kind: string;
  choices: string[];
  time_period: string;
  optional: boolean;
  description: string;
  status: string;
  value: string | null;
  /** Money only: the currency saved, else the company's reporting currency. */
  currency: string | null;
  previous: { value: string; currency: string | null; date: string } | null;
}

export interface FounderDocumentField {
  item_id: string;
  name: string;
  description: string;
  optional: boolean;
  status: string;
  document: { id: string; name: string } | null;
}

export interface FounderView {
  firm: { name: string };
  company: { id: string; name: string; reporting_currency: string };
  contact: { name: string; email: string };
  request: {
    id: string;
    name: string;
    period: string;
    period_start_date: string;
    period_end_date: string;
    due_date: string;
    message: string;
  };
  report: { id: string; status: string; submitted_at: string | null; is_late: boolean };
  metrics: FounderMetricField[];
  documents: FounderDocumentField[];
}

/** The page's content for a checked link's report. */
export async function founderReportView(
  deps: { repos: Repos; clock: Clock },
  session: FounderSession,
): Promise<FounderView> {
  const { repos } = deps;
  const reportId = session.link.report_id;
  const report = (await repos.informationWrites.lockReport(session.firm.id, reportId, false))!;
  const request = await repos.information.getRequest(session.firm.id, report.information_request_id);
  const requested = await repos.information.requestedItems([report.information_request_id]);
  const metrics = await repos.informationWrites.reportMetrics(reportId);
  const documents = await repos.informationWrites.reportDocuments(reportId);
  const categories = await repos.metrics.categories(session.firm.id);
  const byCategory = new Map(categories.map((c) => [c.id, c]));
  const asked = new Map(
    [
      ...(requested.metrics.get(report.information_request_id) ?? []),
      ...(requested.documents.get(report.information_request_id) ?? []),
    ].map((i) => [i.id, i]),
  );
  const previous = await repos.informationWrites.previousValues(
    session.company.id,
    metrics
      .filter((m) => m.category_id)
      .map((m) => ({ category_id: m.category_id!, cadence: m.time_period })),
    report.period_start_date,
  );
  const currency = session.company.reporting_currency;
  return {
    firm: { name: session.firm.name },
    company: { id: session.company.id, name: session.company.name, reporting_currency: currency },
    contact: { name: session.contact.name, email: session.contact.email },
    request: {
      id: report.information_request_id,
      name: report.request_name,
      period: report.period,
      period_start_date: report.period_start_date,
      period_end_date: report.period_end_date,
      due_date: report.due_date,
      message: request?.message ?? '',
    },
    report: {
      id: report.id,
      status: report.status,
      submitted_at: report.submitted_at,
      is_late: isLate(report.submitted_at, report.due_date, deps.clock.now().toISOString().slice(0, 10)),
    },
    metrics: metrics.map((m) => {
      const category = m.category_id ? byCategory.get(m.category_id) : undefined;
      const kind = category?.category_type ?? 'number';
      return {
        item_id: m.id,
        name: m.name,
        label: itemLabel(m.name, category?.is_standard ?? false),
        kind,
        choices: category?.choices ?? [],
        time_period: m.time_period,
        optional: m.optional ?? false,
        description: (m.request_metric_id && asked.get(m.request_metric_id)?.description) || '',
        status: m.status,
        value: m.value ?? null,
        currency: isMonetary(kind) ? (m.currency ?? currency) : null,
        previous: (m.category_id && previous.get(`${m.category_id}|${m.time_period}`)) || null,
      };
    }),
    documents: await documentFields(repos, session.firm.id, documents, asked),
  };
}

async function documentFields(
  repos: Repos,
  firmId: string,
  documents: Awaited<ReturnType<Repos['informationWrites']['reportDocuments']>>,
  asked: Map<string, { description?: string }>,
): Promise<FounderDocumentField[]> {
  const names = await repos.documents.names(
    firmId,
    documents.flatMap((d) => (d.document_id ? [d.document_id] : [])),
  );
  return documents.map((d) => {
    const name = d.document_id ? names.get(d.document_id) : undefined;
    return {
      item_id: d.id,
      name: d.requested_document,
      description: (d.request_document_id && asked.get(d.request_document_id)?.description) || '',
      optional: d.optional ?? false,
      status: d.status,
      document: d.document_id && name ? { id: d.document_id, name } : null,
    };
  });
}
