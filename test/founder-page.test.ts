import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { revokeLinks } from '../services/founder-links.ts';
import type { LoopContext } from '../services/information-common.ts';
import { closeRequest } from '../services/information-requests.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { addContact, contextOf, linkFor, quarterRequest, sentRequest } from './helpers/information.ts';
import { startTestServer, TestClock } from './helpers/server.ts';

const PDF = Buffer.from('%PDF-1.4 board deck for the quarter');

/** A browser's visit: the page, the cookie it was given and the form's CSRF token. */
interface Visit {
  status: number;
  headers: Headers;
  text: string;
  cookie: string;
  csrf: string;
}

async function visit(base: string, token: string, cookie = ''): Promise<Visit> {
  const res = await fetch(`${base}/respond/${token}`, { headers: cookie ? { cookie } : {} });
  const text = await res.text();
  const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!);
  return {
    status: res.status,
    headers: res.headers,
    text,
    cookie: set[0] ?? cookie,
    csrf: /name="csrf_token" value="([^"]+)"/.exec(text)?.[1] ?? '',
  };
}

async function post(base: string, token: string, form: FormData, cookie: string) {
  const res = await fetch(`${base}/respond/${token}`, { method: 'POST', body: form, headers: { cookie } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function formOf(fields: Record<string, string>, files: Record<string, [Buffer, string]> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const [k, [bytes, name]] of Object.entries(files))
    form.append(k, new Blob([new Uint8Array(bytes)]), name);
  return form;
}

for (const dialect of dialects) {
  describe(`the founder page over HTTP (${dialect.name}) @db`, function () {
    this.timeout(60000);
    let t: TestDb;
    let fx: Fixture;
    let ctx: LoopContext;
    let server: RunningServer;
    let base: string;
    const clock = new TestClock(new Date('2026-01-05T12:00:00.000Z'));
    let reports: Map<string, string>;
    const contacts = new Map<string, string>();
    /** The report's item ids: revenue (required), cash in bank (optional), the board deck (required). */
    const itemsOf = async (reportId: string) => {
      const metrics = await fx.repos.informationWrites.reportMetrics(reportId);
      const documents = await fx.repos.informationWrites.reportDocuments(reportId);
      return {
        revenue: metrics.find((m) => m.name === 'revenue')!.id,
        cash: metrics.find((m) => m.name === 'cash_in_bank')!.id,
        deck: documents[0]!.id,
      };
    };
    const statusOf = async (reportId: string) =>
      (await t.db('information_reports').where('id', reportId).first()).status as string;
    const tokenFor = async (company: 'acme' | 'beta' | 'gamma', expiresAt?: string) =>
      (await linkFor(ctx, reports.get(fx.companies[company].id)!, contacts.get(company)!, expiresAt)).token;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      ctx = await contextOf(fx.repos, clock, fx.editor.user.email);
      for (const c of ['acme', 'beta', 'gamma'] as const)
        contacts.set(
          c,
          (await addContact(ctx, fx.companies[c].id, `Founder ${c}`, `${c}@founders.example`)).id,
        );
      const ids = [fx.companies.acme.id, fx.companies.beta.id, fx.companies.gamma.id];
      reports = (await sentRequest(ctx, quarterRequest(ids))).reportOf;
      server = await startTestServer(t.db, { clock, env: { FOUNDER_PAGE_PER_MINUTE: '1000' } });
      base = server.url;
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    it('shows the report with headers that keep the link private: no cache, no framing, no referrer', async () => {
      const page = await visit(base, await tokenFor('acme'));
      expect(page.status).to.equal(200);
      expect(page.headers.get('cache-control')).to.equal('no-store');
      expect(page.headers.get('x-frame-options')).to.equal('DENY');
      expect(page.headers.get('referrer-policy')).to.equal('no-referrer');
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).to.include("frame-ancestors 'none'").and.include("default-src 'none'");
      expect(page.cookie).to.match(/^pds_founder_csrf=/);
      expect(page.text).to.include('Alpha Partners').and.include('Acme').and.include('2025-Q4');
      expect(page.text).to.include('2026-01-31').and.include('<meta name="viewport"');
      expect(page.text).to.match(/<legend>Cash in bank <span class="optional">\(optional\)<\/span>/i);
      expect(page.text).to.match(/<select id="metric-[A-Za-z0-9]+-currency"[^>]*>/);
      expect(page.text).to.match(/<option value="USD" selected>USD<\/option>/);
      expect(page.text).not.to.match(/<script|https?:\/\/(?!127\.0\.0\.1)/);
    });

    it('refuses a tampered, expired, revoked, closed or other report link with a page that says which', async () => {
      const good = await tokenFor('acme');
      const tampered = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
      const expired = await tokenFor('acme', '2026-01-01T00:00:00.000Z');
      const revoked = await linkFor(ctx, reports.get(fx.companies.acme.id)!, contacts.get('acme')!);
      await revokeLinks(ctx, reports.get(fx.companies.acme.id)!, { linkId: revoked.id });
      const other = await sentRequest(ctx, quarterRequest([fx.companies.acme.id], { name: 'Closed one' }));
      const closedLink = await linkFor(ctx, other.reportOf.get(fx.companies.acme.id)!, contacts.get('acme')!);
      await closeRequest(ctx, other.id);
      const cases: [string, number, RegExp][] = [
        [tampered, 404, /does not work/],
        ['not-a-token', 404, /does not work/],
        [expired, 410, /expired/],
        [revoked.token, 410, /withdrawn/],
        [closedLink.token, 410, /closed/],
      ];
      for (const [token, status, text] of cases) {
        const page = await visit(base, token);
        expect(page.status, String(text)).to.equal(status);
        expect(page.text).to.match(text);
        expect(page.text).not.to.include('Acme');
        expect(page.headers.get('cache-control')).to.equal('no-store');
      }
      // A form posted with the id of another report than its link's.
      const page = await visit(base, good);
      const form = formOf({
        csrf_token: page.csrf,
        report_id: reports.get(fx.companies.beta.id)!,
        action: 'draft',
      });
      const answer = await post(base, good, form, page.cookie);
      expect(answer.status).to.equal(404);
      expect(answer.text).to.include('another report').and.not.include('Beta');
    });

    it('refuses a post without the CSRF token, with a wrong one or without its cookie (403), saving nothing', async () => {
      const token = await tokenFor('gamma');
      const report = reports.get(fx.companies.gamma.id)!;
      const items = await itemsOf(report);
      const page = await visit(base, token);
      const other = await visit(base, await tokenFor('acme'));
      const answers = { [`metric.${items.revenue}.value`]: '100', action: 'submit' };
      const attempts: [Record<string, string>, string][] = [
        [answers, page.cookie],
        [{ ...answers, csrf_token: 'x'.repeat(43) }, page.cookie],
        [{ ...answers, csrf_token: page.csrf }, ''],
        [{ ...answers, csrf_token: page.csrf }, 'pds_founder_csrf=' + 'y'.repeat(43)],
        // The token of another link, with its own cookie: good for that link only.
        [{ ...answers, csrf_token: other.csrf }, other.cookie],
      ];
      for (const [fields, cookie] of attempts) {
        const answer = await post(base, token, formOf(fields), cookie);
        expect(answer.status).to.equal(403);
      }
      expect(await statusOf(report)).to.equal('not-started');
      const kept = await fx.repos.informationWrites.reportMetrics(report);
      expect(kept.every((m) => m.value === null)).to.equal(true);
    });

    it('answers a bad value with 422, every typed value kept and each message tied to its field', async () => {
      const token = await tokenFor('gamma');
      const report = reports.get(fx.companies.gamma.id)!;
      const items = await itemsOf(report);
      const page = await visit(base, token);
      const form = formOf(
        {
          csrf_token: page.csrf,
          report_id: report,
          [`metric.${items.revenue}.value`]: 'about a million',
          [`metric.${items.revenue}.currency`]: 'EUR',
          [`metric.${items.cash}.value`]: '2500000.75',
          action: 'submit',
        },
        { [`document.${items.deck}`]: [Buffer.from('plain text, not a PDF'), 'deck.pdf'] },
      );
      const answer = await post(base, token, form, page.cookie);
      expect(answer.status).to.equal(422);
      const revenueId = `metric-${items.revenue}-value`;
      expect(answer.text).to.include(`value="about a million"`).and.include('value="2500000.75"');
      expect(answer.text).to.match(/<option value="EUR" selected>EUR<\/option>/);
      expect(answer.text).to.match(
        new RegExp(
          `id="${revenueId}"[^>]*aria-invalid="true"[^>]*aria-describedby="${revenueId}-hint ${revenueId}-error"`,
        ),
      );
      expect(answer.text).to.match(new RegExp(`<p class="error" id="${revenueId}-error">Error: [^<]+</p>`));
      expect(answer.text).to.match(new RegExp(`id="document-${items.deck}"[^>]*aria-invalid="true"`));
      expect(answer.text).to.include(`href="#${revenueId}"`).and.include(`href="#document-${items.deck}"`);
      expect(await statusOf(report)).to.equal('not-started');
      expect(
        await t.db('documents').where('company_id', fx.companies.gamma.id).count({ n: '*' }).first(),
      ).to.deep.equal({ n: dialect.name === 'postgres' ? '0' : 0 });
    });

    it('refuses a file of a format not accepted (422) beside its upload, keeping the figures typed', async () => {
      const token = await tokenFor('gamma');
      const report = reports.get(fx.companies.gamma.id)!;
      const items = await itemsOf(report);
      const page = await visit(base, token);
      const form = formOf(
        {
          csrf_token: page.csrf,
          report_id: report,
          [`metric.${items.revenue}.value`]: '700000',
          action: 'submit',
        },
        { [`document.${items.deck}`]: [Buffer.from('MZ not a document'), 'deck.exe'] },
      );
      const answer = await post(base, token, form, page.cookie);
      expect(answer.status).to.equal(422);
      expect(answer.text).to.include('value="700000"');
      expect(answer.text).to.match(
        new RegExp(
          `<p class="error" id="document-${items.deck}-error">Error: a \\.?exe file is not accepted`,
        ),
      );
      expect(await statusOf(report)).to.equal('not-started');
    });

    it('saves a draft (in-progress), then submits it (completed), and a second submission adds nothing', async () => {
      const token = await tokenFor('acme');
      const report = reports.get(fx.companies.acme.id)!;
      const items = await itemsOf(report);
      const page = await visit(base, token);
      const values = {
        csrf_token: page.csrf,
        report_id: report,
        [`metric.${items.revenue}.value`]: '1250000.50',
      };
      const draft = await post(base, token, formOf({ ...values, action: 'draft' }), page.cookie);
      expect(draft.status).to.equal(200);
      expect(draft.text).to.include('Draft saved').and.include('value="1250000.50"');
      expect(await statusOf(report)).to.equal('in-progress');
      const files = { [`document.${items.deck}`]: [PDF, 'deck.pdf'] as [Buffer, string] };
      const submitted = await post(base, token, formOf({ ...values, action: 'submit' }, files), page.cookie);
      expect(submitted.status).to.equal(200);
      expect(submitted.text).to.include('the report was submitted').and.include('completed');
      expect(submitted.text).to.include('A confirmation was sent to acme@founders.example');
      expect(await statusOf(report)).to.equal('completed');
      const data = () =>
        t.db('metric_data').where('company_id', fx.companies.acme.id).whereNull('deleted_at');
      expect((await data()).map((d) => [d.date, d.value])).to.deep.equal([['2025-12-31', '1250000.50']]);
      const again = await post(base, token, formOf({ ...values, action: 'submit' }, files), page.cookie);
      expect(again.status).to.equal(200);
      expect(again.text).to.include('submitted before with the same answers: nothing changed');
      expect((await data()).length).to.equal(1);
      expect((await t.db('documents').where('company_id', fx.companies.acme.id)).length).to.equal(1);
    });

    it('marks a submission with a required item missing partially-complete', async () => {
      const token = await tokenFor('beta');
      const report = reports.get(fx.companies.beta.id)!;
      const items = await itemsOf(report);
      const page = await visit(base, token);
      const form = formOf({
        csrf_token: page.csrf,
        report_id: report,
        [`metric.${items.revenue}.value`]: '900000',
        action: 'submit',
      });
      const answer = await post(base, token, form, page.cookie);
      expect(answer.status).to.equal(200);
      expect(answer.text).to.include('partially-complete').and.include('still missing');
      expect(await statusOf(report)).to.equal('partially-complete');
    });

    it('answers 429 with Retry-After past FOUNDER_PAGE_PER_MINUTE for one link', async () => {
      const limited = await startTestServer(t.db, { clock, env: { FOUNDER_PAGE_PER_MINUTE: '3' } });
      try {
        const token = await tokenFor('acme');
        const statuses: number[] = [];
        let last: Visit | undefined;
        for (let i = 0; i < 4; i++) {
          last = await visit(limited.url, token);
          statuses.push(last.status);
        }
        expect(statuses).to.deep.equal([200, 200, 200, 429]);
        expect(Number(last!.headers.get('retry-after'))).to.be.greaterThan(0);
        expect(last!.text).to.include('Too many requests');
      } finally {
        await limited.close();
      }
    });
  });
}
