import { z } from 'zod';
import type { ContactRow } from '../../db/repos/contacts.ts';

export const Contact = z.object({
  id: z.string().describe('Contact id.'),
  company_id: z.string(),
  name: z.string(),
  email: z.string().describe('Where requests and reminders go (stored in lower case).'),
  created_at: z.string(),
  updated_at: z.string(),
});

export function toContact(row: ContactRow): z.infer<typeof Contact> {
  return {
    id: row.id,
    company_id: row.company_id,
    name: row.name,
    email: row.email,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const contactFields = {
  company_id: z.string().min(1).describe('Company id.'),
  name: z.string().min(1).max(255).describe("The person's name, as mail greets them."),
  email: z.string().min(3).max(254).describe('Their e-mail address.'),
};
