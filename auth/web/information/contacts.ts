// The contacts page: who at each company gets the request mail and its private link.
import type { Response, Router } from 'express';
import { createCompanyContact } from '../../../tools/contacts/create-company-contact.ts';
import { deleteCompanyContact } from '../../../tools/contacts/delete-company-contact.ts';
import { listCompanyContacts } from '../../../tools/contacts/list-company-contacts.ts';
import { NotFound } from '../../../tools/errors.ts';
import { html } from '../html.ts';
import { type NavState, page } from '../layout.ts';
import { alert, hidden } from '../pages.ts';
import { sendHtml } from '../respond.ts';
import type { WebSession } from '../sessions.ts';
import { type Form, field, nav, signedIn, type WebOptions } from '../signed-in.ts';
import { formProblem, mayEdit, refusalPage, run, visibleCompanies, webToolContext } from './context.ts';
import { type FormContext, textField } from './request-form.ts';

export const CONTACTS_PATH = '/account/contacts';

interface ContactsView {
  nav: NavState;
  companies: { id: string; name: string }[];
  company?: { id: string; name: string };
  contacts: { id: string; name: string; email: string }[];
  mayEdit: boolean;
  typed: { name: string; email: string };
  form: FormContext;
  error?: string;
  notice?: string;
}

function companyPicker(view: ContactsView) {
  return html`<form class="inline-form" method="get" action="${CONTACTS_PATH}">
  <div class="field">
    <label for="company">Company</label>
    <select id="company" name="company_id">${view.companies.map(
      (c) =>
        html`<option value="${c.id}"${view.company?.id === c.id ? html` selected` : ''}>${c.name}</option>`,
    )}</select>
  </div>
  <button class="button secondary" type="submit">Show</button>
</form>`;
}

function addForm(view: ContactsView, companyId: string) {
  return html`<h3>Add a contact</h3>
  ${alert('error', view.error)}
  <form method="post" action="${CONTACTS_PATH}/${companyId}/add" novalidate>
    ${hidden({ csrf_token: view.nav.csrfToken })}
    ${textField(view.form, 'name', 'Name', view.typed.name, { required: true })}
    ${textField(view.form, 'email', 'E-mail', view.typed.email, { type: 'email', required: true })}
    <button class="button full" type="submit">Add the contact</button>
  </form>`;
}

function contactItems(view: ContactsView, companyId: string) {
  if (view.contacts.length === 0)
    return html`<p class="empty">No contacts: requests sent to this company reach no one until one is added.</p>`;
  return html`<ul class="items">${view.contacts.map(
    (c) => html`<li>
      <div class="item-main"><div class="item-title">${c.name}</div><div class="item-meta">${c.email}</div></div>
      ${
        view.mayEdit
          ? html`<form method="post" action="${CONTACTS_PATH}/${companyId}/${c.id}/remove">
        ${hidden({ csrf_token: view.nav.csrfToken })}
        <button class="button danger" type="submit" aria-label="Remove ${c.name}">Remove</button>
      </form>`
          : ''
      }
    </li>`,
  )}</ul>`;
}

function contactsPage(view: ContactsView): string {
  const company = view.company;
  return page({
    title: 'Contacts',
    nav: view.nav,
    body: html`<div class="card">
  <h1>Contacts</h1>
  <p class="muted">The people at each company who get information requests and reminders, each with a private link to answer.</p>
  ${alert('ok', view.notice)}
  ${view.companies.length > 0 ? companyPicker(view) : html`<p class="empty">You can see no companies.</p>`}
  ${company ? html`<h2>${company.name}</h2>${contactItems(view, company.id)}${view.mayEdit ? addForm(view, company.id) : ''}` : ''}
</div>`,
  });
}

async function showContacts(
  options: WebOptions,
  res: Response,
  session: WebSession,
  companyId: string | undefined,
  extra: Partial<Pick<ContactsView, 'typed' | 'form' | 'error' | 'notice'>> & { status?: number } = {},
) {
  const ctx = await webToolContext(options, session);
  const all = await visibleCompanies(ctx);
  const company = companyId ? all.find((c) => c.id === companyId) : all[0];
  if (companyId && !company) {
    refusalPage(res, new NotFound(`no company with id ${companyId} that you can see`), CONTACTS_PATH);
    return;
  }
  const contacts = company
    ? (await run(listCompanyContacts, ctx, { company_id: company.id, per_page: 100 })).results
    : [];
  const view: ContactsView = {
    nav: nav(session, 'contacts'),
    companies: all,
    company,
    contacts,
    mayEdit: mayEdit(session),
    typed: extra.typed ?? { name: '', email: '' },
    form: extra.form ?? { errors: new Map() },
    error: extra.error,
    notice: extra.notice,
  };
  sendHtml(res, extra.status ?? 200, contactsPage(view));
}

const notices: Record<string, string> = {
  added: 'The contact is added.',
  removed: 'The contact is removed.',
};

export function addContactRoutes(router: Router, options: WebOptions, form: Form): void {
  router.get(
    CONTACTS_PATH,
    signedIn(options.sessions, async (req, res, session) => {
      const companyId = typeof req.query.company_id === 'string' ? req.query.company_id : undefined;
      await showContacts(options, res, session, companyId, { notice: notices[String(req.query.notice)] });
    }),
  );

  router.post(
    `${CONTACTS_PATH}/:company/add`,
    form,
    signedIn(options.sessions, async (req, res, session) => {
      const companyId = String(req.params.company);
      const typed = { name: field(req.body, 'name'), email: field(req.body, 'email') };
      const ctx = await webToolContext(options, session);
      try {
        await run(createCompanyContact, ctx, { company_id: companyId, ...typed });
      } catch (err) {
        const problem = formProblem(err);
        if (problem.status !== 400 && problem.status !== 409) return refusalPage(res, err, CONTACTS_PATH);
        const form = { errors: problem.fields };
        return showContacts(options, res, session, companyId, {
          typed,
          form,
          error: problem.message,
          status: problem.status,
        });
      }
      res.redirect(
        303,
        `${CONTACTS_PATH}?${new URLSearchParams({ company_id: companyId, notice: 'added' })}`,
      );
    }),
  );

  router.post(
    `${CONTACTS_PATH}/:company/:contact/remove`,
    form,
    signedIn(options.sessions, async (req, res, session) => {
      const companyId = String(req.params.company);
      const ctx = await webToolContext(options, session);
      try {
        await run(deleteCompanyContact, ctx, {
          company_id: companyId,
          contact_id: String(req.params.contact),
        });
      } catch (err) {
        return refusalPage(res, err, CONTACTS_PATH);
      }
      res.redirect(
        303,
        `${CONTACTS_PATH}?${new URLSearchParams({ company_id: companyId, notice: 'removed' })}`,
      );
    }),
  );
}
