import { type FieldError, InvalidInput, NotFound, ToolError } from '../core/errors.ts';
import type { Firm } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import type { ContactRow } from '../db/repos/contacts.ts';
import { inTransaction, type Repos } from '../db/repos/index.ts';
import { isUniqueViolation } from '../db/repos/util.ts';
import {
  type Recorded,
  type Recorder,
  record,
  type ServiceContext,
  SYSTEM_ACTOR,
  withRecorder,
  writableCompany,
} from './changes.ts';
import { type ImportCounts, type ImportProblem, ImportRejected } from './import.ts';

/** What a caller gives for a contact. */
export interface ContactFields {
  name: string;
  email: string;
}

// Deliberately plain: one @, no spaces, quotes, angle brackets or commas, and a dot in the domain.
const EMAIL = /^[^\s@<>"',;:()[\]\\]+@[^\s@<>"',;:()[\]\\]+\.[^\s@<>"',;:()[\]\\.]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The stored form of an address (trimmed, lower case), or the problem with it. */
export function normalEmail(raw: string): { email: string } | { problem: string } {
  const email = raw.trim().toLowerCase();
  if (email.length === 0) return { problem: 'is required' };
  if (email.length > 254) return { problem: 'must be at most 254 characters' };
  if (!EMAIL.test(email)) return { problem: 'must be an e-mail address such as founder@company.com' };
  return { email };
}

function nameProblem(name: string): string | undefined {
  if (name.trim().length === 0) return 'is required';
  if (name.length > 255) return 'must be at most 255 characters';
  if (CONTROL.test(name)) return 'must not contain control characters';
  return undefined;
}

