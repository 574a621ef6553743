// `portfolio import`: resolves a parsed bundle against one firm's data, reports every problem, and
// only when there is none writes everything in one transaction.
import type { Knex } from 'knex';
import { convertDecimal } from '../core/decimal.ts';
import type { Firm } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import type { FinancingRecord, NewFinancing, StoredMoney } from '../db/repos/cap-table.ts';
import { rateKey } from '../db/repos/fx-rates.ts';
import { createRepos, type Repos } from '../db/repos/index.ts';
import { datumKey, type NewDatum, type ValueChange } from '../db/repos/metric-writes.ts';
import { chunk } from '../db/repos/util.ts';
import { createBudget, updateBudget } from './budgets.ts';
import { capTableRecord } from './cap-table.ts';
import { type Recorder, record, SYSTEM_ACTOR } from './changes.ts';
import { changeCompany, insertCompany } from './companies.ts';
import { check } from './import-checks.ts';
import {
  type BudgetRow,
  type CompanyField,
  IMPORT_AUTHOR,
  type ImportCounts,
  type ImportData,
  type ImportMoney,
  type ImportOptions,
  ImportRejected,
  type Plan,
} from './import-types.ts';
import { MetricEventSummary } from './metric-events.ts';
import { addNotes } from './notes.ts';

export * from './import-types.ts';

/** Both sides compared as text; null and undefined alike. */
function same(a: unknown, b: unknown): boolean {
  return (a ?? null) === null ? (b ?? null) === null : String(a) === String(b ?? '');
}

/** Counts each outcome and reports progress as items are written. */
type Tally = (outcome: keyof ImportCounts, items?: number) => void;

/** Companies go through the companies service, as the API's writes do. */
async function writeCompanies(recorder: Recorder, companies: Plan['companies'], tally: Tally): Promise<void> {
  for (const { item, record } of companies) {
    const stored = record.stored;
    if (!stored) {
      await insertCompany(recorder, {
        ...item.fields,
        id: record.id,
        slug: item.slug,
        reporting_currency: record.reporting_currency,
      });
      tally('created');
      continue;
    }
    const changed = Object.entries(item.fields).filter(([k, v]) => !same(stored[k as CompanyField], v));
    if (changed.length === 0) {
      tally('skipped');
      continue;
    }
    await changeCompany(recorder, stored, Object.fromEntries(changed));
    tally('updated');
  }
}

/** Budgets go through the budgets service; one whose fields are all as stored is skipped. */
async function writeBudgets(recorder: Recorder, budgets: Plan['budgets'], tally: Tally): Promise<void> {
  for (const { item, id, companyId, existing } of budgets) {
    const fields = {
      date: item.date,
      ...(item.color !== undefined ? { color: item.color } : {}),
      ...(item.description !== undefined ? { description: item.description } : {}),
    };
    if (!existing) {
      await createBudget(recorder, { id, company_id: companyId, name: item.name, ...fields });
      tally('created');
    } else if (Object.entries(fields).some(([k, v]) => !same(existing[k as keyof BudgetRow], v))) {
      await updateBudget(recorder, existing, fields);
      tally('updated');
    } else tally('skipped');
  }
}

/** Metrics written per slice, so that progress moves while a large import writes. */
const METRIC_SLICE = 1000;

/**
 * Matches each metric to the live datum of the same key: none creates one, another value or
 * currency replaces it (kept in metric_history), the same value and currency skips it.
 */
