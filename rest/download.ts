import type { Request, Response } from 'express';
import { cleanFileName } from '../core/file-name.ts';
import type { ToolContext } from '../tools/context.ts';
import { NotFound } from '../tools/errors.ts';
import { requirePermission } from '../tools/run.ts';

export const DOCUMENT_DOWNLOAD_PATH = '/v1/documents/:document_id/download/';

/** `attachment` with an ASCII fallback name and the exact (clean) name in RFC 8187 form. */
export function attachmentHeader(stored: string): string {
  const filename = cleanFileName(stored);
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

export const COMPANY_LOGO_PATH = '/v1/companies/:company_id/logo/';

/**
 * GET /v1/companies/{id}/logo/: the uploaded logo of a company the caller can see (its `logo_url`).
 * Binary, so it is served here rather than through a tool.
 */
export async function serveCompanyLogo(ctx: ToolContext, req: Request, res: Response): Promise<void> {
  const id = String(req.params.company_id);
  const logo = await ctx.repos.companyLogos.get(ctx.principal.scope, id);
  if (!logo) {
    const company = await ctx.repos.companies.get(ctx.principal.scope, id);
    throw new NotFound(
      company
        ? `company ${id} has no uploaded logo; POST one to this address`
        : `no company with id ${id}; call list_companies for valid ids`,
    );
  }
  res.status(200);
  res.setHeader('Content-Type', logo.content_type);
  res.setHeader('Content-Length', String(logo.content.length));
  res.setHeader('Content-Disposition', attachmentHeader(logo.filename).replace(/^attachment/, 'inline'));
  res.setHeader('Cache-Control', 'private, no-store');
  res.end(req.method === 'HEAD' ? undefined : logo.content);
}
