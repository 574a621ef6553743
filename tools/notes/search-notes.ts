import { z } from 'zod';
import { passage } from '../../core/search-text.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { isoDateField, nextDay } from '../schemas/dates.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { queryWords } from '../schemas/search-query.ts';

const NoteMatch = z.object({
  id: z.string().describe('Note identifier.'),
  company_id: z.string(),
  company_name: z.string(),
  author_id: z.string().describe('User id of the author (see list_users).'),
  created_at: z.string().describe('When the note was written (ISO 8601).'),
  passage: z.string().describe('Excerpt around the first match, matched words marked «like this».'),
});

export const searchNotes = defineTool({
  name: 'search_notes',
  title: 'Search notes',
  description:
    'Finds notes holding every word of query in any form (pricing finds priced), best match first, each with an excerpt.',
  input: z
    .object({
      query: z.string().min(1).max(500).describe('Words to find.'),
      company_id: z.string().min(1).optional().describe('Only notes on this company.'),
      author_id: z.string().min(1).optional().describe('Only notes by this user.'),
      from_date: isoDateField('Written on or after (UTC).'),
      to_date: isoDateField('Written on or before (UTC).'),
      ...pageFields,
    })
    .superRefine((input, issue) => {
      if (input.from_date && input.to_date && input.from_date > input.to_date) {
        issue.addIssue({ code: 'custom', path: ['from_date'], message: 'must not be after to_date' });
      }
    }),
  output: listOf(NoteMatch),
  annotations: readOnly,
  routes: [
    {
      method: 'GET',
      path: '/v1/notes/search/',
      summary: 'Search notes by their text',
      rename: restPaging,
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    const scope = ctx.principal.scope;
    await resolveCompany(ctx, { company_id: input.company_id });
    const words = queryWords(input.query);
    const counted = await ctx.repos.notes.search(
      scope,
      {
        words,
        companyId: input.company_id,
        authorId: input.author_id,
        createdFrom: input.from_date,
        createdBefore: input.to_date && nextDay(input.to_date),
      },
      toPage(input),
    );
    return pageResult(input, counted, (row) => ({
      id: row.id,
      company_id: row.company_id,
      company_name: row.company_name,
      author_id: row.author_id,
      created_at: row.created_at,
      passage: passage(row.note, words),
    }));
  },
});
