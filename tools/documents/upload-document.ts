import { z } from 'zod';
import { DOCUMENT_FORMATS, extensionList } from '../../core/file-types.ts';
import { newId, nowIso } from '../../db/ids.ts';
import { inTransaction } from '../../db/repos/index.ts';
import { defineTool } from '../define.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { type FileUpload, MB, storedFileName, uploadedFile } from '../schemas/upload.ts';
import { checkStorageQuota } from './storage-quota.ts';

/** The largest document accepted, as the reference states it (32 MB, counted in MiB). */
export const DOCUMENT_MAX_BYTES = 32 * MB;

export const DOCUMENT_UPLOAD: FileUpload = {
  field: 'file',
  maxBytes: DOCUMENT_MAX_BYTES,
  formats: DOCUMENT_FORMATS,
  // The handler's own checks, on what a request tells before its file: its company and its length.
  async authorize(ctx, { input, fileBytesAtLeast }) {
    if (typeof input.company_id === 'string' && input.company_id)
      await resolveCompany(ctx, { company_id: input.company_id });
    if (fileBytesAtLeast)
      await checkStorageQuota(ctx, ctx.repos, 'file', fileBytesAtLeast, { atLeast: true });
  },
};

export const uploadDocument = defineTool({
  name: 'upload_document',
  title: 'Upload a document',
  description:
    "Adds a file to a company's document library, as an upload of today: it lists in list_documents with " +
    `parse state not-started until it is parsed. Up to 32 MB; ${extensionList(DOCUMENT_FORMATS)}. ` +
    "Needs access to the company and to documents, and the editor or admin role; the firm's documents " +
    'together may take at most the storage quota (DOCUMENT_STORAGE_QUOTA_MB).',
  input: z.object({
    company_id: z
      .string()
      .min(1)
      .describe('Id of the company the document belongs to (from list_companies or search_companies).'),
    file: uploadedFile(DOCUMENT_FORMATS, 'The document, sent as a multipart/form-data file part.'),
  }),
  output: z.object({
    success: z.boolean().describe('True: the document was stored.'),
    message: z.string().describe('What happened, in a sentence.'),
    document_id: z.string().describe('Id of the new document, as list_documents lists it.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  permission: 'add_documents',
  write: true,
  // A model cannot send the bytes of a file; the upload is a REST route only.
  mcp: false,
  async handler(ctx, input) {
    const company = (await resolveCompany(ctx, { company_id: input.company_id }))!;
    const now = nowIso(ctx.clock.now());
    const { content_type, bytes } = input.file;
    const filename = storedFileName('file', input.file.filename);
    const file = {
      id: newId(),
      filename,
      content_type,
      size: bytes.length,
      content: bytes,
    };
    const document = {
      id: newId(),
      firm_id: company.firm_id,
      company_id: company.id,
      information_request_id: null,
      file_id: file.id,
      name: filename,
      parse_state: 'not-started',
      parsed_at: null,
      uploaded_at: now,
      submitted_date: now.slice(0, 10),
      source: 'upload',
    };
    await inTransaction(ctx.repos, async (repos) => {
      await checkStorageQuota(ctx, repos, 'file', bytes.length, { lock: true });
      await repos.documents.create(document, file);
      await repos.changeLog.record({
        firmId: company.firm_id,
        entity: 'documents',
        entityId: document.id,
        action: 'create',
        changedBy: ctx.principal.user.id,
        changedAt: now,
        changes: {
          company_id: company.id,
          name: filename,
          content_type,
          size: bytes.length,
          source: 'upload',
        },
      });
    });
    return { success: true, message: `Uploaded ${filename} to ${company.name}.`, document_id: document.id };
  },
});
