/**
 * Fair-value overrides, so fund returns look like a real portfolio's: a written-off company is marked
 * to 0 by every fund that held it on its end date, and every third active company is marked down to
 * 75 % of its last round price at the latest quarter end (a valuation the funds chose, not a round).
 * Exits need nothing here: buildCapTable already sells their shares with proceeds.
 */
import type { CapTable } from './demo-captable.ts';
import { type CompanyCtx, type FirmCtx, moneyJson } from './rows.ts';
import { DEMO_TODAY, instant, isQuarterEnd } from './values.ts';

/** Of an active company's last round price. */
const MARK_DOWN = 0.75;

export function addFairValueOverrides(firm: FirmCtx, company: CompanyCtx, cap: CapTable): void {
  const spec = company.spec;
  const fundOf = new Map(
    firm.rows
      .get('securities')
      .filter((s) => s.company_id === company.id)
      .map((s) => [s.id as string, s.fund_id as string]),
  );
  const add = (fundId: string, date: string, cents: number) =>
    firm.rows.add('fair_value_overrides', {
      id: firm.ids.next('fvo'),
      firm_id: firm.id,
      company_id: company.id,
      fund_id: fundId,
      date,
      ...flatten(moneyJson(firm, cents, spec.currency, date)),
      created_at: instant(date, 18),
    });
  const liveAt = (date: string) =>
    cap.positions.filter((p) => p.from <= date && (p.until === null || p.until > date));

  if (spec.status === 'written-off' && spec.endDate) {
    const funds = new Set(liveAt(spec.endDate).map((p) => fundOf.get(p.securityId)!));
    for (const fundId of [...funds].sort()) add(fundId, spec.endDate, 0);
    return;
  }
  const active = firm.companies.filter((c) => c.spec.status === 'active');
  if (spec.status !== 'active' || active.indexOf(company) % 3 !== 0) return;
  const date = company.model.books
    .map((b) => b.month)
    .filter((m) => isQuarterEnd(m.month) && m.end <= DEMO_TODAY)
    .map((m) => m.end)
    .pop();
  const price = cap.prices.filter((p) => date && p.date <= date).pop();
  if (!date || !price) return;
  const shares = new Map<string, number>();
  for (const p of liveAt(date)) {
    if (p.kind !== 'certificate') continue;
    const fundId = fundOf.get(p.securityId)!;
    shares.set(fundId, (shares.get(fundId) ?? 0) + p.shares);
  }
  for (const [fundId, n] of [...shares].sort(([a], [b]) => a.localeCompare(b))) {
    add(fundId, date, Math.round((n * price.priceE4 * MARK_DOWN) / 100));
  }
}

function flatten(money: {
  value: string;
  currency: string;
  fx_rate: string | null;
  is_custom_rate: boolean;
}) {
  return {
    fair_value_value: money.value,
    fair_value_currency: money.currency,
    fair_value_fx_rate: money.fx_rate,
    fair_value_is_custom_rate: money.is_custom_rate,
  };
}
