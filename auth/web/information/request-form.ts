// The request form: what a browser posts, read into a tool's input, and the form drawn again with the
// values typed and each refusal beside its field. Plain form posts, no script: rows are fixed, with a
// few blank ones to fill.
import { TIME_PERIODS } from '../../../core/information.ts';
import { html, type SafeHtml } from '../html.ts';

export interface MetricRow {
  category: string;
  time_period: string;
  optional: boolean;
}

export interface DocumentRow {
  name: string;
  description: string;
  optional: boolean;
}

/** The form's values as typed: strings, so a refused form comes back exactly as it was. */
export interface RequestFormValues {
  name: string;
  period: string;
  period_start_date: string;
  period_end_date: string;
  due_date: string;
  message: string;
  reminder_days: string;
  all_companies: boolean;
  company_ids: string[];
  metrics: MetricRow[];
  documents: DocumentRow[];
  copy_from: string;
}

export const EMPTY_FORM: RequestFormValues = {
  name: '',
  period: '',
  period_start_date: '',
  period_end_date: '',
  due_date: '',
  message: '',
  reminder_days: '-7, 0, 7',
  all_companies: false,
  company_ids: [],
  metrics: [],
  documents: [],
  copy_from: '',
};

const MAX_ROWS = 100;

type Body = Record<string, unknown>;
const str = (body: Body, name: string): string => {
  const v = body[name];
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '';
};
const list = (body: Body, name: string): string[] => {
  const v = body[name];
  return typeof v === 'string'
    ? [v]
    : Array.isArray(v)
      ? v.filter((x): x is string => typeof x === 'string')
      : [];
};

/** The rows posted, in order, blank ones dropped. */
function rowsOf<T>(body: Body, prefix: string, read: (at: string) => T, filled: (row: T) => boolean): T[] {
  const rows: T[] = [];
  const keys = Object.keys(body);
  for (let i = 0; i < MAX_ROWS && keys.some((k) => k.startsWith(`${prefix}[${i}].`)); i++) {
    const row = read(`${prefix}[${i}]`);
    if (filled(row)) rows.push(row);
  }
  return rows;
}

export function readRequestForm(raw: unknown): RequestFormValues {
  const body = (raw ?? {}) as Body;
  return {
    name: str(body, 'name'),
    period: str(body, 'period'),
    period_start_date: str(body, 'period_start_date'),
    period_end_date: str(body, 'period_end_date'),
    due_date: str(body, 'due_date'),
    message: str(body, 'message'),
    reminder_days: str(body, 'reminder_days'),
    all_companies: str(body, 'all_companies') === 'on',
    company_ids: list(body, 'company_ids'),
    metrics: rowsOf(
      body,
      'metrics',
      (at) => ({
        category: str(body, `${at}.category`).trim(),
        time_period: str(body, `${at}.time_period`),
        optional: str(body, `${at}.optional`) === 'on',
      }),
      (row) => row.category !== '',
    ),
    documents: rowsOf(
      body,
      'documents',
      (at) => ({
        name: str(body, `${at}.name`).trim(),
        description: str(body, `${at}.description`).trim(),
        optional: str(body, `${at}.optional`) === 'on',
      }),
      (row) => row.name !== '',
    ),
    copy_from: str(body, 'copy_from'),
  };
}

/** The reminder days typed ("-7, 0, 7"), or the field's refusal. */
function reminderDays(text: string): number[] | { problem: string } {
  const parts = text.split(/[\s,;]+/).filter((p) => p !== '');
  if (parts.some((p) => !/^[+-]?\d{1,3}$/.test(p)))
    return { problem: 'must be whole numbers of days from the due date, such as -7, 0, 7' };
  return parts.map(Number);
}

const REQUIRED = ['name', 'period', 'period_start_date', 'period_end_date', 'due_date'] as const;

/** The tool's input from the form, or the fields refused before any tool sees it. */
export async function requestInput(
  values: RequestFormValues,
  allCompanyIds: () => Promise<string[]>,
): Promise<{ input: Record<string, unknown> } | { errors: Map<string, string> }> {
  const errors = new Map<string, string>();
  for (const name of REQUIRED) if (values[name].trim() === '') errors.set(name, 'is required');
  const days = reminderDays(values.reminder_days);
  if ('problem' in days) errors.set('reminder_days', days.problem);
  if (errors.size > 0 || 'problem' in days) return { errors };
  return {
    input: {
      name: values.name.trim(),
      period: values.period.trim(),
      period_start_date: values.period_start_date,
      period_end_date: values.period_end_date,
      due_date: values.due_date,
      message: values.message,
      reminder_days: days,
      company_ids: values.all_companies ? await allCompanyIds() : values.company_ids,
      metrics: values.metrics.map((m) => ({
        category: m.category,
        ...(m.time_period ? { time_period: m.time_period } : {}),
        optional: m.optional,
      })),
      documents: values.documents.map((d) => ({
        name: d.name,
        ...(d.description ? { description: d.description } : {}),
        optional: d.optional,
      })),
    },
  };
}

