import { z } from 'zod';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { Contact, contactFields, toContact } from '../schemas/contact.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const listCompanyContacts = defineTool({
  name: 'list_company_contacts',
  title: 'List company contacts',
  description: "A company's contacts: who its information requests and reminders are e-mailed to.",
  input: z.object({ ...pageFields, company_id: contactFields.company_id }),
  output: listOf(Contact),
  annotations: readOnly,
  routes: [
    {
      method: 'GET',
      path: '/v1/companies/:company_id/contacts/',
      summary: "List a company's contacts",
      rename: restPaging,
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    const company = (await resolveCompany(ctx, { company_id: input.company_id }))!;
    const counted = await ctx.repos.contacts.list(ctx.principal.scope, company.id, toPage(input));
    return pageResult(input, counted, toContact);
  },
});
