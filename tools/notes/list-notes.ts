import { z } from 'zod';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { companyRefFields, resolveCompany } from '../schemas/company-ref.ts';
import { checkDateRange, isoDateField, nextDay } from '../schemas/dates.ts';
import { Note, toNote } from '../schemas/note.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { sortByField, sortDirection } from '../schemas/sort-by.ts';

export const listNotes = defineTool({
  name: 'list_notes',
  title: 'List notes',
  description:
    "The firm's notes on companies (markdown, author, time), newest first; company_id for one company. Counts, authors and latest notes: get_company_notes_summary.",
  input: z
    .object({
      ...pageFields,
      ...companyRefFields('notes'),
      from_date: isoDateField('Written on or after (UTC).'),
      to_date: isoDateField('Written on or before (UTC).'),
      sort_by: sortByField,
    })
    .superRefine(checkDateRange),
  output: listOf(Note),
  annotations: readOnly,
  routes: [
    {
      method: 'GET',
      path: '/v1/notes/',
      summary: 'List the notes on a company',
      rename: { ...restPaging, from: 'from_date', to: 'to_date' },
      requireOneOf: ['company_id', 'company_slug'],
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    const company = await resolveCompany(ctx, input);
    const counted = await ctx.repos.notes.list(
      ctx.principal.scope,
      {
        companyId: company?.id,
        createdFrom: input.from_date,
        createdBefore: input.to_date && nextDay(input.to_date),
        createdAt: sortDirection(input.sort_by),
      },
      toPage(input),
    );
    return pageResult(input, counted, toNote);
  },
});