/** The checked fields, or a 400 naming each bad one. */
function checked(fields: Partial<ContactFields>, prefix = ''): Partial<ContactFields> {
  const errors: FieldError[] = [];
  const out: Partial<ContactFields> = {};
  if (fields.name !== undefined) {
    const problem = nameProblem(fields.name);
    if (problem) errors.push({ field: `${prefix}name`, message: problem });
    else out.name = fields.name.trim();
  }
  if (fields.email !== undefined) {
    const normal = normalEmail(fields.email);
    if ('problem' in normal) errors.push({ field: `${prefix}email`, message: normal.problem });
    else out.email = normal.email;
  }
  if (errors.length > 0)
    throw new InvalidInput(
      `invalid contact: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      errors,
    );
  return out;
}

function taken(email: string, companyName: string): ToolError {
  const message = `${companyName} already has a contact with the address ${email}`;
  return new ToolError(409, 'conflict', `email: ${message}; change that contact instead`, [
    { field: 'email', message },
  ]);
}

export function contactData(contact: ContactRow) {
  return { id: contact.id, company_id: contact.company_id, name: contact.name, email: contact.email };
}

function contactRecord(
  type: 'created' | 'updated' | 'deleted',
  contact: ContactRow,
  changes?: object,
): Recorded {
  const action = type === 'created' ? 'create' : type === 'updated' ? 'update' : 'delete';
  return {
    change: { entity: 'company_contacts', entityId: contact.id, action, changes: changes && { ...changes } },
    event: {
      type: `contact.${type}`,
      companyId: contact.company_id,
      resourceType: 'contact',
      resourceId: contact.id,
      data: contactData(contact),
    },
  };
}

/** The company's contact, when the caller may see the company; otherwise a 404 as for one that does not exist. */
async function storedContact(ctx: ServiceContext, companyId: string, id: string) {
  const company = (await ctx.repos.companies.names(ctx.principal.scope, [companyId])).get(companyId);
  const contact = company && (await ctx.repos.contacts.get(ctx.principal.firm.id, companyId, id));
  if (!company || !contact)
    throw new NotFound(
      `no contact with id ${id} of company ${companyId} that you can access; list_company_contacts lists them`,
    );
  return { company, contact };
}

/** Adds a contact to a visible company: one per address and company. */
export async function createContact(
  ctx: ServiceContext,
  companyId: string,
  fields: ContactFields,
): Promise<ContactRow> {
  const company = await writableCompany(ctx, companyId, 'company_id');
  const { name, email } = checked(fields) as ContactFields;
  if (await ctx.repos.contacts.byEmail(company.id, email)) throw taken(email, company.name);
  try {
    return await withRecorder(ctx, async (repos, recorder) => {
      const row: ContactRow = {
        id: newId(),
        firm_id: company.firm_id,
        company_id: company.id,
        name,
        email,
        created_by: recorder.actor.userId,
        created_at: recorder.at,
        updated_at: recorder.at,
      };
      await repos.contacts.insert(row);
      await record(recorder, contactRecord('created', row, contactData(row)));
      return row;
    });
  } catch (err) {
    // Another write added the address meanwhile.
    if (isUniqueViolation(err)) throw taken(email, company.name);
    throw err;
  }
}

/** Changes a contact's name or address; the same values are no change (nothing recorded). */
export async function updateContact(
  ctx: ServiceContext,
  companyId: string,
  id: string,
  fields: Partial<ContactFields>,
): Promise<ContactRow> {
  const { company, contact } = await storedContact(ctx, companyId, id);
  const given = checked(fields);
  const changes: Partial<ContactFields> = {};
  if (given.name !== undefined && given.name !== contact.name) changes.name = given.name;
  if (given.email !== undefined && given.email !== contact.email) changes.email = given.email;
  if (Object.keys(changes).length === 0) return contact;
  if (changes.email && (await ctx.repos.contacts.byEmail(company.id, changes.email)))
    throw taken(changes.email, company.name);
  try {
    return await withRecorder(ctx, async (repos, recorder) => {
      const row = { ...contact, ...changes, updated_at: recorder.at };
      await repos.contacts.update(id, { name: row.name, email: row.email, updated_at: recorder.at });
      await record(recorder, contactRecord('updated', row, changes));
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken(changes.email ?? contact.email, company.name);
    throw err;
  }
}

/** Deletes a contact; the links it was sent stop working (they go with it). */
export async function deleteContact(ctx: ServiceContext, companyId: string, id: string): Promise<ContactRow> {
  const { contact } = await storedContact(ctx, companyId, id);
  await withRecorder(ctx, async (repos, recorder) => {
    await repos.contacts.delete(id);
    await record(recorder, contactRecord('deleted', contact));
  });
  return contact;
}

/** One contact of a CSV import, located by its line. */
export interface ImportContact {
  where: string;
  order: number;
  company_slug: string;
  name: string;
  email: string;
}

interface PlannedContact {
  row: ContactRow;
  outcome: 'created' | 'updated' | 'skipped';
}

/** Resolves and checks every contact of an import; the plan, or every problem found. */
async function planContacts(repos: Repos, firm: Firm, items: readonly ImportContact[], now: string) {
  const scope = { firmId: firm.id, companyIds: null };
  const slugs = [...new Set(items.map((i) => i.company_slug))];
  const companies = await repos.companies.bySlugs(scope, slugs);
  const existing = await repos.contacts.ofCompanies(
    firm.id,
    [...companies.values()].map((c) => c.id),
  );
  const problems: ImportProblem[] = [];
  const planned: PlannedContact[] = [];
  const seen = new Map<string, string>();
  for (const item of items) {
    const problem = (message: string) => problems.push({ order: item.order, where: item.where, message });
    const company = companies.get(item.company_slug);
    if (!company) {
      problem(`company_slug: no company with slug "${item.company_slug}" in firm ${firm.slug}`);
      continue;
    }
    const nameIssue = nameProblem(item.name);
    const email = normalEmail(item.email);
    if (nameIssue) problem(`name: ${nameIssue}`);
    if ('problem' in email) problem(`email: ${email.problem}`);
    if (nameIssue || 'problem' in email) continue;
    const key = `${company.id}|${email.email}`;
    const earlier = seen.get(key);
    if (earlier) {
      problem(`email: ${email.email} is already given for ${item.company_slug} at ${earlier}`);
      continue;
    }
    seen.set(key, item.where);
    const name = item.name.trim();
    const current = existing.get(company.id)?.find((c) => c.email === email.email);
    if (current) {
      const outcome = current.name === name ? 'skipped' : 'updated';
      planned.push({ row: { ...current, name, updated_at: now }, outcome });
      continue;
    }
    const row: ContactRow = {
      id: newId(),
      firm_id: firm.id,
      company_id: company.id,
      name,
      email: email.email,
      created_by: null,
      created_at: now,
      updated_at: now,
    };
    planned.push({ row, outcome: 'created' });
  }
  return { planned, problems };
}

/**
 * Adds or renames the contacts of a CSV import (`company_slug,name,email`), all or nothing: a contact
 * of the same company and address is renamed (updated) or left as it is (skipped). Each write is
 * recorded as the service's own.
 */
export async function importContacts(
  repos: Repos,
  firm: Firm,
  items: readonly ImportContact[],
  options: { now: string; problems?: ImportProblem[] },
): Promise<ImportCounts> {
  const { planned, problems } = await planContacts(repos, firm, items, options.now);
  const all = [...(options.problems ?? []), ...problems].sort((a, b) => a.order - b.order);
  if (all.length > 0) throw new ImportRejected(all);
  await inTransaction(repos, async (trx) => {
    const recorder: Recorder = { repos: trx, firmId: firm.id, actor: SYSTEM_ACTOR, at: options.now };
    const created = planned.filter((p) => p.outcome === 'created').map((p) => p.row);
    const updated = planned.filter((p) => p.outcome === 'updated').map((p) => p.row);
    await trx.contacts.insert(...created);
    for (const row of updated)
      await trx.contacts.update(row.id, { name: row.name, email: row.email, updated_at: row.updated_at });
    await record(
      recorder,
      ...created.map((row) => contactRecord('created', row, contactData(row))),
      ...updated.map((row) => contactRecord('updated', row, { name: row.name })),
    );
  });
  const count = (outcome: PlannedContact['outcome']) => planned.filter((p) => p.outcome === outcome).length;
  return { created: count('created'), updated: count('updated'), skipped: count('skipped') };
}
