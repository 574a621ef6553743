import { z } from 'zod';
import { conciseDefault } from '../concise.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { checkDateRange, isoDateField, nextDay } from '../schemas/dates.ts';
import { DOCUMENT_SOURCES, Document, PARSE_STATES, toDocument } from '../schemas/document.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const listDocuments = defineTool({
  name: 'list_documents',
  title: 'List documents',
  description:
    'Documents uploaded for or received from companies (decks, statements, request answers), newest first, with parse state. Needs document access. Concise rows leave out the download link and empty fields; response_format detailed adds them (the text: get_document_content).',
  input: z
    .object({
      ...pageFields,
      company_id: z.string().min(1).optional().describe('Only documents of this company id.'),
      parse_state: z.enum(PARSE_STATES).optional().describe('Only documents in this parse state.'),
      from_date: isoDateField('Only documents uploaded on or after this date (UTC).'),
      to_date: isoDateField('Only documents uploaded on or before this date (UTC).'),
      source: z.enum(DOCUMENT_SOURCES).optional().describe('Only documents that came from this source.'),
    })
    .superRefine(checkDateRange),
  output: listOf(Document),
  annotations: readOnly,
  permission: 'documents',
  routes: [
    {
      method: 'GET',
      path: '/v1/documents/',
      summary: 'List documents',
      rename: { ...restPaging, from: 'from_date', to: 'to_date' },
      envelope: 'page',
    },
  ],
  // The link is the id in a URL, and an empty field says nothing: both only in the detailed form.
  concise: ({ results, ...rest }) =>
    conciseDefault({
      ...rest,
      results: results.map(({ link: _l, ...row }) =>
        Object.fromEntries(Object.entries(row).filter(([, v]) => v !== '' && v !== null)),
      ),
    }),
  async handler(ctx, input) {
    const scope = ctx.principal.scope;
    await resolveCompany(ctx, { company_id: input.company_id });
    const counted = await ctx.repos.documents.list(
      scope,
      {
        companyId: input.company_id,
        parseState: input.parse_state,
        source: input.source,
        uploadedFrom: input.from_date,
        uploadedBefore: input.to_date && nextDay(input.to_date),
      },
      toPage(input),
    );
    return pageResult(input, counted, (row) => toDocument(ctx.publicUrl, row));
  },
});
