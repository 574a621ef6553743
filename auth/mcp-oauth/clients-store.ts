import { isIP } from 'node:net';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  CustomOAuthError,
  InvalidClientMetadataError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import {
  type OAuthClientInformationFull,
  OAuthClientMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { isPublicAddress } from '../../core/public-address.ts';
import { hashSecret } from '../../core/secrets.ts';
import { uriProblem } from '../../core/uri.ts';
import type { Repos } from '../../db/repos/index.ts';
import { fetchPublicDocument, type Resolve, resolveWithDns } from './document-fetch.ts';

/** A fetched client metadata document is trusted for an hour, then fetched again. */
export const METADATA_DOCUMENT_TTL_MS = 3600_000;
const METADATA_DOCUMENT_MAX_BYTES = 64 * 1024;
const METADATA_FETCH_TIMEOUT_MS = 3000;
/** A document that could not be fetched is not tried again for this long. */
export const METADATA_FAILURE_TTL_MS = 60_000;
/** Remembered failures, at most; the oldest are forgotten first. */
const MAX_REMEMBERED_FAILURES = 1000;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Redirect URIs we accept: valid URIs by RFC 3986, without a fragment, on any https address or on http
 * to a loopback host (native and CLI clients). Why not, or null.
 */
export function redirectUriProblem(uri: string): string | null {
  const invalid = uriProblem(uri);
  if (invalid) return invalid;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not a URL';
  }
  if (url.hash || uri.includes('#')) return 'must not have a fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must be https, or http on localhost, 127.0.0.1 or [::1]';
}

/**
 * Host names and address literals a metadata fetch must never reach: local names, and any address that
 * is not public (the fetch checks every resolved address again).
 */
function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal')) return true;
  return isIP(host) !== 0 && !isPublicAddress(host);
}

export interface ClientsStoreOptions {
  repos: Repos;
  clock: Clock;
  logger: Logger;
  /** Accept http://127.0.0.1 (and other loopback) client_id URLs; for tests and local development only. */
  allowLoopbackMetadataUrls: () => boolean;
  /** How metadata document hosts are resolved; dns.lookup unless a test says otherwise. */
  resolve?: Resolve;
  fetchTimeoutMs?: number;
}

/**
 * MCP clients from our database: dynamically registered ones (RFC 7591), and URL client ids whose
 * Client ID Metadata Document is fetched, validated and cached here — the SDK's router does not
 * implement those on the server side. Secrets are stored only as slow hashes and never returned,
 * so the SDK's own plain comparison is skipped; `clientAuthentication` checks them instead.
 */
export class McpClientsStore implements OAuthRegisteredClientsStore {
  /** Metadata document URLs whose last fetch failed, with the time they may be tried again. */
  private readonly failedUntil = new Map<string, number>();

  constructor(private readonly options: ClientsStoreOptions) {}

  /** Whether this client_id names a metadata document rather than a registration. */
  isMetadataUrl(clientId: string): boolean {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      return false;
    }
    if (url.pathname === '/' || url.hash || url.username || url.password) return false;
    const loopback = LOOPBACK_HOSTS.has(url.hostname);
    if (url.protocol === 'https:') return !isInternalHost(url.hostname) || (loopback && this.loopbackAllowed);
    return url.protocol === 'http:' && loopback && this.loopbackAllowed;
  }

  private get loopbackAllowed(): boolean {
    return this.options.allowLoopbackMetadataUrls();
  }

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (this.isMetadataUrl(clientId)) return this.metadataDocumentClient(clientId);
    const row = await this.options.repos.mcpAuth.getClient(clientId);
    if (!row || row.is_metadata_document) return undefined;
    return JSON.parse(row.metadata) as OAuthClientInformationFull;
  }

  /** The hash of a registered client's secret; null for public clients, undefined for unknown ones. */
  async secretHash(clientId: string): Promise<string | null | undefined> {
    if (this.isMetadataUrl(clientId)) return null;
    const row = await this.options.repos.mcpAuth.getClient(clientId);
    return row ? row.client_secret_hash : undefined;
  }

  async registerClient(
    client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>,
  ): Promise<OAuthClientInformationFull> {
    const full = client as OAuthClientInformationFull;
    validateClientMetadata(full);
    const method = full.token_endpoint_auth_method ?? 'client_secret_basic';
    if (!['none', 'client_secret_basic', 'client_secret_post'].includes(method)) {
      throw new InvalidClientMetadataError(
        `token_endpoint_auth_method ${method} is not supported; use none, client_secret_basic or client_secret_post`,
      );
    }
    const { client_secret, client_secret_expires_at: _unused, ...metadata } = full;
    const stored: OAuthClientInformationFull = {
      ...metadata,
      token_endpoint_auth_method: method,
      grant_types: full.grant_types ?? ['authorization_code', 'refresh_token'],
      response_types: full.response_types ?? ['code'],
    };
    await this.options.repos.mcpAuth.insertClient({
      client_id: full.client_id,
      client_secret_hash: client_secret ? await hashSecret(client_secret) : null,
      metadata: JSON.stringify(stored),
      is_metadata_document: false,
      created_at: this.options.clock.now().toISOString(),
      fetched_at: null,
    });
    // The secret is shown this once; client_secret_expires_at 0 means it does not expire.
    return client_secret ? { ...stored, client_secret, client_secret_expires_at: 0 } : stored;
  }

  /** Whether serving this client id would fetch its metadata document now (for the fetch rate limit). */
  async fetchDue(clientId: string): Promise<boolean> {
    if (!this.isMetadataUrl(clientId)) return false;
    const now = this.options.clock.now().getTime();
    if ((this.failedUntil.get(clientId) ?? 0) > now) return false;
    return (await this.cachedDocument(clientId, now)) === undefined;
  }

  private async cachedDocument(
    clientId: string,
    now: number,
  ): Promise<OAuthClientInformationFull | undefined> {
    const cached = await this.options.repos.mcpAuth.getClient(clientId);
    if (
      cached?.is_metadata_document &&
      cached.fetched_at &&
      now - Date.parse(cached.fetched_at) < METADATA_DOCUMENT_TTL_MS
    ) {
      return JSON.parse(cached.metadata) as OAuthClientInformationFull;
    }
    return undefined;
  }

  private async metadataDocumentClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    const { repos, clock, logger } = this.options;
    const now = clock.now();
    const cached = await this.cachedDocument(clientId, now.getTime());
    if (cached) return cached;
    if ((this.failedUntil.get(clientId) ?? 0) > now.getTime()) return undefined;
    try {
      const document = await this.fetchDocument(clientId);
      await repos.mcpAuth.saveMetadataDocument(clientId, JSON.stringify(document), now.toISOString());
      this.failedUntil.delete(clientId);
      return document;
    } catch (err) {
      logger.warn('client metadata document refused', { client_id: clientId, reason: String(err) });
      this.rememberFailure(clientId, now.getTime() + METADATA_FAILURE_TTL_MS);
      return undefined;
    }
  }

  private rememberFailure(clientId: string, until: number): void {
    this.failedUntil.delete(clientId);
    if (this.failedUntil.size >= MAX_REMEMBERED_FAILURES) {
      const oldest = this.failedUntil.keys().next().value;
      if (oldest !== undefined) this.failedUntil.delete(oldest);
    }
    this.failedUntil.set(clientId, until);
  }

  private async fetchDocument(clientId: string): Promise<OAuthClientInformationFull> {
    const text = await fetchPublicDocument(clientId, {
      resolve: this.options.resolve ?? resolveWithDns,
      allowLoopback: this.loopbackAllowed,
      maxBytes: METADATA_DOCUMENT_MAX_BYTES,
      timeoutMs: this.options.fetchTimeoutMs ?? METADATA_FETCH_TIMEOUT_MS,
    });
    const raw = JSON.parse(text) as { client_id?: unknown };
    if (raw.client_id !== clientId) throw new Error('its client_id is not the URL it was fetched from');
    const parsed = OAuthClientMetadataSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`invalid client metadata: ${parsed.error.message}`);
    const document: OAuthClientInformationFull = { ...parsed.data, client_id: clientId };
    validateClientMetadata(document);
    // A document is public: whoever can read it could claim a shared secret, so only public clients.
    const method = document.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') throw new Error(`token_endpoint_auth_method ${method} is not supported here`);
    return { ...document, token_endpoint_auth_method: 'none' };
  }
}

