import express, { type Router } from 'express';
import { InvalidInput } from '../../../core/errors.ts';
import { confirmDocumentProposals } from '../../../tools/documents/confirm-document-proposals.ts';
import { listDocumentProposals } from '../../../tools/documents/list-document-proposals.ts';
import { rejectDocumentProposals } from '../../../tools/documents/reject-document-proposals.ts';
import { MAX_REVIEW_IDS } from '../../../tools/schemas/proposal-review.ts';
import { html, type SafeHtml } from '../html.ts';
import { mayEdit, refusalPage, run, webToolContext } from '../information/context.ts';
import { page } from '../layout.ts';
import { sendHtml } from '../respond.ts';
import { field, nav, signedIn, type WebOptions } from '../signed-in.ts';

const path = (id: string) => `/account/documents/${encodeURIComponent(id)}/proposals`;

type Row = Awaited<ReturnType<typeof listDocumentProposals.handler>>['results'][number];

const notices: Record<string, string> = {
  confirmed: 'The mapped figures shown are confirmed and written as metric data.',
  rejected: 'The open figures shown are rejected.',
};

/**
 * The buttons post the ids of the proposals the page showed, one field of them: up to the review
 * tools' MAX_REVIEW_IDS (10,000) ids of 16 characters, more than the other forms' 16 kB.
 */
const idsForm = express.urlencoded({ extended: false, limit: '256kb' });

/** Pages of 100 table rows the review page draws at most: a thousand lines of a workbook. */
const MAX_PAGES = 10;

/** One line of a sheet as the page draws it: its label, what it maps to, and its values by period column. */
interface Line {
  row: number;
  label: string;
  categories: Set<string>;
  statuses: Set<string>;
  values: Map<number, { cell: string; value: string | null }>;
}

/** A period column of a sheet, where the sheet has it. */
interface Column {
  /** Its place in the sheet: a column, or a row where the periods run down. */
  at: number;
  kind: string;
  date: string;
}

/** A cell reference's one-based column and row (`C7` → [3, 7]). */
function placeOf(cell: string): [number, number] {
  const m = /^([A-Z]+)(\d+)$/.exec(cell);
  if (!m) return [0, 0];
  return [[...m[1]!].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0), Number(m[2])];
}

/**
 * Where a value's period sits in its sheet: the column of its cell when the line is a row of the sheet,
 * the row of its cell when the line is a column (periods down). Keyed by place, not by date: a quarter's
 * total beside its months ends on the same day as its last month.
 */
function periodPlace(cell: string, line: number): number {
  const [column, row] = placeOf(cell);
  return row === line ? column : row;
}

interface SheetGrid {
  name: string;
  columns: Column[];
  lines: Line[];
}

/** The listed rows as each sheet's grid: period columns across in sheet order, one line per row label in sheet order. */
function sheetGrids(rows: readonly Row[]): SheetGrid[] {
  const sheets = new Map<string, { columns: Map<number, Column>; lines: Map<string, Line> }>();
  for (const r of rows) {
    let sheet = sheets.get(r.sheet);
    if (!sheet) {
      sheet = { columns: new Map(), lines: new Map() };
      sheets.set(r.sheet, sheet);
    }
    const lineKey = `${r.row}|${r.label}`;
    let line = sheet.lines.get(lineKey);
    if (!line) {
      line = { row: r.row, label: r.label, categories: new Set(), statuses: new Set(), values: new Map() };
      sheet.lines.set(lineKey, line);
    }
    if (r.category) line.categories.add(r.category);
    line.statuses.add(r.status);
    for (const [, cell, date, value] of r.cells) {
      if (!date) continue;
      const at = periodPlace(cell, r.row);
      if (!sheet.columns.has(at)) sheet.columns.set(at, { at, kind: r.kind, date });
      line.values.set(at, { cell, value });
    }
  }
  return [...sheets].map(([name, sheet]) => ({
    name,
    columns: [...sheet.columns.values()].sort((a, b) => a.at - b.at),
    lines: [...sheet.lines.values()].sort((a, b) => a.row - b.row),
  }));
}

/** A line of the sheet: a mapped one highlighted with its metric, an unmapped one plain; each value titled with its cell. */
function lineHtml(sheet: string, columns: readonly Column[], line: Line): SafeHtml {
  const mapped = line.categories.size > 0;
  const metric = mapped ? html`<mark>${[...line.categories].join(', ')}</mark>` : html`<em>not mapped</em>`;
  const cells = columns.map((c) => {
    const v = line.values.get(c.at);
    return v ? html`<td title="${sheet}!${v.cell}">${v.value ?? '–'}</td>` : html`<td></td>`;
  });
  return html`<tr data-mapped="${mapped ? 'yes' : 'no'}"${mapped ? html` class="mapped"` : ''}>
      <th scope="row">${line.label}</th><td>${metric}</td><td>${[...line.statuses].join(', ')}</td>${cells}
    </tr>`;
}

function sheetHtml(grid: SheetGrid): SafeHtml {
  const heads = grid.columns.map(
    (c) => html`<th scope="col">${c.kind === 'budget' ? 'Budget ' : ''}${c.date}</th>`,
  );
  return html`<h2>${grid.name}</h2>
    <div class="table-wrap"><table class="sheet" data-sheet="${grid.name}">
      <thead><tr><th scope="col">Row</th><th scope="col">Metric</th><th scope="col">Status</th>${heads}</tr></thead>
      <tbody>${grid.lines.map((line) => lineHtml(grid.name, grid.columns, line))}</tbody>
    </table></div>`;
}

