import { newId } from '../db/ids.ts';
import { record, type ServiceContext, withRecorder, writableCompany } from './changes.ts';
import { checkStorageQuota, type QuotaContext } from './storage-quota.ts';

export interface DocumentFile {
  filename: string;
  content_type: string;
  bytes: Buffer;
}

/**
 * Stores an uploaded file as a document of a visible company, within the firm's storage quota (counted
 * under a lock with the insert), with its change-log row and a document.uploaded event: the document's
 * metadata and where to read it, never its content.
 */
export async function uploadDocument(
  ctx: ServiceContext & QuotaContext,
  companyId: string,
  file: DocumentFile,
  publicUrl: string,
): Promise<string> {
  const company = await writableCompany(ctx, companyId, 'company_id');
  const { filename, content_type, bytes } = file;
  const fileId = newId();
  const id = newId();
  await withRecorder(ctx, async (repos, recorder) => {
    await checkStorageQuota(ctx, repos, 'file', bytes.length, { lock: true });
    const document = {
      id,
      firm_id: company.firm_id,
      company_id: company.id,
      information_request_id: null,
      file_id: fileId,
      name: filename,
      parse_state: 'not-started',
      parsed_at: null,
      uploaded_at: recorder.at,
      submitted_date: recorder.at.slice(0, 10),
      source: 'upload',
    };
    await repos.documents.create(document, {
      id: fileId,
      filename,
      content_type,
      size: bytes.length,
      content: bytes,
    });
    const changes = {
      company_id: company.id,
      name: filename,
      content_type,
      size: bytes.length,
      source: 'upload',
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
          content_url: `${publicUrl}/v1/documents/${id}/content/`,
        },
      },
    });
  });
  return id;
}
