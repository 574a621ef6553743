import { newId } from '../../db/ids.ts';
import type { Repos } from '../../db/repos/index.ts';

export interface NewDocument {
  company: { id: string };
  firmId: string;
  name: string;
  body: Buffer;
  contentType?: string;
  state?: string;
  uploadedAt?: string;
}

/** Stores a document and its file directly, as the seed and imports do: it arrives `not-started` unless told. */
export async function addDocument(repos: Repos, d: NewDocument): Promise<string> {
  const id = newId();
  const fileId = newId();
  await repos.documents.create(
    {
      id,
      firm_id: d.firmId,
      company_id: d.company.id,
      information_request_id: null,
      file_id: fileId,
      name: d.name,
      parse_state: d.state ?? 'not-started',
      parsed_at: null,
      uploaded_at: d.uploadedAt ?? '2026-05-01T10:00:00.000Z',
      submitted_date: (d.uploadedAt ?? '2026-05-01').slice(0, 10),
      source: 'upload',
    },
    {
      id: fileId,
      filename: d.name,
      content_type: d.contentType ?? 'application/octet-stream',
      size: d.body.length,
      content: d.body,
    },
  );
  return id;
}
