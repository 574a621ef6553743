import { z } from 'zod';
import type { NoteWithAuthor } from '../../db/repos/notes.ts';

export const Note = z.object({
  id: z.string().describe('Note identifier.'),
  company_id: z.string(),
  note: z.string().describe('The note text (markdown).'),
  author_id: z.string().describe('User id of the author (see list_users).'),
  author: z.string().describe("Author's full name."),
  email: z.string().describe("Author's e-mail address."),
  created_at: z.string().describe('When the note was written (ISO 8601).'),
});
export type Note = z.infer<typeof Note>;

/** A user's display name: first and last name, or the e-mail address when both are empty. */
export function fullName(user: { first_name: string; last_name: string; email: string }): string {
  return `${user.first_name} ${user.last_name}`.trim() || user.email;
}

export function toNote(row: NoteWithAuthor): Note {
  return {
    id: row.id,
    company_id: row.company_id,
    note: row.note,
    author_id: row.author_id,
    author: fullName({
      first_name: row.author_first_name,
      last_name: row.author_last_name,
      email: row.author_email,
    }),
    email: row.author_email,
    created_at: row.created_at,
  };
}
