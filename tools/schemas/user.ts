import { z } from 'zod';
import type { Firm, User as UserRow } from '../../core/principal.ts';

export const User = z.object({
  id: z.string().describe('User identifier.'),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  role: z.enum(['admin', 'editor', 'viewer']),
});
export type User = z.infer<typeof User>;

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    role: row.role,
  };
}

export const WhoamiFirm = z.object({
  id: z.string().describe('Firm identifier.'),
  name: z.string(),
  slug: z.string(),
});

export const Whoami = User.extend({ firm: WhoamiFirm.describe('The firm the user belongs to.') });
export type Whoami = z.infer<typeof Whoami>;

export function toWhoami(user: UserRow, firm: Firm): Whoami {
  return { ...toUser(user), firm: { id: firm.id, name: firm.name, slug: firm.slug } };
}
