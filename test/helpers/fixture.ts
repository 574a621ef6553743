import type { Knex } from 'knex';
import type { Role, User } from '../../core/principal.ts';
import { hashSecret, newToken, tokenHash } from '../../core/secrets.ts';
import { newId } from '../../db/ids.ts';
import { createRepos, type Repos } from '../../db/repos/index.ts';
import type { AccessTokenRow, Audience, TokenKind } from '../../db/repos/tokens.ts';

const T0 = '2026-01-01T00:00:00.000Z';
let passwordHash: Promise<string> | undefined;

export interface FixtureUser {
  user: User;
  /** A bearer token for REST (client credentials of an application the user owns). */
  rest: string;
  /** A personal access token (accepted by REST and MCP). */
  pat: string;
}

export interface Fixture {
  repos: Repos;
  firmA: { id: string; slug: string };
  firmB: { id: string; slug: string };
  /** Companies of firm A, by name: Acme, Beta, Gamma (and firm B's Zeta). */
  companies: Record<'acme' | 'beta' | 'gamma' | 'zeta', { id: string; slug: string; name: string }>;
  fundA: string;
  admin: FixtureUser;
  editor: FixtureUser;
  viewer: FixtureUser;
  /** Viewer of firm A restricted to Acme, without documents. */
  restricted: FixtureUser;
  /** Admin of firm B. */
  other: FixtureUser;
}

export async function issueToken(
  repos: Repos,
  user: User,
  options: { kind?: TokenKind; audience?: Audience; applicationId?: string | null; expiresAt?: string } = {},
): Promise<string> {
  const token = newToken('test');
  const row: AccessTokenRow = {
    id: newId(),
    token_hash: tokenHash(token),
    kind: options.kind ?? 'personal',
    audience: options.audience ?? 'any',
    firm_id: user.firm_id,
    user_id: user.id,
    application_id: options.applicationId ?? null,
    grant_id: null,
    name: 'test',
    resource: null,
    scope: 'read write',
    created_at: T0,
    expires_at: options.expiresAt ?? '2999-01-01T00:00:00.000Z',
    last_used_at: null,
    revoked_at: null,
  };
  await repos.tokens.insert(row);
  return token;
}

/** Creates an OAuth application for the user and returns its client id and secret. */
export async function createApp(repos: Repos, user: User, name = 'test app') {
  const clientId = `client-${newId()}`;
  const clientSecret = `secret-${newId()}`;
  const id = newId();
  await repos.applications.insert({
    id,
    firm_id: user.firm_id,
    user_id: user.id,
    name,
    client_id: clientId,
    client_secret_hash: await hashSecret(clientSecret),
    created_at: T0,
    revoked_at: null,
  });
  return { id, clientId, clientSecret };
}

/** A user of a firm with a token for each audience; `companyIds` limits a user without all_companies. */
export async function makeUser(
  repos: Repos,
  firmId: string,
  email: string,
  role: Role,
  extra: Partial<User> = {},
  companyIds: string[] = [],
): Promise<FixtureUser> {
  passwordHash ??= hashSecret('fixture-password');
  const user: User = {
    id: newId(),
    firm_id: firmId,
    email,
    first_name: email.split('@')[0]!,
    last_name: 'Tester',
    password_hash: await passwordHash,
    role,
    all_companies: true,
    can_view_documents: true,
    can_edit_cap_table: role === 'admin',
    is_active: true,
    created_at: T0,
    ...extra,
  };
  await repos.users.create(user, companyIds);
  const app = await createApp(repos, user);
  const rest = await issueToken(repos, user, {
    kind: 'client_credentials',
    audience: 'rest',
    applicationId: app.id,
  });
  const pat = await issueToken(repos, user);
  return { user, rest, pat };
}

/**
 * A small, known world: firm A (USD) with three companies and users of every role, and firm B (EUR)
 * with one company. Suites add the rows they need on top of it.
 */
export async function buildFixture(db: Knex): Promise<Fixture> {
  const repos = createRepos(db);
  const firmA = { id: newId(), slug: 'alpha' };
  const firmB = { id: newId(), slug: 'bravo' };
  await repos.firms.create({
    ...firmA,
    name: 'Alpha Partners',
    preferred_currency: 'USD',
    country: 'US',
    city: 'Boston',
    enabled_feature_flags: '',
    created_at: T0,
  });
  await repos.firms.create({
    ...firmB,
    name: 'Bravo Capital',
    preferred_currency: 'EUR',
    country: 'DE',
    city: 'Berlin',
    enabled_feature_flags: '',
    created_at: T0,
  });
  const fundA = newId();
  await db('funds').insert({
    id: fundA,
    firm_id: firmA.id,
    name: 'Alpha Fund I',
    size: '100000000.00',
    vintage: 2020,
    currency: 'USD',
    created_at: T0,
  });
  const company = async (firmId: string, name: string, extra: Record<string, string> = {}) => {
    const c = { id: newId(), slug: name.toLowerCase().replace(/\W+/g, '-'), name };
    await repos.companies.create(
      {
        ...c,
        firm_id: firmId,
        description: `${name} makes things.`,
        sector: 'SaaS',
        firm_sector: 'Software',
        city: 'Boston',
        status: 'active',
        unique_ref: `REF-${name}`,
        website: `https://${c.slug}.example`,
        logo_url: `https://logos.example/${c.slug}.png`,
        fiscal_year_end: '12-31',
        reporting_currency: firmId === firmA.id ? 'USD' : 'EUR',
        investment_lead_id: null,
        created_at: T0,
        updated_at: T0,
        ...extra,
      },
      firmId === firmA.id ? [fundA] : [],
    );
    return c;
  };
  const companies = {
    acme: await company(firmA.id, 'Acme Analytics'),
    beta: await company(firmA.id, 'Beta Bio', { sector: 'Health', city: 'London' }),
    gamma: await company(firmA.id, 'Gamma Grid', { sector: 'Climate', city: 'Berlin' }),
    zeta: await company(firmB.id, 'Zeta Zero'),
  };
  const admin = await makeUser(repos, firmA.id, 'admin@alpha.test', 'admin');
  const editor = await makeUser(repos, firmA.id, 'editor@alpha.test', 'editor');
  const viewer = await makeUser(repos, firmA.id, 'viewer@alpha.test', 'viewer');
  const restricted = await makeUser(
    repos,
    firmA.id,
    'restricted@alpha.test',
    'viewer',
    { all_companies: false, can_view_documents: false },
    [companies.acme.id],
  );
  const other = await makeUser(repos, firmB.id, 'admin@bravo.test', 'admin');
  return { repos, firmA, firmB, companies, fundA, admin, editor, viewer, restricted, other };
}
