import {
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Request, Response } from 'express';
import type { Clock } from '../../core/clock.ts';
import { parseScopes } from '../../core/principal.ts';
import { newToken, openWith, sealWith, tokenHash } from '../../core/secrets.ts';
import { newId } from '../../db/ids.ts';
import type { Repos } from '../../db/repos/index.ts';
import type {
  AuthorizationCodeRow,
  IssuedTokens,
  McpGrantRow,
  RefreshTokenRow,
} from '../../db/repos/mcp-auth.ts';
import { consentPage, messagePage } from '../web/pages.ts';
import { sendHtml } from '../web/respond.ts';
import { csrfMatches, type Sessions } from '../web/sessions.ts';
import type { McpClientsStore } from './clients-store.ts';
import { AUTHORIZATION_CODE_TTL_MS, MCP_SCOPES, mcpOAuthUrls, SIGN_IN_TTL_MS } from './metadata.ts';

/** The browser session of a signed-in user, as the consent steps read it. */
type SignedIn = NonNullable<Awaited<ReturnType<Sessions['current']>>>;

export interface ProviderOptions {
  repos: Repos;
  clock: Clock;
  sessions: Sessions;
  clientsStore: McpClientsStore;
  /** Read on every request: PUBLIC_URL and MCP_ACCESS_TOKEN_TTL as configured. */
  publicUrl: () => string;
  accessTokenTtlSeconds: () => number;
  /** MCP_WRITE_TOOLS, so the consent page says what the client will be able to do. */
  writeTools: () => boolean;
}

/** The scopes a sign-in gets: the supported ones the client asked for, or all of them. */
function grantedScope(requested: string[] | undefined): string {
  const known = (requested ?? []).filter((s) => MCP_SCOPES.includes(s));
  return (known.length > 0 ? known : MCP_SCOPES).join(' ');
}

/** A refresh retried this soon with the same token (the client lost the response) gets the same tokens. */
export const REFRESH_RETRY_MS = 10_000;

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}

/**
 * Our OAuth 2.1 authorization server for MCP clients, over the database: the SDK's handlers parse
 * and validate the requests, and call these methods. Sign-in and consent are our own web pages;
 * every code and token is bound to the resource `${PUBLIC_URL}/mcp` and to one sign-in (grant).
 */
export class McpOAuthProvider implements OAuthServerProvider {
  constructor(private readonly options: ProviderOptions) {}

  get clientsStore(): McpClientsStore {
    return this.options.clientsStore;
  }

  private get urls() {
    return mcpOAuthUrls(this.options.publicUrl());
  }

  private now(): Date {
    return this.options.clock.now();
  }

  /** The consent page for a signed-in user: who asks, for which firm, with which scopes. */
  private showConsent(
    res: Response,
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    session: SignedIn,
    request: Record<string, string | undefined>,
    retryUrl: string,
  ): void {
    const verified = this.clientsStore.isMetadataUrl(client.client_id);
    sendHtml(
      res,
      200,
      consentPage({
        csrfToken: session.csrfToken,
        clientName: client.client_name?.trim() || (verified ? hostOf(client.client_id) : 'An unnamed client'),
        clientVerified: verified,
        clientHost: hostOf(client.client_id),
        redirectHost: hostOf(params.redirectUri),
        firmName: session.firm.name,
        userEmail: session.user.email,
        scopes: parseScopes(grantedScope(params.scopes)),
        writeTools: this.options.writeTools(),
        request,
        retryUrl,
      }),
    );
  }

