import { z } from 'zod';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { PARSE_STATES } from '../schemas/document.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { queryWords } from '../schemas/search-query.ts';

const DocumentMatch = z.object({
  id: z.string().describe('Document id (for get_document_content).'),
  name: z.string(),
  company_id: z.string(),
  company_name: z.string(),
  passage: z.string().describe('Excerpt, matches marked «like this».'),
});

const UNSEARCHED_STATES = PARSE_STATES.filter((s) => s !== 'completed');
const Unsearchable = z
  .object({
    count: z.number().int(),
    by_state: z.object(Object.fromEntries(UNSEARCHED_STATES.map((s) => [s, z.number().int().optional()]))),
  })
  .describe('Only when some: your documents (of company_id) without a text to search yet, by parse_state.');

export const searchDocuments = defineTool({
  name: 'search_documents',
  title: 'Search documents',
  description:
    'Finds documents whose text holds every word of query in any form (pricing finds priced), best match first, with an excerpt. Needs access to documents.',
  input: z.object({
    query: z.string().min(1).max(500).describe('Words to find.'),
    company_id: z.string().min(1).optional().describe('Only documents of this company.'),
    ...pageFields,
  }),
  output: listOf(DocumentMatch).extend({
    unsearchable: Unsearchable.optional(),
  }),
  annotations: readOnly,
  permission: 'documents',
  routes: [
    {
      method: 'GET',
      path: '/v1/documents/search/',
      summary: 'Search documents by their text',
      rename: restPaging,
      envelope: 'page',
      alongside: ['unsearchable'],
    },
  ],
  async handler(ctx, input) {
    const scope = ctx.principal.scope;
    await resolveCompany(ctx, { company_id: input.company_id });
    const words = queryWords(input.query);
    const [unsearchable, counted] = await Promise.all([
      ctx.repos.documentParsing.unsearchable(scope, input.company_id),
      ctx.repos.documentParsing.search(scope, { words, companyId: input.company_id }, toPage(input)),
    ]);
    const passages = await ctx.repos.documentParsing.passages(
      counted.rows.map((row) => row.id),
      words,
    );
    const result = pageResult(input, counted, (row) => ({
      id: row.id,
      name: row.name,
      company_id: row.company_id,
      company_name: row.company_name,
      passage: passages.get(row.id) ?? '',
    }));
    const count = Object.values(unsearchable).reduce((sum, n) => sum + n, 0);
    return count > 0 ? { ...result, unsearchable: { count, by_state: unsearchable } } : result;
  },
});
