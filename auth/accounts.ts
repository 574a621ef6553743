import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import { CURRENCY_CODES, isCurrencyCode } from '../core/money.ts';
import type { Firm, Role, User } from '../core/principal.ts';
import { hashSecret, newToken, passwordProblem, tokenHash } from '../core/secrets.ts';
import { newId } from '../db/ids.ts';
import type { Repos } from '../db/repos/index.ts';
import type { AccessTokenRow, ApplicationRow, CreationBudget, CreationOutcome } from '../db/repos/tokens.ts';
import * as credentials from '../services/accounts.ts';
import { type Actor, SYSTEM_ACTOR } from '../services/changes.ts';

/** A failed account operation; the message is meant for a person (CLI line, web form). */
export class AccountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountError';
  }
}

export const ROLES = ['admin', 'editor', 'viewer'] as const satisfies readonly Role[];
export const MAX_TOKEN_DAYS = 30;
const DAY_MS = 86_400_000;
/** Applications an active user may hold unless configured otherwise (OAUTH_APPLICATIONS_PER_USER). */
export const DEFAULT_APPLICATIONS_PER_USER = 20;
/** Applications and personal tokens one user may create together per hour, on the web and the CLI. */
export const CREDENTIALS_PER_USER_PER_HOUR = 20;
const HOUR_MS = 3_600_000;

function creationBudget(clock: Clock): CreationBudget {
  return {
    since: new Date(clock.now().getTime() - HOUR_MS).toISOString(),
    max: CREDENTIALS_PER_USER_PER_HOUR,
  };
}

function refuseUnlessCreated(outcome: CreationOutcome, email: string, maxApplications: number): void {
  if (outcome === 'too_many_applications')
    throw new AccountError(
      `user ${email} already has ${maxApplications} applications, the most allowed; revoke one first`,
    );
  if (outcome === 'budget_spent')
    throw new AccountError(
      `user ${email} created ${CREDENTIALS_PER_USER_PER_HOUR} applications and tokens in the last hour, the most allowed; try again later`,
    );
}
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

export interface NewFirm {
  name: string;
  slug: string;
  currency: string;
  country?: string;
  city?: string;
}

export interface NewUser {
  /** Slug of the firm. */
  firm: string;
  email: string;
  password: string;
  role: string;
  firstName?: string;
  lastName?: string;
  /** Company slugs the user is limited to; absent or null: every company of the firm. */
  companies?: readonly string[] | null;
  /** Default on. */
  documents?: boolean;
  /** Default off, on for admin. */
  capTable?: boolean;
}

/** A user as shown to an operator: never the password hash; company access as slugs. */
export interface UserSummary {
  id: string;
  firm_id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: Role;
  all_companies: boolean;
  companies: string[];
  can_view_documents: boolean;
  can_edit_cap_table: boolean;
  is_active: boolean;
  created_at: string;
}

