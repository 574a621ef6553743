import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Principal } from '../core/principal.ts';
import type { ReadRepos } from '../db/repos/read.ts';

/** Everything a tool handler may use, built once per request. */
export interface ToolContext {
  principal: Principal;
  /** The repositories' read methods only: a tool writes through services/. */
  repos: ReadRepos;
  clock: Clock;
  logger: Logger;
  requestId: string;
  publicUrl: string;
  /** The most bytes the files of one firm's documents may take together (DOCUMENT_STORAGE_QUOTA_MB). */
  documentStorageQuotaBytes: number;
  /** Webhook URLs may name loopback addresses, over http too (WEBHOOK_ALLOW_PRIVATE_URLS; development only). */
  webhookAllowPrivateUrls?: boolean;
  /** A founder's link works until this many days after its request's due date (FOUNDER_LINK_DAYS_AFTER_DUE; default 30). */
  founderLinkDaysAfterDue?: number;
  /** Told of every tool call's outcome (the server counts them for /metrics). */
  onToolCall?: (tool: string, outcome: ToolOutcome) => void;
}

export type ToolOutcome = 'ok' | 'client_error' | 'server_error';
