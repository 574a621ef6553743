import { z } from 'zod';
import { updateContact } from '../../services/contacts.ts';
import { defineTool } from '../define.ts';
import { Contact, contactFields, toContact } from '../schemas/contact.ts';

export const contactId = z.string().min(1).describe('Contact id (list_company_contacts).');

export const updateCompanyContact = defineTool({
  name: 'update_company_contact',
  title: 'Change a company contact',
  description:
    "Changes a contact's name or e-mail address. Links already sent keep working. Editor or admin role.",
  input: z.object({
    company_id: contactFields.company_id,
    contact_id: contactId,
    name: contactFields.name.optional(),
    email: contactFields.email.optional(),
  }),
  output: Contact,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: true,
  permission: 'edit_information_requests',
  mcp: false,
  routes: [
    {
      method: 'PATCH',
      path: '/v1/companies/:company_id/contacts/:contact_id/',
      summary: 'Change a company contact',
      body: 'merge',
    },
  ],
  async handler(ctx, input) {
    const { company_id, contact_id, ...fields } = input;
    return toContact(await updateContact(ctx, company_id, contact_id, fields));
  },
});
