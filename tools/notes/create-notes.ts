import { z } from 'zod';
import { createNotes as createNoteRecords } from '../../services/notes.ts';
import { defineTool } from '../define.ts';
import type { FieldError } from '../errors.ts';
import { resolveItemCompanies, throwFieldErrors } from '../schemas/item-company.ts';
import { Note, toNote } from '../schemas/note.ts';

export const MAX_NOTES = 100;
export const MAX_NOTE_LENGTH = 100_000;

const itemsMessage = `must hold 1 to ${MAX_NOTES} notes`;

const NoteItem = z.object({
  note: z
    .string()
    .max(MAX_NOTE_LENGTH, { error: `must be at most ${MAX_NOTE_LENGTH} characters` })
    .refine((s) => s.trim() !== '', { error: 'must not be empty' })
    .describe('Note text (markdown).'),
  company_id: z.string().min(1).optional().describe('Company id; or give company_slug.'),
  company_slug: z.string().min(1).optional().describe('Company slug.'),
  author_id: z.string().min(1).optional().describe('Your own user id, or left out.'),
});

export const createNotes = defineTool({
  name: 'create_notes',
  title: 'Add notes to a company',
  description:
    `Adds 1 to ${MAX_NOTES} notes to one company, all or none (a 400 names items[i].field). The author is the ` +
    'caller (for an application token, the user who created it). Needs the editor or admin role.',
  input: z.object({
    items: z
      .array(NoteItem)
      .min(1, { error: itemsMessage })
      .max(MAX_NOTES, { error: itemsMessage })
      .describe('The notes, all for one company.'),
  }),
  output: z.object({ results: z.array(Note).describe('The notes written, in request order.') }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  permission: 'edit_companies',
  write: true,
  routes: [
    {
      method: 'POST',
      path: '/v1/notes/',
      summary: 'Add notes to one company',
      body: { field: 'items' },
      envelope: 'results',
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const { principal } = ctx;
    const companies = await resolveItemCompanies(ctx, input.items);
    const first = companies[0]!;
    const errors: FieldError[] = [];
    input.items.forEach((item, i) => {
      const at = `items[${i}]`;
      if (companies[i]!.id !== first.id) {
        errors.push({
          field: `${at}.${item.company_id ? 'company_id' : 'company_slug'}`,
          message: `must name the same company as items[0] (${first.id}): one request adds notes to one company`,
        });
      }
      if (item.author_id !== undefined && item.author_id !== principal.user.id) {
        errors.push({
          field: `${at}.author_id`,
          message: `must be your own user id ${principal.user.id}, or left out: notes are written as the caller`,
        });
      }
    });
    throwFieldErrors(errors, 'notes');

    const written = await createNoteRecords(
      ctx,
      first.id,
      input.items.map((item) => item.note),
    );
    return { results: written.map(toNote) };
  },
});
