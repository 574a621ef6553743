import { type NextFunction, type Request, type Response, Router } from 'express';
import { authenticate } from '../auth/principal.ts';
import type { Clock } from '../core/clock.ts';
import type { Principal } from '../core/principal.ts';
import type { Repos } from '../db/repos/index.ts';
import { NotFound } from '../tools/errors.ts';
import { requirePermission } from '../tools/run.ts';
import { sendProblem } from './problem.ts';

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
export function documentDownloadRoute(deps: {
  repos: Repos;
  clock: Clock;
  /** Counts the request against the caller's rate limit, as for every other REST route. */
  limit?: (principal: Principal, res: Response) => Promise<void>;
}): Router {
  const router = Router();
  router.get(DOCUMENT_DOWNLOAD_PATH, (req: Request, res: Response, next: NextFunction) => {
    (async () => {
      const principal = await authenticate(deps.repos, deps.clock, req.get('Authorization'), 'rest');
      await deps.limit?.(principal, res);
      requirePermission('documents', principal.user);
      const id = String(req.params.document_id);
      const file = await deps.repos.documents.file(principal.scope, id);
      if (!file) throw new NotFound(`no document with id ${id}; call list_documents for valid ids`);
      res.status(200);
      res.setHeader('Content-Type', file.content_type);
      res.setHeader('Content-Length', String(file.content.length));
      res.setHeader('Content-Disposition', attachmentHeader(file.filename));
      res.setHeader('Cache-Control', 'private, no-store');
      res.end(req.method === 'HEAD' ? undefined : file.content);
    })().catch(next);
  });
  router.all(DOCUMENT_DOWNLOAD_PATH, (_req, res) => {
    res.setHeader('Allow', 'GET');
    sendProblem(res, 405, 'method_not_allowed', 'this path accepts GET');
  });
  return router;
}