/** The longest value each text field of client metadata may hold, in characters. */
const TEXT_LIMITS: Record<string, number> = {
  client_name: 200,
  client_uri: 2000,
  logo_uri: 2000,
  tos_uri: 2000,
  policy_uri: 2000,
  jwks_uri: 2000,
  scope: 200,
  token_endpoint_auth_method: 64,
  software_id: 200,
  software_version: 200,
  software_statement: 4096,
};
/** The most entries each list field may hold, and the longest entry. */
const LIST_LIMITS: Record<string, { count: number; length: number }> = {
  redirect_uris: { count: 10, length: 2000 },
  grant_types: { count: 4, length: 64 },
  response_types: { count: 4, length: 64 },
  contacts: { count: 5, length: 320 },
};
const MAX_JWKS_CHARS = 8192;
/** All metadata together, as stored. */
export const MAX_CLIENT_METADATA_CHARS = 16 * 1024;

/** Every field of client metadata is capped, so one registration cannot store more than a few KiB. */
function capClientMetadata(client: OAuthClientInformationFull): void {
  const fields = client as unknown as Record<string, unknown>;
  for (const [field, max] of Object.entries(TEXT_LIMITS)) {
    const value = fields[field];
    if (typeof value === 'string' && value.length > max)
      throw new InvalidClientMetadataError(`${field} must be at most ${max} characters`);
  }
  for (const [field, max] of Object.entries(LIST_LIMITS)) {
    const value = fields[field];
    if (!Array.isArray(value)) continue;
    if (value.length > max.count)
      throw new InvalidClientMetadataError(`${field} may list at most ${max.count} entries`);
    if (value.some((entry) => typeof entry === 'string' && entry.length > max.length))
      throw new InvalidClientMetadataError(`each entry of ${field} must be at most ${max.length} characters`);
  }
  if (fields.jwks !== undefined && JSON.stringify(fields.jwks).length > MAX_JWKS_CHARS)
    throw new InvalidClientMetadataError(`jwks must be at most ${MAX_JWKS_CHARS} characters of JSON`);
  if (JSON.stringify(client).length > MAX_CLIENT_METADATA_CHARS)
    throw new InvalidClientMetadataError(
      `the client metadata must be at most ${MAX_CLIENT_METADATA_CHARS / 1024} KiB of JSON`,
    );
}

function validateClientMetadata(client: OAuthClientInformationFull): void {
  capClientMetadata(client);
  if (client.redirect_uris.length === 0) {
    throw new CustomOAuthError('invalid_redirect_uri', 'redirect_uris must list at least one URI');
  }
  client.redirect_uris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw new CustomOAuthError('invalid_redirect_uri', `redirect_uris[${i}] ${problem}`);
  });
  const grants = client.grant_types ?? ['authorization_code'];
  const unsupported = grants.filter((g) => g !== 'authorization_code' && g !== 'refresh_token');
  if (unsupported.length > 0) {
    throw new InvalidClientMetadataError(
      `grant_types ${unsupported.join(', ')} are not supported; use authorization_code and refresh_token`,
    );
  }
}
