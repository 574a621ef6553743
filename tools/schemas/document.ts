import { z } from 'zod';
import { cleanFileName } from '../../core/file-name.ts';
import type { ListedDocumentRow } from '../../db/repos/documents.ts';

export const PARSE_STATES = [
  'not-started',
  'in-progress',
  'completed',
  'needs-input',
  'not-parseable',
] as const;
export const DOCUMENT_SOURCES = [
  'information-request',
  'implementation',
  'upload',
  'email',
  'stakeholder-update',
] as const;

export const Document = z.object({
  id: z.string().describe('Document identifier.'),
  name: z.string(),
  link: z.string().describe('Authenticated download URL of the stored file (send the same bearer token).'),
  company_id: z.string(),
  company_name: z.string(),
  information_request_id: z
    .string()
    .describe('Information request the document answered; empty when it did not come from one.'),
  parse_state: z.enum(PARSE_STATES),
  parsed_at: z.string().nullable().describe('When parsing finished (ISO 8601), or null.'),
  uploaded_at: z.string().describe('When the document was uploaded or received (ISO 8601).'),
  submitted_date: z.string().describe('Date the company submitted it, YYYY-MM-DD.'),
  source: z.enum(DOCUMENT_SOURCES),
});
export type Document = z.infer<typeof Document>;

export function documentLink(publicUrl: string, id: string): string {
  return `${publicUrl}/v1/documents/${encodeURIComponent(id)}/download/`;
}

export function toDocument(publicUrl: string, row: ListedDocumentRow): Document {
  return {
    id: row.id,
    // Names stored before they were cleaned on the way in are cleaned on the way out.
    name: cleanFileName(row.name),
    link: documentLink(publicUrl, row.id),
    company_id: row.company_id,
    company_name: row.company_name,
    information_request_id: row.information_request_id ?? '',
    parse_state: row.parse_state as Document['parse_state'],
    parsed_at: row.parsed_at,
    uploaded_at: row.uploaded_at,
    submitted_date: row.submitted_date,
    source: row.source as Document['source'],
  };
}
