import { z } from 'zod';
import { TEXT_PAGE_CHARS, textPages } from '../../core/text-pages.ts';
import { defineTool, readOnly } from '../define.ts';
import { NotFound } from '../errors.ts';
import { PARSE_STATES } from '../schemas/document.ts';

const WAITING: Record<string, string> = {
  'not-started': 'The document is queued for parsing; try again in a minute.',
  'in-progress': 'The document is being parsed; try again in a minute.',
};

export const getDocumentContent = defineTool({
  name: 'get_document_content',
  title: 'Get document content',
  description: `A document's extracted text, a page of about ${TEXT_PAGE_CHARS} characters at a time. Needs access to documents.`,
  input: z.object({
    document_id: z.string().min(1).describe('Document id (from list_documents or search_documents).'),
    page: z.number().int().min(1).default(1).describe('Page of the text, from 1.'),
  }),
  output: z.object({
    parse_state: z.enum(PARSE_STATES),
    page: z.number().int(),
    total_pages: z.number().int().describe('0 while there is no text.'),
    text: z.string(),
    message: z
      .string()
      .nullable()
      .describe('Why there is no text; for a completed document whose text was cut short, why it was.'),
  }),
  annotations: readOnly,
  permission: 'documents',
  routes: [
    {
      method: 'GET',
      path: '/v1/documents/:document_id/content/',
      summary: 'Get the text of a document, a page at a time',
    },
  ],
  async handler(ctx, input) {
    const row = await ctx.repos.documentParsing.content(ctx.principal.scope, input.document_id);
    if (!row)
      throw new NotFound(`no document with id ${input.document_id}; call list_documents for valid ids`);
    const state = row.parse_state as (typeof PARSE_STATES)[number];
    const base = { parse_state: state };
    if (row.text === null) {
      const message =
        WAITING[state] ??
        (state === 'needs-input'
          ? `Parsing needs input: ${row.parse_note ?? 'the file cannot be read as it is'}.`
          : state === 'not-parseable'
            ? `No text can be read from this file: ${row.parse_note ?? 'its format holds no text'}.`
            : 'No text is stored for this document.');
      return { ...base, page: input.page, total_pages: 0, text: '', message };
    }
    const pages = textPages(row.text);
    if (input.page > pages.length) {
      throw new NotFound(
        `page ${input.page} is past the last page (${pages.length}); request page 1 to ${pages.length}`,
      );
    }
    return {
      ...base,
      page: input.page,
      total_pages: pages.length,
      text: pages[input.page - 1]!,
      message: row.parse_note,
    };
  },
});
