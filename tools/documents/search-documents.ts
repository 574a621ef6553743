import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { queryWords } from '../schemas/search-query.ts';

const DocumentMatch = z.object({
  id: z.string().describe('Document id (for get_document_content).'),
  name: z.string(),
  company_id: z.string(),
  company_name: z.string(),
  passage: z.string().describe('Excerpt, matches marked «like this».'),
});

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
  output: listOf(DocumentMatch),
  annotations: readOnly,
  permission: 'documents',
  async handler(ctx, input) {
    const scope = ctx.principal.scope;
    await resolveCompany(ctx, { company_id: input.company_id });
    const words = queryWords(input.query);
    const counted = await ctx.repos.documentParsing.search(
      scope,
      { words, companyId: input.company_id },
      toPage(input),
    );
    const passages = await ctx.repos.documentParsing.passages(
      counted.rows.map((row) => row.id),
      words,
    );
    return pageResult(input, counted, (row) => ({
      id: row.id,
      name: row.name,
      company_id: row.company_id,
      company_name: row.company_name,
      passage: passages.get(row.id) ?? '',
    }));
  },
});
