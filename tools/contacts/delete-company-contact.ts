import { z } from 'zod';
import { deleteContact } from '../../services/contacts.ts';
import { defineTool } from '../define.ts';
import { contactFields } from '../schemas/contact.ts';
import { contactId } from './update-company-contact.ts';

export const deleteCompanyContact = defineTool({
  name: 'delete_company_contact',
  title: 'Delete a company contact',
  description: 'Deletes a contact; the links they were sent stop working. Editor or admin role.',
  input: z.object({ company_id: contactFields.company_id, contact_id: contactId }),
  output: z.object({ success: z.boolean(), message: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: true,
  permission: 'edit_information_requests',
  mcp: false,
  routes: [
    {
      method: 'DELETE',
      path: '/v1/companies/:company_id/contacts/:contact_id/',
      summary: 'Delete a company contact',
    },
  ],
  async handler(ctx, input) {
    const contact = await deleteContact(ctx, input.company_id, input.contact_id);
    return { success: true, message: `contact ${contact.name} <${contact.email}> deleted` };
  },
});
