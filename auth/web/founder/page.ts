// The founder's page as HTML: no script, styles inline, one form that works by keyboard and at phone
// width. Every value shown is escaped by the `html` tag.
import { CURRENCY_CODES } from '../../../core/money.ts';
import type {
  FounderDocumentField,
  FounderMetricField,
  FounderView,
} from '../../../services/founder-view.ts';
import { html, SafeHtml } from '../html.ts';

// Colours meet WCAG AA against their backgrounds; focus is a 3px ring that never depends on colour alone.
const css = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#16191f;background:#f3f4f6}
a{color:#1d4ed8}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
main{max-width:44rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.card{background:#fff;border:1px solid #d9dce1;border-radius:12px;padding:1.25rem;margin-top:1.25rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .5rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:0 0 .5rem}
h2.next{margin-top:1.5rem}
p{margin:.5rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:1rem 0}
dl.facts dt{color:#4b5161}
dl.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
fieldset{border:1px solid #d9dce1;border-radius:10px;margin:1rem 0 0;padding:.75rem 1rem 1rem;min-width:0}
legend{font-weight:700;padding:0 .35rem;overflow-wrap:anywhere}
label{display:block;font-weight:600;margin:.6rem 0 .3rem}
.row{display:flex;flex-wrap:wrap;gap:0 .75rem}
.row .grow{flex:1 1 12rem;min-width:0}
.row .small{flex:0 1 7rem;min-width:0}
input[type=text],select,input[type=file]{display:block;width:100%;max-width:100%;font:inherit;padding:.55rem .7rem;border:1px solid #8a909c;border-radius:8px;background:#fff;color:#16191f}
[aria-invalid=true]{border-color:#a11b1b;border-width:2px}
.hint{font-size:.875rem;color:#4b5161;margin:.25rem 0 0;overflow-wrap:anywhere}
.error{color:#8a1414;font-weight:600;margin:.3rem 0 0}
.optional{font-weight:400;color:#4b5161}
.alert{border-radius:8px;padding:.75rem 1rem;margin:1rem 0;border:1px solid}
.alert.error{background:#fdf0f0;border-color:#e8a3a3;color:#8a1414}
.alert.ok{background:#effaf3;border-color:#9bd3ad;color:#14532d}
.alert.info{background:#eef3fd;border-color:#a9c0f0;color:#1e3a8a}
.alert ul{margin:.4rem 0 0;padding-left:1.25rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}
.button{flex:1 1 10rem;font:inherit;font-weight:600;min-height:2.75rem;padding:.55rem 1.1rem;border-radius:8px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer}
.button.secondary{background:#fff;color:#16191f;border-color:#8a909c}
@media (max-width:30rem){main{padding:1rem .75rem 2rem}.card{padding:1rem}dl.facts{grid-template-columns:1fr;gap:0}dl.facts dd{margin-bottom:.4rem}}
`;

function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${new SafeHtml(css)}</style>
</head>
<body>
<main id="main">
${body}
</main>
</body>
</html>
`.value;
}

/** What the founder typed, by form field name, to show again after a refused save. */
export type Typed = Record<string, string>;

/** A message per form field (its input's id), and the summary's wording. */
export interface FieldProblems {
  byInput: Map<string, string>;
  /** Errors that belong to no single input (the report as a whole). */
  general: string[];
}

export interface FormState {
  csrfToken: string;
  action: string;
  typed?: Typed;
  problems?: FieldProblems;
  /** A note at the top after a save: a draft kept, or a submission again. */
  notice?: string;
}

export const metricValueName = (itemId: string) => `metric.${itemId}.value`;
export const metricCurrencyName = (itemId: string) => `metric.${itemId}.currency`;
export const documentName = (itemId: string) => `document.${itemId}`;
/** Element ids: letters, digits and dashes only, from the item ids. */
export const idOf = (name: string) => name.replace(/[^A-Za-z0-9-]/g, '-');

const KIND_HINTS: Record<string, string> = {
  percentage: 'A fraction: 0.25 is 25 %.',
  multiple: 'A multiple, such as 2.5.',
  months: 'A number of months.',
};

function hintFor(field: FounderMetricField): string {
  if (field.kind === 'text' || field.kind === 'select') return '';
  const base = KIND_HINTS[field.kind] ?? 'A number; use a dot for decimals, no thousands separators.';
  return `${base} At most 30 significant digits.`;
}

/** Describing ids of an input: its hint, and its error when it has one. */
function describedBy(id: string, hasHint: boolean, error: string | undefined): SafeHtml {
  const ids = [hasHint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return ids ? html` aria-describedby="${ids}"` : html``;
}

function errorLine(id: string, error: string | undefined): SafeHtml | string {
  return error ? html`<p class="error" id="${id}-error">Error: ${error}</p>` : '';
}

function optionalMark(optional: boolean): SafeHtml | string {
  return optional ? html` <span class="optional">(optional)</span>` : '';
}

function currencySelect(field: FounderMetricField, state: FormState): SafeHtml | string {
  if (field.currency === null) return '';
  const name = metricCurrencyName(field.item_id);
  const id = idOf(name);
  const chosen = state.typed?.[name] ?? field.currency;
  const error = state.problems?.byInput.get(id);
  return html`<div class="small">
      <label for="${id}">Currency for ${field.label}</label>
      <select id="${id}" name="${name}"${error ? html` aria-invalid="true"` : ''}${describedBy(id, false, error)}>
        ${CURRENCY_CODES.map((c) => html`<option value="${c}"${c === chosen ? html` selected` : ''}>${c}</option>`)}
      </select>
      ${errorLine(id, error)}
    </div>`;
}

function valueInput(field: FounderMetricField, id: string, name: string, value: string, extra: SafeHtml) {
  if (field.kind === 'select' && field.choices.length > 0)
    return html`<select id="${id}" name="${name}"${extra}>
        <option value="">(no answer)</option>
        ${field.choices.map((c) => html`<option value="${c}"${c === value ? html` selected` : ''}>${c}</option>`)}
      </select>`;
  const mode = field.kind === 'text' ? '' : html` inputmode="decimal"`;
  return html`<input type="text" id="${id}" name="${name}" value="${value}" autocomplete="off"${mode}${extra}>`;
}

function metricFieldset(field: FounderMetricField, state: FormState): SafeHtml {
  const name = metricValueName(field.item_id);
  const id = idOf(name);
  const value = state.typed?.[name] ?? field.value ?? '';
  const error = state.problems?.byInput.get(id);
  const hint = hintFor(field);
  const previous = field.previous
    ? `Previous period (${field.previous.date}): ${field.previous.value}${field.previous.currency ? ` ${field.previous.currency}` : ''}`
    : 'No value for the previous period.';
  const hintText = [field.description, previous, hint].filter(Boolean).join(' ');
  const extra = html`${error ? html` aria-invalid="true"` : ''}${describedBy(id, true, error)}`;
  return html`<fieldset>
    <legend>${field.label}${optionalMark(field.optional)}</legend>
    <div class="row">
      <div class="grow">
        <label for="${id}">${field.label} (${field.time_period})${optionalMark(field.optional)}</label>
        ${valueInput(field, id, name, value, extra)}
        <p class="hint" id="${id}-hint">${hintText}</p>
        ${errorLine(id, error)}
      </div>
      ${currencySelect(field, state)}
    </div>
  </fieldset>`;
}

function documentFieldset(field: FounderDocumentField, state: FormState): SafeHtml {
  const name = documentName(field.item_id);
  const id = idOf(name);
  const error = state.problems?.byInput.get(id);
  const saved = field.document ? `Received: ${field.document.name}. Choose a file only to replace it.` : '';
  const hintText = [field.description, saved, 'PDF, Word, Excel, PowerPoint, ODS or an image; up to 32 MB.']
    .filter(Boolean)
    .join(' ');
  return html`<fieldset>
    <legend>${field.name}${optionalMark(field.optional)}</legend>
    <label for="${id}">File for ${field.name}${optionalMark(field.optional)}</label>
    <input type="file" id="${id}" name="${name}"${error ? html` aria-invalid="true"` : ''}${describedBy(id, true, error)}>
    <p class="hint" id="${id}-hint">${hintText}</p>
    ${errorLine(id, error)}
  </fieldset>`;
}

function summary(problems: FieldProblems | undefined): SafeHtml | string {
  if (!problems || (problems.byInput.size === 0 && problems.general.length === 0)) return '';
  const items = [
    ...problems.general.map((m) => html`<li>${m}</li>`),
    ...[...problems.byInput].map(([id, m]) => html`<li><a href="#${id}">${m}</a></li>`),
  ];
  return html`<div class="alert error" role="alert" aria-labelledby="error-summary-title" tabindex="-1" id="error-summary">
    <h2 id="error-summary-title">Nothing was saved: please correct ${items.length === 1 ? 'this' : 'these'}</h2>
    <ul>${items}</ul>
    <p>Files chosen before must be chosen again.</p>
  </div>`;
}

function facts(view: FounderView): SafeHtml {
  const late = view.report.is_late ? html` <span class="error">(late)</span>` : '';
  return html`<dl class="facts">
    <dt>From</dt><dd>${view.firm.name}</dd>
    <dt>Company</dt><dd>${view.company.name}</dd>
    <dt>Period</dt><dd>${view.request.period} (${view.request.period_start_date} to ${view.request.period_end_date})</dd>
    <dt>Due</dt><dd>${view.request.due_date}${late}</dd>
    <dt>Status</dt><dd>${view.report.status}</dd>
  </dl>`;
}

/** The form: a field per metric, an upload per document, a draft and a submit button. */
export function reportPage(view: FounderView, state: FormState): string {
  const submitted = view.report.submitted_at !== null;
  const notice = state.notice ? html`<div class="alert ok" role="status">${state.notice}</div>` : '';
  const again = submitted
    ? html`<div class="alert info">This report was submitted on ${view.report.submitted_at!.slice(0, 10)}. Submitting again replaces the figures and files it holds; nothing is added twice.</div>`
    : '';
  const draft = submitted
    ? ''
    : html`<button class="button secondary" type="submit" name="action" value="draft">Save draft</button>`;
  const body = html`${summary(state.problems)}${notice}
  <h1>${view.request.name}</h1>
  <p>${view.firm.name} asks ${view.company.name} for the figures and documents below.</p>
  ${facts(view)}
  ${view.request.message ? html`<p class="hint">${view.request.message}</p>` : ''}
  ${again}
  <form class="card" method="post" action="${state.action}" enctype="multipart/form-data" novalidate>
    <input type="hidden" name="csrf_token" value="${state.csrfToken}">
    <input type="hidden" name="report_id" value="${view.report.id}">
    ${view.metrics.length > 0 ? html`<h2>Figures</h2>` : ''}
    ${view.metrics.map((m) => metricFieldset(m, state))}
    ${view.documents.length > 0 ? html`<h2 class="next">Documents</h2>` : ''}
    ${view.documents.map((d) => documentFieldset(d, state))}
    <div class="actions">
      ${draft}
      <button class="button" type="submit" name="action" value="submit">Submit${submitted ? ' again' : ''}</button>
    </div>
  </form>`;
  const title = state.problems ? `Error: ${view.request.name}` : view.request.name;
  return layout(`${title} · ${view.company.name}`, body);
}

/** After a submission: the report's status and the confirmation mail. */
export function submittedPage(view: FounderView, options: { again: boolean; changed: boolean }): string {
  const status =
    view.report.status === 'completed'
      ? 'Every requested item was received.'
      : 'Some required items are still missing: open this link again to add them before the due date.';
  const again = options.again
    ? options.changed
      ? 'It had been submitted before: its figures and files were replaced, nothing was added twice.'
      : 'It had been submitted before with the same answers: nothing changed.'
    : '';
  const mail = options.changed ? html`<p>A confirmation was sent to ${view.contact.email}.</p>` : '';
  const body = html`<div class="alert ok" role="status">
    <h1>Thank you: the report was submitted</h1>
    <p>Status: <strong>${view.report.status}</strong>. ${status}</p>
    ${again ? html`<p>${again}</p>` : ''}
  </div>
  ${mail}
  ${facts(view)}
  <p>You can close this page. The link keeps working until the firm closes the request, should anything need changing.</p>`;
  return layout(`Submitted · ${view.request.name}`, body);
}

/** A page that explains a refusal (a link that cannot be used, a limit, a stale form). */
export function messagePage(title: string, lines: string[]): string {
  return layout(title, html`<div class="card"><h1>${title}</h1>${lines.map((l) => html`<p>${l}</p>`)}</div>`);
}