  /** Stores a new authorization code for the user's consent and returns it (only its hash is kept). */
  private async issueCode(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    session: SignedIn,
    redirectGiven: boolean,
  ): Promise<string> {
    const code = newToken('pds_code');
    await this.options.repos.mcpAuth.insertCode({
      code_hash: tokenHash(code),
      client_id: client.client_id,
      user_id: session.user.id,
      redirect_uri: params.redirectUri,
      redirect_uri_given: redirectGiven,
      code_challenge: params.codeChallenge,
      resource: this.urls.resource,
      scope: grantedScope(params.scopes),
      expires_at: new Date(this.now().getTime() + AUTHORIZATION_CODE_TTL_MS).toISOString(),
      used_at: null,
      grant_id: null,
    });
    return code;
  }

  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: Response,
  ): Promise<void> {
    const req = res.req as Request;
    const urls = this.urls;
    if (params.resource && params.resource.href !== urls.resource) {
      throw new InvalidTargetError(`this server issues tokens only for the resource ${urls.resource}`);
    }
    const sent = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> | undefined;
    // Posted back without it when the client left it out, so the code knows it was never named.
    const redirectGiven = typeof sent?.redirect_uri === 'string';
    const request: Record<string, string | undefined> = {
      client_id: client.client_id,
      redirect_uri: redirectGiven ? params.redirectUri : undefined,
      response_type: 'code',
      code_challenge: params.codeChallenge,
      code_challenge_method: 'S256',
      state: params.state,
      scope: params.scopes?.length ? params.scopes.join(' ') : undefined,
      resource: params.resource?.href,
    };
    const retryUrl = `/authorize?${new URLSearchParams(
      Object.entries(request).filter((e): e is [string, string] => e[1] !== undefined),
    )}`;
    const session = await this.options.sessions.current(req);
    if (!session) {
      res.redirect(req.method === 'POST' ? 303 : 302, `/login?${new URLSearchParams({ next: retryUrl })}`);
      return;
    }
    const body = (req.method === 'POST' ? req.body : undefined) as Record<string, unknown> | undefined;
    if (body?.decision === undefined) {
      this.showConsent(res, client, params, session, request, retryUrl);
      return;
    }
    if (!csrfMatches(session, body.csrf_token)) {
      sendHtml(
        res,
        403,
        messagePage({
          title: 'This page expired',
          message:
            'The consent form was not accepted because it is out of date. Open it again and choose once more.',
          link: { href: retryUrl, label: 'Back to the consent page' },
        }),
      );
      return;
    }
    const redirect = new URL(params.redirectUri);
    if (params.state !== undefined) redirect.searchParams.set('state', params.state);
    redirect.searchParams.set('iss', urls.issuer);
    if (body.decision !== 'allow') {
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('error_description', 'the user denied access');
      res.redirect(303, redirect.href);
      return;
    }
    redirect.searchParams.set('code', await this.issueCode(client, params, session, redirectGiven));
    res.redirect(303, redirect.href);
  }

  /**
   * The code as stored, if this client may still spend it. A code presented a second time ends the
   * sign-in its first use started (OAuth 2.1 §4.1.3): someone else may hold it.
   */
  private async spendableCode(
    client: OAuthClientInformationFull,
    code: string,
  ): Promise<AuthorizationCodeRow> {
    const row = await this.options.repos.mcpAuth.getCode(tokenHash(code));
    if (!row || row.client_id !== client.client_id) {
      throw new InvalidGrantError('the authorization code is not valid for this client');
    }
    if (row.used_at) {
      await this.revokeGrantOfCode(row.code_hash);
      throw new InvalidGrantError(
        'the authorization code was already used; the tokens issued for it are revoked. Sign in again',
      );
    }
    if (row.expires_at <= this.now().toISOString()) {
      throw new InvalidGrantError('the authorization code has expired; start the sign-in again');
    }
    return row;
  }

  private async revokeGrantOfCode(codeHash: string): Promise<void> {
    const row = await this.options.repos.mcpAuth.getCode(codeHash);
    if (row?.grant_id) await this.options.repos.mcpAuth.revokeGrant(row.grant_id, this.now().toISOString());
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return (await this.spendableCode(client, code)).code_challenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const row = await this.spendableCode(client, code);
    if (row.redirect_uri_given && redirectUri === undefined) {
      throw new InvalidGrantError(
        'redirect_uri is required: send the one of the authorization request (RFC 6749 §4.1.3)',
      );
    }
    if (redirectUri !== undefined && redirectUri !== row.redirect_uri) {
      throw new InvalidGrantError('redirect_uri is not the one of the authorization request');
    }
    if (resource && resource.href !== row.resource) {
      throw new InvalidTargetError(`the code was issued for the resource ${row.resource}`);
    }
    const user = await this.options.repos.users.get(row.user_id);
    if (!user?.is_active) throw new InvalidGrantError('the user who signed in is deactivated');
    const now = this.now();
    const grant: McpGrantRow = {
      id: newId(),
      client_id: client.client_id,
      user_id: user.id,
      firm_id: user.firm_id,
      resource: row.resource,
      scope: row.scope,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SIGN_IN_TTL_MS).toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    const { issued, response } = this.issue(grant, now);
    if (!(await this.options.repos.mcpAuth.redeemCode(row.code_hash, grant, issued))) {
      await this.revokeGrantOfCode(row.code_hash);
      throw new InvalidGrantError('the authorization code was already used; sign in again');
    }
    return response;
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    const { repos } = this.options;
    const hash = tokenHash(refreshToken);
    const row = await repos.mcpAuth.getRefreshToken(hash);
    const grant = row && (await repos.mcpAuth.getGrant(row.grant_id));
    if (!row || !grant || grant.client_id !== client.client_id) {
      throw new InvalidGrantError('the refresh token is not valid for this client');
    }
    const now = this.now();
    const at = now.toISOString();
    if (grant.revoked_at) throw new InvalidGrantError('this sign-in was revoked; sign in again');
    if (grant.expires_at <= at)
      throw new InvalidGrantError('this sign-in ended after 30 days; sign in again');
    if (row.used_at) {
      const again = await this.retried(row, refreshToken, now);
      if (again) return again;
      await repos.mcpAuth.revokeGrant(grant.id, at);
      throw new InvalidGrantError(
        'the refresh token was already used, so this sign-in was revoked to protect the account; sign in again',
      );
    }
    if (resource && resource.href !== grant.resource) {
      throw new InvalidTargetError(`this sign-in is for the resource ${grant.resource}`);
    }
    const granted = grant.scope.split(' ');
    if (scopes?.some((s) => !granted.includes(s))) {
      throw new InvalidScopeError(`the sign-in was granted only: ${grant.scope}`);
    }
    const user = await repos.users.get(grant.user_id);
    if (!user?.is_active) throw new InvalidGrantError('the user who signed in is deactivated');
    const { issued, response } = this.issue(grant, now);
    const sealed = sealWith(refreshToken, JSON.stringify(response));
    if (!(await repos.mcpAuth.rotateRefreshToken(hash, issued, at, sealed))) {
      // A concurrent retry spent it first: answer what it answered, if that is still fresh.
      const spent = await repos.mcpAuth.getRefreshToken(hash);
      const again = spent && (await this.retried(spent, refreshToken, now));
      if (again) return again;
      await repos.mcpAuth.revokeGrant(grant.id, at);
      throw new InvalidGrantError(
        'the refresh token was already used, so this sign-in was revoked; sign in again',
      );
    }
    return response;
  }

  /**
   * The tokens a spent refresh token was exchanged for, when it is presented again within
   * REFRESH_RETRY_MS and those tokens are still unused; otherwise undefined (the reuse revokes).
   */
  private async retried(
    row: RefreshTokenRow,
    refreshToken: string,
    now: Date,
  ): Promise<OAuthTokens | undefined> {
    if (!row.used_at || !row.reissue) return undefined;
    if (now.getTime() - Date.parse(row.used_at) > REFRESH_RETRY_MS) return undefined;
    const text = openWith(refreshToken, row.reissue);
    if (!text) return undefined;
    const tokens = JSON.parse(text) as OAuthTokens;
    const next =
      tokens.refresh_token &&
      (await this.options.repos.mcpAuth.getRefreshToken(tokenHash(tokens.refresh_token)));
    return next && !next.used_at ? tokens : undefined;
  }

  /** A new access token (MCP_ACCESS_TOKEN_TTL, never past the sign-in's end) and a new refresh token. */
  private issue(grant: McpGrantRow, now: Date): { issued: IssuedTokens; response: OAuthTokens } {
    const accessToken = newToken('pds_mcp');
    const refreshToken = newToken('pds_mcpr');
    const expiresAt = Math.min(
      now.getTime() + this.options.accessTokenTtlSeconds() * 1000,
      Date.parse(grant.expires_at),
    );
    return {
      issued: {
        access: {
          id: newId(),
          token_hash: tokenHash(accessToken),
          kind: 'mcp',
          audience: 'mcp',
          firm_id: grant.firm_id,
          user_id: grant.user_id,
          application_id: null,
          grant_id: grant.id,
          name: null,
          resource: grant.resource,
          scope: grant.scope,
          created_at: now.toISOString(),
          expires_at: new Date(expiresAt).toISOString(),
          last_used_at: null,
          revoked_at: null,
        },
        refreshHash: tokenHash(refreshToken),
      },
      response: {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: Math.floor((expiresAt - now.getTime()) / 1000),
        refresh_token: refreshToken,
        scope: grant.scope,
      },
    };
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const { repos } = this.options;
    const row = await repos.tokens.findByHash(tokenHash(token));
    const grant = row?.grant_id ? await repos.mcpAuth.getGrant(row.grant_id) : undefined;
    const now = this.now().toISOString();
    if (
      !row ||
      !grant ||
      row.revoked_at ||
      row.expires_at <= now ||
      grant.revoked_at ||
      grant.expires_at <= now
    ) {
      throw new InvalidTokenError('the access token is invalid, expired or revoked');
    }
    return {
      token,
      clientId: grant.client_id,
      scopes: row.scope.split(' '),
      expiresAt: Math.floor(Date.parse(row.expires_at) / 1000),
      resource: new URL(grant.resource),
    };
  }

  /** RFC 7009: a refresh token ends its whole sign-in; an access token ends only itself. */
  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const { repos } = this.options;
    const hash = tokenHash(request.token);
    const at = this.now().toISOString();
    const refresh = await repos.mcpAuth.getRefreshToken(hash);
    if (refresh) {
      const grant = await repos.mcpAuth.getGrant(refresh.grant_id);
      if (grant?.client_id === client.client_id) await repos.mcpAuth.revokeGrant(grant.id, at);
      return;
    }
    const access = await repos.tokens.findByHash(hash);
    const grant = access?.grant_id ? await repos.mcpAuth.getGrant(access.grant_id) : undefined;
    if (access && grant?.client_id === client.client_id) await repos.tokens.revoke(access.id, at);
  }
}