export interface ApplicationSummary {
  id: string;
  firm_id: string;
  client_id: string;
  name: string;
  user_id: string;
  user_email: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface PersonalTokenSummary {
  id: string;
  firm_id: string;
  user_id: string;
  name: string | null;
  scope: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

function text(value: string | undefined, what: string, max: number, required: boolean): string {
  const v = (value ?? '').trim();
  if (required && v === '') throw new AccountError(`${what} must not be empty`);
  if (v.length > max) throw new AccountError(`${what} must be at most ${max} characters`);
  return v;
}

export async function findFirm(repos: Repos, slug: string): Promise<Firm> {
  const firm = await repos.firms.getBySlug(slug);
  if (!firm) throw new AccountError(`no firm with slug ${slug}`);
  return firm;
}

export async function findUser(repos: Repos, email: string): Promise<User> {
  const user = await repos.users.getByEmail(email.trim());
  if (!user) throw new AccountError(`no user with email ${email.trim()}`);
  return user;
}

export async function createFirm(repos: Repos, clock: Clock, input: NewFirm): Promise<Firm> {
  const name = text(input.name, 'firm name', 255, true);
  const slug = input.slug.trim();
  if (slug.length > 64 || !SLUG.test(slug)) {
    throw new AccountError(
      `firm slug ${JSON.stringify(slug)} must be lower-case letters, digits and single hyphens, at most 64 characters`,
    );
  }
  const currency = input.currency.trim().toUpperCase();
  if (!isCurrencyCode(currency)) {
    throw new AccountError(`unknown currency ${input.currency}; use one of ${CURRENCY_CODES.join(' ')}`);
  }
  if (await repos.firms.getBySlug(slug)) throw new AccountError(`a firm with slug ${slug} already exists`);
  const firm: Firm = {
    id: newId(),
    slug,
    name,
    preferred_currency: currency,
    country: text(input.country, 'country', 64, false),
    city: text(input.city, 'city', 255, false),
    enabled_feature_flags: '',
    created_at: clock.now().toISOString(),
  };
  try {
    return await repos.firms.create(firm);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AccountError(`a firm with slug ${slug} already exists`);
    throw err;
  }
}

export async function listFirms(repos: Repos): Promise<Firm[]> {
  return repos.firms.list();
}

async function summarizeUser(repos: Repos, user: User): Promise<UserSummary> {
  const access = await repos.users.companyAccess(user);
  let companies: string[] = [];
  if (access) {
    const byId = await repos.companies.names({ firmId: user.firm_id, companyIds: null }, access);
    companies = [...byId.values()].map((c) => c.slug).sort();
  }
  return {
    id: user.id,
    firm_id: user.firm_id,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    role: user.role,
    all_companies: user.all_companies,
    companies,
    can_view_documents: user.can_view_documents,
    can_edit_cap_table: user.can_edit_cap_table,
    is_active: user.is_active,
    created_at: user.created_at,
  };
}

export async function createUser(repos: Repos, clock: Clock, input: NewUser): Promise<UserSummary> {
  const firm = await findFirm(repos, input.firm);
  const email = input.email.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email))
    throw new AccountError(`${input.email} is not an email address`);
  if (!(ROLES as readonly string[]).includes(input.role)) {
    throw new AccountError(`unknown role ${input.role}; use one of ${ROLES.join(', ')}`);
  }
  const role = input.role as Role;
  const weak = passwordProblem(input.password);
  if (weak) throw new AccountError(weak);
  const firstName = text(input.firstName, 'first name', 150, false);
  const lastName = text(input.lastName, 'last name', 150, false);

  const companyIds: string[] = [];
  if (input.companies) {
    const slugs = [...new Set(input.companies.map((s) => s.trim()).filter(Boolean))];
    if (slugs.length === 0) throw new AccountError('company access needs at least one company slug');
    const scope = { firmId: firm.id, companyIds: null };
    for (const slug of slugs) {
      const company = await repos.companies.find(scope, { slug });
      if (!company) throw new AccountError(`no company with slug ${slug} in firm ${firm.slug}`);
      companyIds.push(company.id);
    }
  }

  if (await repos.users.getByEmail(email))
    throw new AccountError(`a user with email ${email} already exists`);
  const user: User = {
    id: newId(),
    firm_id: firm.id,
    email,
    first_name: firstName,
    last_name: lastName,
    password_hash: await hashSecret(input.password),
    role,
    all_companies: !input.companies,
    can_view_documents: input.documents ?? true,
    can_edit_cap_table: input.capTable ?? role === 'admin',
    is_active: true,
    created_at: clock.now().toISOString(),
  };
  try {
    await repos.users.create(user, companyIds);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AccountError(`a user with email ${email} already exists`);
    throw err;
  }
  return summarizeUser(repos, user);
}

export async function listUsers(repos: Repos, firmSlug: string): Promise<UserSummary[]> {
  const firm = await findFirm(repos, firmSlug);
  const out: UserSummary[] = [];
  const limit = 500;
  for (let offset = 0; ; offset += limit) {
    const { rows } = await repos.users.list(firm.id, {}, { limit, offset });
    for (const user of rows) out.push(await summarizeUser(repos, user));
    if (rows.length < limit) return out;
  }
}

export interface NewApplication {
  /** Slug of the firm. */
  firm: string;
  /** Email of the user whose permissions the application's tokens carry. */
  userEmail: string;
  name: string;
  /** Unrevoked applications the user may hold (default DEFAULT_APPLICATIONS_PER_USER). */
  maxApplications?: number;
}

