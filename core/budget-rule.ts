// Which of a company's budgets counts where several cover a period: one order for every reader
// (get_budget_variance, its ranking, the screen's budget columns).

export interface RankedBudget {
  id: string;
  date: string;
  created_at: string;
}

/** Code-point order: the same on SQLite and on PostgreSQL under any locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Budgets in the order the rule ranks them: the latest date, then the latest created, then the lower id. */
export function byBudgetRule(a: RankedBudget, b: RankedBudget): number {
  return compareText(b.date, a.date) || compareText(b.created_at, a.created_at) || compareText(a.id, b.id);
}

/** The budget that counts among these, or undefined when there is none. */
export function budgetThatCounts<B extends RankedBudget>(budgets: readonly B[]): B | undefined {
  return [...budgets].sort(byBudgetRule)[0];
}
