import { ToolError } from '../core/errors.ts';
import type { Principal } from '../core/principal.ts';
import type { ReadRepos } from '../db/repos/read.ts';

const MB = 1024 * 1024;

/** Whose firm's documents are counted, against what quota. */
export interface QuotaContext {
  principal: Principal;
  /** The most bytes the files of one firm's documents may take together (DOCUMENT_STORAGE_QUOTA_MB). */
  documentStorageQuotaBytes: number;
}

/** Bytes as MB for a message: two decimals at most, and never 0 for a file that has bytes. */
function mb(bytes: number): string {
  if (bytes > 0 && bytes < MB / 100) return '0.01 MB';
  return `${Number((bytes / MB).toFixed(2))} MB`;
}

/**
 * Refuses, with 413 naming `field`, a file that would take the stored documents of the caller's firm
 * over DOCUMENT_STORAGE_QUOTA_MB. `lock` is for the transaction that then stores the file: the count
 * and the insert are then one step for every upload of the firm. `atLeast` says the size is a bound
 * (from the request's length, before the file is read).
 */
export async function checkStorageQuota(
  ctx: QuotaContext,
  repos: ReadRepos,
  field: string,
  fileBytes: number,
  options: { lock?: boolean; atLeast?: boolean } = {},
): Promise<void> {
  const quota = ctx.documentStorageQuotaBytes;
  const firmId = ctx.principal.firm.id;
  const used = await repos.documents.storedBytes(firmId, { lock: options.lock });
  if (used + fileBytes <= quota) return;
  const size = options.atLeast ? `at least ${mb(fileBytes)}` : mb(fileBytes);
  const message =
    `the firm's documents take ${mb(used)} of their ${mb(quota)} storage quota; ` +
    `this file of ${size} would take them over it`;
  throw new ToolError(
    413,
    'payload_too_large',
    `${field}: ${message}; ask the service's operator to raise DOCUMENT_STORAGE_QUOTA_MB`,
    [{ field, message }],
  );
}
