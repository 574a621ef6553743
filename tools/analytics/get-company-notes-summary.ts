import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { fullName } from '../schemas/note.ts';
import { truncateText } from '../truncate.ts';

/** Longest note text returned here; the full text is one list_notes call away. */
export const NOTE_TEXT_LIMIT = 2_000;

export const getCompanyNotesSummary = defineTool({
  name: 'get_company_notes_summary',
  title: 'Summary of the notes on a company',
  description:
    "Summary of one company's notes: count, authors with counts, first and last dates, and the newest notes (cut at 2,000 characters). Full texts: list_notes.",
  input: z.object({
    company_id: z.string().min(1).describe('Company id.'),
    recent_notes_limit: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(5)
      .describe('How many of the newest notes to include, 0 to 100. Default 5.'),
  }),
  output: z.object({
    company_id: z.string(),
    company_name: z.string(),
    total_count: z.number().int().describe('Number of notes on the company.'),
    first_note_at: z
      .string()
      .nullable()
      .describe('When the oldest note was written (ISO 8601); null without notes.'),
    last_note_at: z
      .string()
      .nullable()
      .describe('When the newest note was written (ISO 8601); null without notes.'),
    authors: z
      .array(
        z.object({
          author_id: z.string().describe('User id (see list_users).'),
          name: z.string(),
          email: z.string(),
          count: z.number().int().describe('Notes this author wrote on the company.'),
        }),
      )
      .describe('Every author, most notes first (ties by name).'),
    recent_notes: z
      .array(
        z.object({
          id: z.string(),
          author_id: z.string(),
          author: z.string().describe("Author's full name."),
          email: z.string(),
          created_at: z.string(),
          note: z.string().describe(`The note text, cut at ${NOTE_TEXT_LIMIT} characters with a marker.`),
          truncated: z.boolean().describe('True when the note text was cut.'),
        }),
      )
      .describe('The newest notes first, as list_notes orders them.'),
  }),
  annotations: readOnly,
  async handler(ctx, input) {
    const { scope } = ctx.principal;
    const company = (await resolveCompany(ctx, { company_id: input.company_id }))!;
    const [overview, authors, recent] = await Promise.all([
      ctx.repos.analytics.notesOverview(scope, company.id),
      ctx.repos.analytics.noteAuthors(scope, company.id),
      ctx.repos.analytics.recentNotes(scope, company.id, input.recent_notes_limit),
    ]);
    const hint = `call list_notes with company_id=${company.id} to read the full note`;
    return {
      company_id: company.id,
      company_name: company.name,
      total_count: overview.count,
      first_note_at: overview.first_at,
      last_note_at: overview.last_at,
      authors: authors
        .map((a) => ({ author_id: a.author_id, name: fullName(a), email: a.email, count: a.count }))
        .sort(
          (a, b) =>
            b.count - a.count || a.name.localeCompare(b.name) || a.author_id.localeCompare(b.author_id),
        ),
      recent_notes: recent.map((n) => ({
        id: n.id,
        author_id: n.author_id,
        author: fullName({
          first_name: n.author_first_name,
          last_name: n.author_last_name,
          email: n.author_email,
        }),
        email: n.author_email,
        created_at: n.created_at,
        note: truncateText(n.note, NOTE_TEXT_LIMIT, hint),
        truncated: n.note.length > NOTE_TEXT_LIMIT,
      })),
    };
  },
});
