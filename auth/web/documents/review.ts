import type { Router } from 'express';
import { confirmDocumentProposals } from '../../../tools/documents/confirm-document-proposals.ts';
import { listDocumentProposals } from '../../../tools/documents/list-document-proposals.ts';
import { rejectDocumentProposals } from '../../../tools/documents/reject-document-proposals.ts';
import { html, type SafeHtml } from '../html.ts';
import { mayEdit, refusalPage, run, webToolContext } from '../information/context.ts';
import { page } from '../layout.ts';
import { sendHtml } from '../respond.ts';
import { type Form, nav, signedIn, type WebOptions } from '../signed-in.ts';

const path = (id: string) => `/account/documents/${encodeURIComponent(id)}/proposals`;

type Row = Awaited<ReturnType<typeof listDocumentProposals.handler>>['results'][number];

const notices: Record<string, string> = {
  confirmed: 'The mapped figures are confirmed and written as metric data.',
  rejected: 'The open figures are rejected.',
};

/** One table row of the sheet: a mapped row is highlighted, an unmapped one says so. */
function rowHtml(r: Row): SafeHtml {
  const category = r.category ? html`<mark>${r.category}</mark>` : html`<em>not mapped</em>`;
  const cells = r.cells.map(([, cell, date, value]) => html`<li>${cell} ${date ?? ''}: ${value ?? '–'}</li>`);
  return html`<tr data-mapped="${r.category ? 'yes' : 'no'}">
      <td>${r.sheet}</td><td>${r.label}</td><td>${category}</td><td>${r.kind}</td><td>${r.status}</td>
      <td><ul>${cells}</ul></td>
    </tr>`;
}

function reviewPage(
  id: string,
  rows: readonly Row[],
  csrf: string,
  edit: boolean,
  notice?: string,
): SafeHtml {
  const button = (action: string, label: string) =>
    html`<form method="post" action="${path(id)}/${action}">
        <input type="hidden" name="csrf_token" value="${csrf}">
        <button class="button" type="submit">${label}</button>
      </form>`;
  return html`<h1>Figures read from the document</h1>
    ${notice ? html`<p role="status">${notice}</p>` : ''}
    <table>
      <thead><tr><th>Sheet</th><th>Row</th><th>Metric</th><th>Kind</th><th>Status</th><th>Cells</th></tr></thead>
      <tbody>${rows.map(rowHtml)}</tbody>
    </table>
    ${edit ? html`${button('confirm', 'Confirm the mapped figures')}${button('reject', 'Reject the open figures')}` : ''}`;
}

/** The review page of a document's proposals, and its confirm and reject buttons. */
export function addProposalRoutes(router: Router, options: WebOptions, form: Form): void {
  router.get(
    '/account/documents/:document_id/proposals',
    signedIn(options.sessions, async (req, res, session) => {
      const id = String(req.params.document_id);
      const ctx = await webToolContext(options, session);
      try {
        const listed = await run(listDocumentProposals, ctx, { document_id: id, per_page: 100 });
        const notice = notices[String(req.query.notice ?? '')];
        const body = reviewPage(id, listed.results, session.csrfToken, mayEdit(session), notice);
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
      form,
      signedIn(options.sessions, async (req, res, session) => {
        const id = String(req.params.document_id);
        const ctx = await webToolContext(options, session);
        try {
          await run(tool, ctx, { document_id: id });
          res.redirect(303, `${path(id)}?notice=${notice}`);
        } catch (err) {
          refusalPage(res, err, path(id));
        }
      }),
    );
  }
}
