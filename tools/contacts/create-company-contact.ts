import { z } from 'zod';
import { createContact } from '../../services/contacts.ts';
import { defineTool } from '../define.ts';
import { Contact, contactFields, toContact } from '../schemas/contact.ts';

export const createCompanyContact = defineTool({
  name: 'create_company_contact',
  title: 'Add a company contact',
  description:
    'Adds a person at a company who answers information requests: sending or reminding e-mails them a private link. One per address and company. Editor or admin role.',
  input: z.object(contactFields),
  output: Contact,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  write: true,
  permission: 'edit_information_requests',
  routes: [
    {
      method: 'POST',
      path: '/v1/companies/:company_id/contacts/',
      summary: 'Add a company contact',
      body: 'merge',
      status: 201,
    },
  ],
  async handler(ctx, input) {
    return toContact(await createContact(ctx, input.company_id, input));
  },
});
