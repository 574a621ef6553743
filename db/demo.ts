import type { Knex } from 'knex';

export type DemoKind = 'firm' | 'user' | 'application' | 'token';

/** The table behind each kind of demo credential. */
const TABLES: Record<DemoKind, string> = {
  firm: 'firms',
  user: 'users',
  application: 'oauth_applications',
  token: 'access_tokens',
};

export interface DemoMark {
  kind: DemoKind;
  id: string;
  label: string;
}

/** Marks rows as demo data; called by the seed in its own transaction. */
export async function markDemo(db: Knex, marks: DemoMark[]): Promise<void> {
  for (let i = 0; i < marks.length; i += 200) await db('demo_marks').insert(marks.slice(i, i + 200));
}

/** The demo-marked rows still present, firms first, each with its label (slug, e-mail, client id). */
export async function remainingDemoData(db: Knex): Promise<DemoMark[]> {
  const marks = (await db('demo_marks').select('kind', 'id', 'label')) as DemoMark[];
  const present: DemoMark[] = [];
  for (const kind of Object.keys(TABLES) as DemoKind[]) {
    const ids = marks.filter((m) => m.kind === kind).map((m) => m.id);
    if (ids.length === 0) continue;
    const found = new Set(
      ((await db(TABLES[kind]).whereIn('id', ids).select('id')) as { id: string }[]).map((r) => r.id),
    );
    present.push(
      ...marks
        .filter((m) => m.kind === kind && found.has(m.id))
        .sort((a, b) => a.label.localeCompare(b.label)),
    );
  }
  return present;
}

/**
 * Removes all demo data: every seeded firm with everything it owns, and any seeded user, application
 * or token left elsewhere. One transaction: all of it goes, or nothing does.
 */
export async function removeDemoData(db: Knex): Promise<Record<DemoKind, number>> {
  return db.transaction(async (trx) => {
    const removed: Record<DemoKind, number> = { firm: 0, user: 0, application: 0, token: 0 };
    // Firms first: their users, applications, tokens and data go with them by cascade.
    for (const kind of ['firm', 'user', 'application', 'token'] as DemoKind[]) {
      const ids = trx('demo_marks').where({ kind }).select('id');
      removed[kind] = await trx(TABLES[kind]).whereIn('id', ids).delete();
    }
    await trx('demo_marks').delete();
    return removed;
  });
}
