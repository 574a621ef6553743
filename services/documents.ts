import { newId } from '../db/ids.ts';
import type { CompanyRow } from '../db/repos/companies.ts';
import { type Recorder, record, type ServiceContext, withRecorder, writableCompany } from './changes.ts';
import { checkStorageQuota, type QuotaContext } from './storage-quota.ts';

export interface DocumentFile {
  filename: string;
  content_type: string;
  bytes: Buffer;
}

/** Where a stored document came from, as the documents list shows it. */
export interface DocumentOrigin {
  source: 'upload' | 'information-request';
  /** The request a company's answer belongs to (source information-request). */
  informationRequestId: string | null;
  /** The field a quota refusal names. */
  field: string;
}

/**
 * Stores a file as a document of a company inside the caller's transaction: within the firm's storage
 * quota (counted under a lock with the insert), with its change-log row and a document.uploaded event
 * carrying the document's metadata and where to read it, never its content. It arrives not-started,
 * so the parser takes it like any upload.
 */
export async function storeDocument(
  ctx: QuotaContext & { publicUrl: string },
  recorder: Recorder,
  company: CompanyRow,
  file: DocumentFile,
  origin: DocumentOrigin,
): Promise<string> {
  const { repos } = recorder;
  const { filename, content_type, bytes } = file;
  const fileId = newId();
  const id = newId();
  await checkStorageQuota(ctx, repos, origin.field, bytes.length, { lock: true });
  await repos.documents.create(
    {
      id,
      firm_id: company.firm_id,
      company_id: company.id,
      information_request_id: origin.informationRequestId,
      file_id: fileId,
      name: filename,
      parse_state: 'not-started',
      parsed_at: null,
      uploaded_at: recorder.at,
      submitted_date: recorder.at.slice(0, 10),
      source: origin.source,
    },
    { id: fileId, filename, content_type, size: bytes.length, content: bytes },
  );
  const changes = {
    company_id: company.id,
    name: filename,
    content_type,
    size: bytes.length,
    source: origin.source,
    ...(origin.informationRequestId ? { information_request_id: origin.informationRequestId } : {}),
  };
  await record(recorder, {
    change: { entity: 'documents', entityId: id, action: 'create', changes },
    event: {
      type: 'document.uploaded',
      companyId: company.id,
      resourceType: 'document',
      resourceId: id,
      data: {
        id,
        ...changes,
        parse_state: 'not-started',
        uploaded_at: recorder.at,
        content_url: `${ctx.publicUrl}/v1/documents/${id}/content/`,
      },
    },
  });
  return id;
}

/** Stores an uploaded file as a document of a visible company, in a transaction of its own. */
export async function uploadDocument(
  ctx: ServiceContext & QuotaContext,
  companyId: string,
  file: DocumentFile,
  publicUrl: string,
): Promise<string> {
  const company = await writableCompany(ctx, companyId, 'company_id');
  return withRecorder(ctx, (_repos, recorder) =>
    storeDocument({ ...ctx, publicUrl }, recorder, company, file, {
      source: 'upload',
      informationRequestId: null,
      field: 'file',
    }),
  );
}
