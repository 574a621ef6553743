import { z } from 'zod';
import { DOCUMENT_FORMATS, DOCUMENT_MAX_BYTES, extensionList } from '../../core/file-types.ts';
import { uploadDocument as storeDocument } from '../../services/documents.ts';
import { checkStorageQuota } from '../../services/storage-quota.ts';
import { defineTool } from '../define.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { type FileUpload, storedFileName, uploadedFile } from '../schemas/upload.ts';

export { DOCUMENT_MAX_BYTES };

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
  routes: [
    {
      method: 'POST',
      path: '/v1/documents/',
      summary: 'Upload a document',
      upload: DOCUMENT_UPLOAD,
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const company = (await resolveCompany(ctx, { company_id: input.company_id }))!;
    const filename = storedFileName('file', input.file.filename);
    const { content_type, bytes } = input.file;
    const id = await storeDocument(ctx, company.id, { filename, content_type, bytes }, ctx.publicUrl);
    return { success: true, message: `Uploaded ${filename} to ${company.name}.`, document_id: id };
  },
});
