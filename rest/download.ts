import type { Request, Response } from 'express';
import type { ToolContext } from '../tools/context.ts';
import { NotFound } from '../tools/errors.ts';
import { requirePermission } from '../tools/run.ts';

export const DOCUMENT_DOWNLOAD_PATH = '/v1/documents/:document_id/download/';

/** `attachment` with an ASCII fallback name and the exact name in RFC 8187 form. */
export function attachmentHeader(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'download';
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/**
 * GET /v1/documents/{id}/download/: the stored file of one document, for a caller who may see it and
 * has access to documents. Binary, so it is served here rather than through a tool.
 */
export async function serveDocumentDownload(ctx: ToolContext, req: Request, res: Response): Promise<void> {
  requirePermission('documents', ctx.principal.user);
  const id = String(req.params.document_id);
  const file = await ctx.repos.documents.file(ctx.principal.scope, id);
  if (!file) throw new NotFound(`no document with id ${id}; call list_documents for valid ids`);
  res.status(200);
  res.setHeader('Content-Type', file.content_type);
  res.setHeader('Content-Length', String(file.content.length));
  res.setHeader('Content-Disposition', attachmentHeader(file.filename));
  res.setHeader('Cache-Control', 'private, no-store');
  res.end(req.method === 'HEAD' ? undefined : file.content);
}