/** A refusal's field as the form names its input: `company_ids[3]` is the companies' fieldset. */
export function inputName(field: string): string {
  if (/^(metrics|documents)\[\d+\]\.\w+$/.test(field)) return field;
  return field.replace(/[[.].*$/, '');
}

export interface FormContext {
  errors: Map<string, string>;
}

/** The refusal of one input, tied to it for screen readers. */
function errorOf(ctx: FormContext, name: string): { attrs: SafeHtml | ''; message: SafeHtml | '' } {
  const message = ctx.errors.get(name);
  if (!message) return { attrs: '', message: '' };
  const id = `error-${name.replace(/[^\w-]/g, '-')}`;
  return {
    attrs: html` aria-invalid="true" aria-describedby="${id}"`,
    message: html`<p class="field-error" id="${id}">${message}</p>`,
  };
}

const fieldId = (name: string) => `f-${name.replace(/[^\w-]/g, '-')}`;

export function textField(
  ctx: FormContext,
  name: string,
  label: string,
  value: string,
  extra: { type?: string; required?: boolean; hint?: string } = {},
): SafeHtml {
  const e = errorOf(ctx, name);
  const id = fieldId(name);
  return html`<div>
  <label for="${id}">${label}</label>
  ${extra.hint ? html`<p class="hint">${extra.hint}</p>` : ''}
  <input id="${id}" name="${name}" type="${extra.type ?? 'text'}" value="${value}"${extra.required ? html` required` : ''}${e.attrs}>
  ${e.message}
</div>`;
}

function checkbox(name: string, label: string, checked: boolean, value = 'on'): SafeHtml {
  return html`<label class="check"><input type="checkbox" name="${name}" value="${value}"${checked ? html` checked` : ''}> ${label}</label>`;
}

export interface CompanyChoice {
  id: string;
  name: string;
}

export function companiesFieldset(
  ctx: FormContext,
  values: RequestFormValues,
  companies: CompanyChoice[],
): SafeHtml {
  const e = errorOf(ctx, 'company_ids');
  const chosen = new Set(values.company_ids);
  return html`<fieldset${e.attrs}>
  <legend>Companies</legend>
  ${e.message}
  ${checkbox('all_companies', 'All companies I can see', values.all_companies)}
  ${companies.map((c) => checkbox('company_ids', c.name, chosen.has(c.id), c.id))}
</fieldset>`;
}

function metricRow(ctx: FormContext, row: MetricRow, i: number): SafeHtml {
  const at = `metrics[${i}]`;
  const category = errorOf(ctx, `${at}.category`);
  const period = errorOf(ctx, `${at}.time_period`);
  const periods = ['', ...TIME_PERIODS].map(
    (p) =>
      html`<option value="${p}"${row.time_period === p ? html` selected` : ''}>${p === '' ? 'default' : p.replace(/_/g, ' ')}</option>`,
  );
  return html`<div class="row">
  <div>
    <label for="${fieldId(`${at}.category`)}">Metric ${String(i + 1)}</label>
    <input id="${fieldId(`${at}.category`)}" name="${at}.category" type="text" list="metric-names" value="${row.category}"${category.attrs}>
    ${category.message}
  </div>
  <div>
    <label for="${fieldId(`${at}.time_period`)}">Time period</label>
    <select id="${fieldId(`${at}.time_period`)}" name="${at}.time_period"${period.attrs}>${periods}</select>
    ${period.message}
  </div>
  <div>${checkbox(`${at}.optional`, 'Optional', row.optional)}</div>
</div>`;
}

export function metricsFieldset(ctx: FormContext, rows: MetricRow[], names: string[]): SafeHtml {
  const e = errorOf(ctx, 'metrics');
  const blank: MetricRow = { category: '', time_period: '', optional: false };
  const shown = [...rows, blank, blank, blank];
  return html`<fieldset>
  <legend>Metrics asked for</legend>
  <p class="hint">A standard category (revenue, cash_in_bank …) or a custom metric by name. Leave a row empty to skip it.</p>
  ${e.message}
  <datalist id="metric-names">${names.map((n) => html`<option value="${n}">`)}</datalist>
  ${shown.map((row, i) => metricRow(ctx, row, i))}
</fieldset>`;
}

function documentRow(ctx: FormContext, row: DocumentRow, i: number): SafeHtml {
  const at = `documents[${i}]`;
  const name = errorOf(ctx, `${at}.name`);
  const description = errorOf(ctx, `${at}.description`);
  return html`<div class="row">
  <div>
    <label for="${fieldId(`${at}.name`)}">Document ${String(i + 1)}</label>
    <input id="${fieldId(`${at}.name`)}" name="${at}.name" type="text" value="${row.name}"${name.attrs}>
    ${name.message}
  </div>
  <div>
    <label for="${fieldId(`${at}.description`)}">Description</label>
    <input id="${fieldId(`${at}.description`)}" name="${at}.description" type="text" value="${row.description}"${description.attrs}>
    ${description.message}
  </div>
  <div>${checkbox(`${at}.optional`, 'Optional', row.optional)}</div>
</div>`;
}

export function documentsFieldset(ctx: FormContext, rows: DocumentRow[]): SafeHtml {
  const blank: DocumentRow = { name: '', description: '', optional: false };
  return html`<fieldset>
  <legend>Documents asked for</legend>
  ${[...rows, blank, blank].map((row, i) => documentRow(ctx, row, i))}
</fieldset>`;
}

export function messageField(ctx: FormContext, value: string): SafeHtml {
  const e = errorOf(ctx, 'message');
  return html`<div>
  <label for="f-message">Message to founders</label>
  <textarea id="f-message" name="message" rows="4"${e.attrs}>${value}</textarea>
  ${e.message}
</div>`;
}
