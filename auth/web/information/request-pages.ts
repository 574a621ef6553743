import type { InformationRequestDetail } from '../../../tools/information/request-detail.ts';
import type { InformationReport, InformationRequest } from '../../../tools/schemas/information.ts';
import { html, type SafeHtml } from '../html.ts';
import { type NavState, page } from '../layout.ts';
import { alert, hidden, when } from '../pages.ts';
import {
  type CompanyChoice,
  companiesFieldset,
  documentsFieldset,
  type FormContext,
  messageField,
  metricsFieldset,
  type RequestFormValues,
  textField,
} from './request-form.ts';

export const REQUESTS_PATH = '/account/information-requests';

export interface RequestListView {
  nav: NavState;
  requests: InformationRequest[];
  mayEdit: boolean;
  notice?: string;
}

function counters(r: InformationRequest): string {
  const parts = [
    `${r.completed_count} completed`,
    `${r.partially_complete_count} partially complete`,
    `${r.in_progress_count} in progress`,
    `${r.not_started_count} not started`,
  ];
  if (r.past_due_count > 0) parts.push(`${r.past_due_count} late`);
  return `${r.company_count} companies: ${parts.join(', ')}`;
}

export function requestListPage(view: RequestListView): string {
  const rows = view.requests.map(
    (r) => html`<tr>
  <td><a href="${REQUESTS_PATH}/${r.id}">${r.name}</a></td>
  <td>${r.period}</td>
  <td>${r.due_date}</td>
  <td>${r.status}</td>
  <td>${counters(r)}</td>
</tr>`,
  );
  return page({
    title: 'Information requests',
    nav: view.nav,
    body: html`<div class="card">
  <h1>Information requests</h1>
  <p class="muted">Figures and documents asked of portfolio companies each period. Each company's contacts get a private link to answer.</p>
  ${alert('ok', view.notice)}
  ${view.mayEdit ? html`<p><a class="button" href="${REQUESTS_PATH}/new">New request</a></p>` : ''}
  ${
    rows.length > 0
      ? html`<div class="table-wrap"><table>
  <thead><tr><th scope="col">Name</th><th scope="col">Period</th><th scope="col">Due</th><th scope="col">Status</th><th scope="col">Reports</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
      : html`<p class="empty">No information requests yet.</p>`
  }
</div>`,
  });
}

export interface RequestFormView {
  nav: NavState;
  /** Absent for a new request; its id when a draft is changed. */
  requestId?: string;
  values: RequestFormValues;
  companies: CompanyChoice[];
  metricNames: string[];
  /** Earlier requests to copy from (new requests only). */
  earlier: { id: string; name: string }[];
  form: FormContext;
  message?: string;
}

function copyForm(view: RequestFormView): SafeHtml | '' {
  if (view.requestId || view.earlier.length === 0) return '';
  return html`<form class="inline-form" method="get" action="${REQUESTS_PATH}/new">
  <div class="field">
    <label for="copy-from">Copy from an earlier request</label>
    <select id="copy-from" name="copy_from">${view.earlier.map(
      (r) =>
        html`<option value="${r.id}"${view.values.copy_from === r.id ? html` selected` : ''}>${r.name}</option>`,
    )}</select>
  </div>
  <button class="button secondary" type="submit">Copy</button>
</form>`;
}

function errorSummary(form: FormContext, message: string | undefined): SafeHtml | '' {
  if (!message) return '';
  const items = [...form.errors].map(([field, text]) => html`<li>${field.replace(/_/g, ' ')}: ${text}</li>`);
  return html`<div class="alert error" role="alert" id="form-error"><p>${message}</p>${items.length > 0 ? html`<ul class="plain">${items}</ul>` : ''}</div>`;
}

export function requestFormPage(view: RequestFormView, csrfToken: string): string {
  const v = view.values;
  const f = view.form;
  const action = view.requestId ? `${REQUESTS_PATH}/${view.requestId}/edit` : REQUESTS_PATH;
  const title = view.requestId ? 'Change the draft' : 'New information request';
  return page({
    title,
    nav: view.nav,
    body: html`<div class="card">
  <h1>${title}</h1>
  ${copyForm(view)}
  ${errorSummary(f, view.message)}
  <form method="post" action="${action}" novalidate>
    ${hidden({ csrf_token: csrfToken, copy_from: v.copy_from || undefined })}
    ${textField(f, 'name', 'Name', v.name, { required: true, hint: 'Such as "Q3 2026 update".' })}
    ${textField(f, 'period', 'Period', v.period, { required: true, hint: 'The label founders see, such as 2026-Q3.' })}
    ${textField(f, 'period_start_date', 'Period start', v.period_start_date, { type: 'date', required: true })}
    ${textField(f, 'period_end_date', 'Period end', v.period_end_date, { type: 'date', required: true })}
    ${textField(f, 'due_date', 'Due date', v.due_date, { type: 'date', required: true })}
    ${companiesFieldset(f, v, view.companies)}
    ${metricsFieldset(f, v.metrics, view.metricNames)}
    ${documentsFieldset(f, v.documents)}
    ${messageField(f, v.message)}
    ${textField(f, 'reminder_days', 'Reminders', v.reminder_days, { hint: 'Days from the due date when reminders go out: -7 is a week before, 0 the day, 7 a week after.' })}
    <button class="button full" type="submit">${view.requestId ? 'Save the draft' : 'Create the draft'}</button>
  </form>
</div>`,
  });
}

export interface RequestView {
  nav: NavState;
  request: InformationRequestDetail;
  reports: InformationReport[];
  remindedAt: Map<string, string | null>;
  mayEdit: boolean;
  notice?: string;
  warning?: string;
  error?: string;
}

function reportRow(r: InformationReport, remindedAt: string | null | undefined): SafeHtml {
  return html`<tr>
  <td>${r.company_name}</td>
  <td>${r.status}${r.is_late ? html` <span class="badge">late</span>` : ''}</td>
  <td>${String(r.metrics_completed + r.documents_completed)} completed, ${String(r.metrics_missing + r.documents_missing)} missing</td>
  <td>${r.submitted_at ? when(r.submitted_at) : 'not yet'}</td>
  <td>${when(remindedAt)}</td>
</tr>`;
}

function action(id: string, csrf: string, verb: string, label: string, kind = 'secondary'): SafeHtml {
  return html`<form method="post" action="${REQUESTS_PATH}/${id}/${verb}">
  ${hidden({ csrf_token: csrf })}
  <button class="button ${kind}" type="submit">${label}</button>
</form>`;
}

function actions(view: RequestView): SafeHtml | '' {
  const { request: r, nav } = view;
  if (!view.mayEdit) return '';
  const csrf = nav.csrfToken;
  const buttons: SafeHtml[] = [];
  if (r.status === 'draft') {
    buttons.push(action(r.id, csrf, 'send', 'Send', ''));
    buttons.push(html`<a class="button secondary" href="${REQUESTS_PATH}/${r.id}/edit">Change</a>`);
    buttons.push(action(r.id, csrf, 'delete', 'Delete the draft', 'danger'));
  } else if (r.status === 'sent') {
    buttons.push(action(r.id, csrf, 'remind', 'Remind those who have not answered', ''));
    buttons.push(action(r.id, csrf, 'close', 'Close', 'danger'));
  }
  return buttons.length > 0 ? html`<div class="actions">${buttons}</div>` : '';
}

function asked(r: InformationRequestDetail): SafeHtml {
  const item = (name: string, optional: boolean, extra = '') =>
    html`<li>${name}${extra}${optional ? html` <span class="badge">optional</span>` : ''}</li>`;
  return html`<h2>Asked for</h2>
  <ul class="plain">
    ${r.requested_metrics.map((m) => item(m.name, m.optional, m.time_period ? ` (${m.time_period.replace(/_/g, ' ')})` : ''))}
    ${r.requested_documents.map((d) => item(d.name, d.optional, d.description !== d.name ? ` — ${d.description}` : ''))}
  </ul>`;
}

export function requestPage(view: RequestView): string {
  const r = view.request;
  return page({
    title: r.name,
    nav: view.nav,
    body: html`<div class="card">
  <p><a href="${REQUESTS_PATH}">All requests</a></p>
  <h1>${r.name}</h1>
  ${alert('ok', view.notice)}
  ${alert('warn', view.warning)}
  ${alert('error', view.error)}
  <dl class="facts">
    <dt>Status</dt><dd>${r.status}</dd>
    <dt>Period</dt><dd>${r.period} (${r.period_start_date} to ${r.period_end_date})</dd>
    <dt>Due</dt><dd>${r.due_date}</dd>
    <dt>Reminders</dt><dd>${r.reminder_days.length > 0 ? `${r.reminder_days.join(', ')} days from the due date` : 'none'}</dd>
    <dt>Companies</dt><dd>${String(r.company_count)}</dd>
  </dl>
  ${asked(r)}
  ${actions(view)}
</div>
<section class="card" aria-labelledby="reports-heading">
  <h2 id="reports-heading">Reports</h2>
  ${
    view.reports.length > 0
      ? html`<div class="table-wrap"><table>
  <thead><tr><th scope="col">Company</th><th scope="col">Status</th><th scope="col">Items</th><th scope="col">Submitted</th><th scope="col">Last reminded</th></tr></thead>
  <tbody>${view.reports.map((x) => reportRow(x, view.remindedAt.get(x.id)))}</tbody>
</table></div>`
      : html`<p class="empty">${r.status === 'draft' ? 'Each company gets its report when the request is sent.' : 'No reports.'}</p>`
  }
</section>`,
  });
}