async function writeMetrics(
  repos: Repos,
  recorder: Recorder,
  metrics: Plan['metrics'],
  tally: Tally,
): Promise<void> {
  const firm = { id: recorder.firmId };
  const now = recorder.at;
  const summary = new MetricEventSummary();
  const live = await repos.metricWrites.liveData(
    firm.id,
    metrics.map((m) => m.companyId),
    metrics.map((m) => m.category.id),
  );
  for (const slice of chunk(metrics, METRIC_SLICE)) {
    const inserts: NewDatum[] = [];
    const changes: ValueChange[] = [];
    for (const { item, companyId, category, budgetId } of slice) {
      const datum = {
        company_id: companyId,
        category_id: category.id,
        date: item.date,
        cadence: item.cadence,
        budget_id: budgetId,
      };
      const current = live.get(datumKey(datum));
      const { cadence, date, value, currency } = item;
      if (!current) {
        const id = newId();
        inserts.push({ ...datum, id, value, currency, detailed_source: 'import' });
        summary.add({
          type: 'metric.created',
          companyId,
          category,
          cadence,
          date,
          budgetId,
          id,
          value,
          currency,
        });
      } else if (current.value !== value || (current.currency ?? null) !== currency) {
        const id = current.id;
        summary.add({
          type: 'metric.updated',
          companyId,
          category,
          cadence,
          date,
          budgetId,
          id,
          value,
          currency,
        });
        changes.push({
          id: current.id,
          old_value: current.value,
          old_currency: current.currency,
          value: item.value,
          currency: item.currency,
        });
      }
    }
    await repos.metricWrites.insertData(firm.id, inserts, now);
    await repos.metricWrites.replaceValues(changes, IMPORT_AUTHOR, now);
    tally('created', inserts.length);
    tally('updated', changes.length);
    tally('skipped', slice.length - inserts.length - changes.length);
  }
  // One event per company, category, cadence and budget of the import, however many points it wrote.
  await record(recorder, ...summary.recorded());
}

/** Notes have no key of their own: the same author, company and text (and time, when given) is the same note. */
async function writeNotes(recorder: Recorder, notes: Plan['notes'], tally: Tally): Promise<void> {
  const { repos, firmId } = recorder;
  for (const { item, companyId, authorId } of notes) {
    const given = { company_id: companyId, author_id: authorId, note: item.note };
    if (await repos.notes.exists({ ...given, ...(item.created_at ? { created_at: item.created_at } : {}) })) {
      tally('skipped');
      continue;
    }
    await addNotes(recorder, [
      { ...given, id: newId(), firm_id: firmId, created_at: item.created_at ?? recorder.at },
    ]);
    tally('created');
  }
}

/** An amount as stored: a rate given by the user is custom, otherwise the firm's rate at `date`. */
async function storedMoney(
  repos: Repos,
  firm: Firm,
  money: ImportMoney | null,
  date: string,
): Promise<StoredMoney> {
  if (!money) return { value: null, currency: null, fx_rate: null, is_custom_rate: null };
  const custom = money.fx_rate !== null;
  let rate = money.fx_rate;
  if (!custom && money.currency) {
    rate =
      money.currency === firm.preferred_currency
        ? '1'
        : ((
            await repos.capTable.latestRates(firm.id, firm.preferred_currency, [
              { currency: money.currency, date },
            ])
          ).get(rateKey(money.currency, date)) ?? null);
  }
  return {
    value: money.value,
    currency: money.currency,
    fx_rate: rate,
    is_custom_rate: money.currency ? custom : null,
  };
}

async function financingToWrite(
  repos: Repos,
  firm: Firm,
  round: Plan['financings'][number],
  now: string,
): Promise<NewFinancing> {
  const { item } = round;
  const preMoney = await storedMoney(repos, firm, item.pre_money_valuation, item.closing_date);
  const roundSize = await storedMoney(repos, firm, item.round_size, item.closing_date);
  return {
    id: round.id,
    company_id: round.companyId,
    name: item.name,
    closing_date: item.closing_date,
    pre_money: preMoney,
    round_size: roundSize,
    round_size_converted_value:
      roundSize.value === null || roundSize.fx_rate === null
        ? null
        : convertDecimal(roundSize.value, roundSize.fx_rate),
    fully_diluted_shares: item.fully_diluted_shares,
    is_crypto: item.is_crypto,
    liquidation_multiple: item.liquidation_multiple,
    cap_multiple: item.cap_multiple,
    seniority_position: item.seniority_position,
    participation_type: item.participation_type,
    created_at: now,
    co_investors: item.co_investors.map((c) => ({ name: c.name, is_lead: c.is_lead })),
    pari_passu_ids: round.pariPassu,
  };
}

function sameMoney(a: StoredMoney, b: StoredMoney): boolean {
  return (
    same(a.value, b.value) &&
    same(a.currency, b.currency) &&
    same(a.fx_rate, b.fx_rate) &&
    same(a.is_custom_rate, b.is_custom_rate)
  );
}