/** The proposals of a listed row: an unmapped row's one, or each cell's. */
const idsOf = (r: Row): string[] => (r.id ? [r.id] : r.cells.flatMap(([cellId]) => (cellId ? [cellId] : [])));

/** What the buttons act on: the open proposals shown, and how many figures each button settles. */
function shownOpen(rows: readonly Row[]): {
  mapped: string[];
  open: string[];
  mappedFigures: number;
  openFigures: number;
} {
  const open = rows.filter((r) => r.status === 'proposed');
  const mappedRows = open.filter((r) => r.category !== null);
  // A figure is a value the page shows: an unmapped row is one proposal of several.
  const figures = (list: readonly Row[]) => list.reduce((n, r) => n + Math.max(1, r.cells.length), 0);
  return {
    mapped: mappedRows.flatMap(idsOf),
    open: open.flatMap(idsOf),
    mappedFigures: figures(mappedRows),
    openFigures: figures(open),
  };
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** The confirm and reject buttons, each posting the ids of the open proposals shown that it acts on. */
function buttonsHtml(id: string, listed: { rows: readonly Row[]; count: number }, csrf: string): SafeHtml {
  const shown = shownOpen(listed.rows);
  const button = (action: string, ids: readonly string[], label: string) =>
    ids.length === 0
      ? ''
      : html`<form method="post" action="${path(id)}/${action}">
        <input type="hidden" name="csrf_token" value="${csrf}">
        <input type="hidden" name="ids" value="${ids.join(' ')}">
        <button class="button" type="submit">${label}</button>
      </form>`;
  const partial =
    listed.count > listed.rows.length
      ? html`<p>The buttons act on the ${listed.rows.length} table rows shown only; the other ${listed.count - listed.rows.length} stay open.</p>`
      : '';
  return html`${partial}${button(
    'confirm',
    shown.mapped,
    `Confirm the ${plural(shown.mappedFigures, 'mapped figure')} shown`,
  )}${button('reject', shown.open, `Reject the ${plural(shown.openFigures, 'open figure')} shown`)}`;
}

function reviewPage(
  id: string,
  listed: { rows: readonly Row[]; count: number },
  csrf: string,
  edit: boolean,
  notice?: string,
): SafeHtml {
  const more =
    listed.count > listed.rows.length
      ? html`<p>The first ${listed.rows.length} of ${listed.count} table rows are shown; list_document_proposals lists them all.</p>`
      : '';
  return html`<h1>Figures read from the document</h1>
    ${notice ? html`<p role="status">${notice}</p>` : ''}
    <p>Mapped rows are highlighted with the metric they map to; a value's cell is its title.</p>
    ${more}
    ${sheetGrids(listed.rows).map(sheetHtml)}
    ${edit ? buttonsHtml(id, listed, csrf) : ''}`;
}

/**
 * Every listed table row of a document, up to MAX_PAGES pages of them, and no more than the buttons can
 * post: rows whose proposals pass the review tools' MAX_REVIEW_IDS are left for the next visit.
 */
async function listedRows(
  ctx: Awaited<ReturnType<typeof webToolContext>>,
  id: string,
): Promise<{ rows: Row[]; count: number }> {
  const rows: Row[] = [];
  let count = 0;
  let ids = 0;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const listed = await run(listDocumentProposals, ctx, { document_id: id, page, per_page: 100 });
    count = listed.count;
    for (const row of listed.results) {
      ids += idsOf(row).length;
      if (ids > MAX_REVIEW_IDS) return { rows, count };
      rows.push(row);
    }
    if (!listed.has_more) break;
  }
  return { rows, count };
}

/** The review page of a document's proposals, and its confirm and reject buttons. */
export function addProposalRoutes(router: Router, options: WebOptions): void {
  router.get(
    '/account/documents/:document_id/proposals',
    signedIn(options.sessions, async (req, res, session) => {
      const id = String(req.params.document_id);
      const ctx = await webToolContext(options, session);
      try {
        const listed = await listedRows(ctx, id);
        const notice = notices[String(req.query.notice ?? '')];
        const body = reviewPage(id, listed, session.csrfToken, mayEdit(session), notice);
        sendHtml(res, 200, page({ title: 'Review figures', nav: nav(session, 'documents'), body }));
      } catch (err) {
        refusalPage(res, err, '/account/connections');
      }
    }),
  );
  for (const [action, tool, notice] of [
    ['confirm', confirmDocumentProposals, 'confirmed'],
    ['reject', rejectDocumentProposals, 'rejected'],
  ] as const) {
    router.post(
      `/account/documents/:document_id/proposals/${action}`,
      idsForm,
      signedIn(options.sessions, async (req, res, session) => {
        const id = String(req.params.document_id);
        const ctx = await webToolContext(options, session);
        // Exactly the proposals the page showed; an empty field would let the tool act on every open one.
        const ids = field(req.body, 'ids').split(/\s+/).filter(Boolean);
        try {
          if (ids.length === 0) throw new InvalidInput('nothing to act on: the page showed no open figures');
          await run(tool, ctx, { document_id: id, ids });
          res.redirect(303, `${path(id)}?notice=${notice}`);
        } catch (err) {
          refusalPage(res, err, path(id));
        }
      }),
    );
  }
}
