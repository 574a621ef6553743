import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { parseWaiting } from './helpers/parse.ts';
import { api, startTestServer } from './helpers/server.ts';
import { type WriteCell, writeXlsx } from './helpers/workbooks.ts';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const LABELS = [
  'Revenue',
  'Cost of sales',
  'Gross profit',
  'Total operating expenses',
  'EBITDA',
  'Net income',
  'Cash at bank',
  'Headcount',
];

/** One P&L tab: `labels` rows across `months` months from January 2024, each figure `base` plus its place. */
function accounts(labels: number, months: number, base: number): Buffer {
  const header: WriteCell[] = [
    '',
    ...Array.from(
      { length: months },
      (_, i) => `${2024 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`,
    ),
  ];
  const rows = LABELS.slice(0, labels).map((label, r): WriteCell[] => [
    label,
    ...Array.from({ length: months }, (_, m) => base + r * 100 + m),
  ]);
  return writeXlsx([{ name: 'P&L', rows: [['Acme — P&L'], [], header, ...rows] }]);
}

/** The table an INSERT, UPDATE or DELETE writes; undefined for a read. */
function writtenTable(sql: string): string | undefined {
  if (/^\s*select\b/i.test(sql)) return undefined;
  return /\b(?:insert\s+into|update|delete\s+from)\s+["`]?(\w+)["`]?\s/i.exec(sql)?.[1];
}

for (const dialect of dialects) {
  describe(`confirming a document of many proposals (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    /** Uploads a workbook over REST and runs the parser over it; the document's id. */
    async function uploaded(content: Buffer, name: string, companyId: string): Promise<string> {
      const form = new FormData();
      form.append('company_id', companyId);
      form.append('file', new Blob([new Uint8Array(content)], { type: XLSX_TYPE }), name);
      const res = await api(server.url, '/v1/documents/', {
        token: fx.admin.pat,
        method: 'POST',
        body: form,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      await parseWaiting(t.db);
      return (res.body as { document_id: string }).document_id;
    }

    /** Confirms every mapped proposal of a document; the statements that wrote, counted by table. */
    async function confirmAll(id: string, onConflict: string): Promise<Record<string, number>> {
      const writes: Record<string, number> = {};
      const count = (q: { sql: string }) => {
        const table = writtenTable(q.sql);
        if (table) writes[table] = (writes[table] ?? 0) + 1;
      };
      t.db.on('query', count);
      try {
        const res = await api(server.url, `/v1/documents/${id}/proposals/confirm/`, {
          token: fx.admin.pat,
          method: 'POST',
          body: { on_conflict: onConflict },
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      } finally {
        t.db.off('query', count);
      }
      return writes;
    }

    /**
     * Uploads `labels` × `months` figures, confirms them, then a second file of other values over them
     * (overwrite); checks every proposal is settled and every point names its own cell of the second
     * file; the second confirmation's writing statements by table.
     */
    async function confirmedTwice(companyId: string, labels: number, months: number) {
      const first = await uploaded(accounts(labels, months, 1000), `first-${labels}.xlsx`, companyId);
      await confirmAll(first, 'error');
      const name = `second-${labels}.xlsx`;
      const second = await uploaded(accounts(labels, months, 5000), name, companyId);
      const writes = await confirmAll(second, 'overwrite');

      const proposals = (await t
        .db('extraction_proposals')
        .where({ document_id: second })
        .whereNotNull('category_id')
        .select('category_id', 'date', 'cell', 'value', 'status')) as Record<string, string>[];
      expect(proposals).to.have.length(labels * months);
      expect(proposals.filter((p) => p.status !== 'confirmed')).to.deep.equal([]);
      const points = (await t
        .db('metric_data')
        .where({ company_id: companyId })
        .whereNull('deleted_at')
        .select('category_id', 'date', 'value', 'detailed_source')) as Record<string, string>[];
      expect(points).to.have.length(labels * months);
      const byKey = new Map(points.map((p) => [`${p.category_id} ${p.date}`, p]));
      for (const p of proposals) {
        const point = byKey.get(`${p.category_id} ${p.date}`);
        expect(point, `${p.cell}`).to.deep.include({
          detailed_source: `${name}, P&L!${p.cell}`,
          value: p.value,
        });
      }
      return writes;
    }

    it('settles every proposal and names each point’s own cell, in as many statements for 192 figures as for 6', async () => {
      const few = await confirmedTwice(fx.companies.beta.id, 2, 3);
      const many = await confirmedTwice(fx.companies.acme.id, LABELS.length, 24);
      expect(few.extraction_proposals).to.equal(1);
      expect(many).to.deep.equal(few);
    });
  });
}
