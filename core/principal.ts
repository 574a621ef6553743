export type Role = 'admin' | 'editor' | 'viewer';

export interface Firm {
  id: string;
  slug: string;
  name: string;
  preferred_currency: string;
  country: string;
  city: string;
  enabled_feature_flags: string;
  created_at: string;
}

export interface User {
  id: string;
  firm_id: string;
  email: string;
  first_name: string;
  last_name: string;
  password_hash: string;
  role: Role;
  all_companies: boolean;
  can_view_documents: boolean;
  can_edit_cap_table: boolean;
  is_active: boolean;
  created_at: string;
}

/** What a request may see: one firm, and all of its companies (null) or only the listed ones. */
export interface Scope {
  firmId: string;
  companyIds: readonly string[] | null;
}

/** OAuth scopes: `read` for every read, `write` for every write. */
export type OAuthScope = 'read' | 'write';
export const ALL_SCOPES: readonly OAuthScope[] = ['read', 'write'];

/** The known scopes of a space-separated scope string, in their canonical order. */
export function parseScopes(scope: string): OAuthScope[] {
  const asked = new Set(scope.split(/\s+/));
  return ALL_SCOPES.filter((s) => asked.has(s));
}

/**
 * Who is calling: an OAuth application acting as the user who created it, a signed-in user, or a
 * company's contact answering a report through a private link (no account: a stand-in user limited
 * to the report's company, with no OAuth scope, so no tool or route accepts it).
 */
export interface Principal {
  kind: 'application' | 'user' | 'contact';
  /** Stable key for rate limits and idempotency: `app:<id>` or `user:<id>`. */
  key: string;
  tokenId: string;
  user: User;
  firm: Firm;
  scope: Scope;
  /** What the token was granted: MCP sign-ins may be read only; applications and personal tokens have both. */
  scopes: readonly OAuthScope[];
  /** The contact, for a principal of kind `contact`. */
  contact?: { id: string; name: string; email: string };
}

/** Whether the user may see and change cap-table positions (the cap_table permission). */
export function mayEditCapTable(user: Pick<User, 'can_edit_cap_table' | 'role'>): boolean {
  return user.can_edit_cap_table || user.role === 'admin';
}