/** Creates an OAuth application; the secret is returned once here and stored only as a slow hash. */
export async function createApplication(
  repos: Repos,
  clock: Clock,
  input: NewApplication,
  actor: Actor = SYSTEM_ACTOR,
): Promise<{ id: string; client_id: string; client_secret: string }> {
  const firm = await findFirm(repos, input.firm);
  const user = await findUser(repos, input.userEmail);
  if (user.firm_id !== firm.id)
    throw new AccountError(`user ${user.email} is not a member of firm ${firm.slug}`);
  if (!user.is_active) throw new AccountError(`user ${user.email} is deactivated`);
  const name = text(input.name, 'application name', 255, true);
  const clientId = `pds_ci_${randomBytes(16).toString('base64url')}`;
  const clientSecret = newToken('pds_cs');
  const row: ApplicationRow = {
    id: newId(),
    firm_id: firm.id,
    user_id: user.id,
    name,
    client_id: clientId,
    client_secret_hash: await hashSecret(clientSecret),
    created_at: clock.now().toISOString(),
    revoked_at: null,
  };
  const maxApplications = input.maxApplications ?? DEFAULT_APPLICATIONS_PER_USER;
  const outcome = await credentials.insertApplication(
    repos,
    actor,
    row,
    maxApplications,
    creationBudget(clock),
  );
  refuseUnlessCreated(outcome, user.email, maxApplications);
  return { id: row.id, client_id: clientId, client_secret: clientSecret };
}

export async function listApplications(repos: Repos, firmSlug: string): Promise<ApplicationSummary[]> {
  const firm = await findFirm(repos, firmSlug);
  const rows = await repos.applications.listForFirm(firm.id);
  const emails = new Map<string, string | null>();
  for (const row of rows) {
    if (!emails.has(row.user_id))
      emails.set(row.user_id, (await repos.users.get(row.user_id))?.email ?? null);
  }
  return rows.map((row) => ({
    id: row.id,
    firm_id: row.firm_id,
    client_id: row.client_id,
    name: row.name,
    user_id: row.user_id,
    user_email: emails.get(row.user_id) ?? null,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  }));
}

/** Revokes an application and every token issued to it (one transaction, in the repository). */
export async function revokeApplication(
  repos: Repos,
  clock: Clock,
  clientId: string,
  actor: Actor = SYSTEM_ACTOR,
): Promise<void> {
  const app = await repos.applications.findByClientId(clientId);
  if (!app) throw new AccountError(`no application with client id ${clientId}`);
  if (app.revoked_at)
    throw new AccountError(`application ${clientId} was already revoked at ${app.revoked_at}`);
  await credentials.revokeApplication(repos, actor, app, clock.now().toISOString());
}

export interface NewPersonalToken {
  email: string;
  /** Lifetime in whole days, 1 to 30 (default 30). */
  days?: number;
  name?: string;
}

/** A personal access token for MCP clients that cannot do OAuth; shown once, stored as its SHA-256. */
export async function createPersonalToken(
  repos: Repos,
  clock: Clock,
  input: NewPersonalToken,
  actor: Actor = SYSTEM_ACTOR,
): Promise<{ id: string; token: string; expires_at: string }> {
  const days = input.days ?? MAX_TOKEN_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_DAYS) {
    throw new AccountError(`token lifetime must be a whole number of days from 1 to ${MAX_TOKEN_DAYS}`);
  }
  const user = await findUser(repos, input.email);
  if (!user.is_active) throw new AccountError(`user ${user.email} is deactivated`);
  const name = text(input.name, 'token name', 255, false) || 'personal access token';
  const now = clock.now();
  const token = newToken('pds_pat');
  const row: AccessTokenRow = {
    id: newId(),
    token_hash: tokenHash(token),
    kind: 'personal',
    audience: 'any',
    firm_id: user.firm_id,
    user_id: user.id,
    application_id: null,
    grant_id: null,
    name,
    resource: null,
    scope: 'read write',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + days * DAY_MS).toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  const outcome = await credentials.insertPersonalToken(repos, actor, row, creationBudget(clock));
  refuseUnlessCreated(outcome, user.email, 0);
  return { id: row.id, token, expires_at: row.expires_at };
}

export async function listPersonalTokens(repos: Repos, email: string): Promise<PersonalTokenSummary[]> {
  const user = await findUser(repos, email);
  const rows = await repos.tokens.listPersonal(user.id);
  return rows.map((row) => ({
    id: row.id,
    firm_id: row.firm_id,
    user_id: row.user_id,
    name: row.name,
    scope: row.scope,
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  }));
}

export async function revokePersonalToken(
  repos: Repos,
  clock: Clock,
  id: string,
  actor: Actor = SYSTEM_ACTOR,
): Promise<void> {
  const token = await repos.tokens.get(id);
  if (token?.kind !== 'personal') throw new AccountError(`no personal access token with id ${id}`);
  if (token.revoked_at) throw new AccountError(`token ${id} was already revoked at ${token.revoked_at}`);
  await credentials.revokePersonalToken(repos, actor, token, clock.now().toISOString());
}
