import type { Principal } from '../core/principal.ts';
import type { Repos } from '../db/repos/index.ts';
import { principalFor } from './principal.ts';

/**
 * The principal of a user on this machine, for the stdio MCP server a desktop client launches:
 * whoever can run the command can read the database file, so no token is asked for.
 */
export async function principalForEmail(repos: Repos, email: string): Promise<Principal> {
  const user = await repos.users.getByEmail(email);
  if (!user) throw new Error(`no user with email ${email}`);
  if (!user.is_active) throw new Error(`user ${email} is deactivated`);
  const firm = await repos.firms.get(user.firm_id);
  if (!firm) throw new Error(`the firm of ${email} no longer exists`);
  return principalFor(repos, user, firm, { kind: 'user', key: `user:${user.id}`, tokenId: 'stdio' });
}