/** Whether writing `next` would leave the stored round as it is. */
function sameFinancing(stored: FinancingRecord, next: NewFinancing): boolean {
  return (
    same(stored.name, next.name) &&
    same(stored.closing_date, next.closing_date) &&
    sameMoney(stored.pre_money, next.pre_money) &&
    sameMoney(stored.round_size, next.round_size) &&
    same(stored.round_size_converted_value, next.round_size_converted_value) &&
    same(stored.fully_diluted_shares, next.fully_diluted_shares) &&
    stored.is_crypto === next.is_crypto &&
    same(stored.liquidation_multiple, next.liquidation_multiple) &&
    same(stored.cap_multiple, next.cap_multiple) &&
    same(stored.seniority_position, next.seniority_position) &&
    same(stored.participation_type, next.participation_type) &&
    JSON.stringify(stored.co_investors) === JSON.stringify(next.co_investors) &&
    JSON.stringify(stored.pari_passu_rounds.map((r) => r.id)) === JSON.stringify(next.pari_passu_ids)
  );
}

/** New rounds are inserted before stored ones are rewritten: a rewritten round may link to a new one. */
async function writeFinancings(
  recorder: Recorder,
  firm: Firm,
  financings: Plan['financings'],
  tally: Tally,
): Promise<void> {
  const { repos, at: now } = recorder;
  const scope = { firmId: firm.id, companyIds: null };
  const stored = new Map<string, FinancingRecord>();
  for (const ids of chunk(
    financings.filter((f) => f.existing).map((f) => f.id),
    500,
  )) {
    for (const f of await repos.capTable.financingsById(scope, ids)) stored.set(f.id, f);
  }
  const inserts: NewFinancing[] = [];
  const replacements: NewFinancing[] = [];
  for (const round of financings) {
    const next = await financingToWrite(repos, firm, round, now);
    const current = stored.get(round.id);
    if (!current) inserts.push(next);
    else if (!sameFinancing(current, next)) replacements.push(next);
  }
  await repos.capTable.insertFinancings(firm.id, inserts);
  await repos.capTable.replaceFinancings(replacements);
  await record(
    recorder,
    ...inserts.map((f) => capTableRecord('financings', 'financing_round.created', f)),
    ...replacements.map((f) => capTableRecord('financings', 'financing_round.updated', f, 'update')),
  );
  tally('created', inserts.length);
  tally('updated', replacements.length);
  tally('skipped', financings.length - inserts.length - replacements.length);
}

async function write(
  trx: Knex.Transaction,
  firm: Firm,
  plan: Plan,
  options: ImportOptions,
): Promise<ImportCounts> {
  const repos = createRepos(trx);
  const counts: ImportCounts = { created: 0, updated: 0, skipped: 0 };
  const total =
    plan.companies.length +
    plan.budgets.length +
    plan.metrics.length +
    plan.notes.length +
    plan.financings.length;
  let done = 0;
  const tally: Tally = (outcome, items = 1) => {
    if (items === 0) return;
    counts[outcome] += items;
    done += items;
    options.onProgress?.(done, total);
  };
  // The importer writes as the service itself: its change-log rows and events name no user.
  const recorder: Recorder = { repos, firmId: firm.id, actor: SYSTEM_ACTOR, at: options.now };
  await writeCompanies(recorder, plan.companies, tally);
  await writeBudgets(recorder, plan.budgets, tally);
  await writeMetrics(repos, recorder, plan.metrics, tally);
  await writeNotes(recorder, plan.notes, tally);
  await writeFinancings(recorder, firm, plan.financings, tally);
  return counts;
}

/**
 * Checks every item against the firm's data (companies, categories, budgets, users, financings)
 * and, only when neither parsing nor these checks found a problem, writes everything in one
 * transaction. Metrics are matched on company, category, date, cadence and budget: a match with
 * the same value and currency is skipped, another value or currency updates it, no match creates one.
 */
export async function importData(
  db: Knex,
  firm: Firm,
  data: ImportData,
  options: ImportOptions,
): Promise<ImportCounts> {
  const problems = [...(options.problems ?? [])];
  const plan = await check(db, firm, data, problems, options.now);
  if (problems.length > 0) {
    throw new ImportRejected([...problems].sort((a, b) => a.order - b.order));
  }
  return db.transaction((trx) => write(trx, firm, plan, options));
}
