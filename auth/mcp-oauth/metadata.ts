import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type BearerError, bearerChallenge } from '../principal.ts';
import { PRODUCT_NAME } from '../web/layout.ts';

export const MCP_SCOPES = ['read', 'write'];
/** Every token of a sign-in ends this long after the sign-in, whatever is refreshed in between. */
export const SIGN_IN_TTL_MS = 30 * 86_400_000;
export const AUTHORIZATION_CODE_TTL_MS = 5 * 60_000;

/** The addresses of the MCP resource and of its authorization server, all under PUBLIC_URL. */
export function mcpOAuthUrls(publicUrl: string) {
  return {
    /** RFC 8414 issuer: PUBLIC_URL itself, also sent as `iss` in every authorization response. */
    issuer: publicUrl,
    /** RFC 8707 resource indicator that every MCP token is bound to. */
    resource: `${publicUrl}/mcp`,
    resourceMetadata: `${publicUrl}/.well-known/oauth-protected-resource/mcp`,
    authorize: `${publicUrl}/authorize`,
    token: `${publicUrl}/token`,
    register: `${publicUrl}/register`,
    revoke: `${publicUrl}/revoke`,
  };
}

const clientAuthMethods = ['none', 'client_secret_basic', 'client_secret_post'];

/** RFC 8414 metadata, plus the Client ID Metadata Document and RFC 9207 `iss` flags the SDK does not emit. */
export function authorizationServerMetadata(publicUrl: string): OAuthMetadata & {
  client_id_metadata_document_supported: true;
  authorization_response_iss_parameter_supported: true;
} {
  const urls = mcpOAuthUrls(publicUrl);
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    registration_endpoint: urls.register,
    revocation_endpoint: urls.revoke,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: clientAuthMethods,
    revocation_endpoint_auth_methods_supported: clientAuthMethods,
    scopes_supported: MCP_SCOPES,
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 9728 metadata of the MCP endpoint. */
export function protectedResourceMetadata(publicUrl: string): OAuthProtectedResourceMetadata {
  const urls = mcpOAuthUrls(publicUrl);
  return {
    resource: urls.resource,
    authorization_servers: [urls.issuer],
    scopes_supported: MCP_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: PRODUCT_NAME,
  };
}

/** The challenge of a 401 from /mcp: where to find the metadata and, when a credential was sent, why it was refused. */
export function mcpBearerChallenge(
  publicUrl: string,
  error?: BearerError,
  description?: string,
  scope?: string,
): string {
  return bearerChallenge(
    `resource_metadata="${mcpOAuthUrls(publicUrl).resourceMetadata}"`,
    error,
    description,
    scope,
  );
}
