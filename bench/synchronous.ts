// The cost of SQLite's synchronous=FULL against NORMAL: sequential small write transactions (each
// BEGIN IMMEDIATE, one insert, one update, COMMIT), as an API write does, on a file database.
// Run with `npx tsx bench/synchronous.ts [transactions]`; prints a Markdown table.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type SqliteSynchronous } from '../db/knex.ts';

async function writesPerSecond(synchronous: SqliteSynchronous, count: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'pds-sync-'));
  const db = openDb(`sqlite:${join(dir, 'bench.db')}`, { sqliteSynchronous: synchronous });
  try {
    await db.schema.createTable('t', (t) => {
      t.increments('id');
      t.string('value');
      t.integer('n');
    });
    await db('t').insert({ value: 'seed', n: 0 });
    const started = process.hrtime.bigint();
    for (let i = 0; i < count; i++) {
      await db.transaction(async (trx) => {
        await trx('t').insert({ value: `v${i}`, n: i });
        await trx('t').where({ id: 1 }).update({ n: i });
      });
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return count / seconds;
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

const count = Number(process.argv[2] ?? 2000);
const full = await writesPerSecond('FULL', count);
const normal = await writesPerSecond('NORMAL', count);
console.log(`| synchronous | write transactions/s (${count}, sequential) |\n|---|---:|`);
console.log(`| FULL (default) | ${full.toFixed(0)} |\n| NORMAL | ${normal.toFixed(0)} |`);
console.log(`\nFULL costs ${((1 - full / normal) * 100).toFixed(0)} % of NORMAL's write rate.`);
