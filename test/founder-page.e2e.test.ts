import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import type { RunningServer } from '../server/http.ts';
import { hasChromium, launchChromium } from './helpers/browser.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { waitFor } from './helpers/processes.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';
import { startSmtp, type TestSmtp } from './helpers/smtp.ts';

// The whole loop as a firm and a founder meet it: the firm asks over REST, the mail arrives by SMTP,
// the founder answers in a browser, and the figures reach the metrics, the feed and a webhook.

/** A loopback HTTP receiver that answers 204 and keeps every request. */
async function receiver() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const PDF = Buffer.from('%PDF-1.4\n% the board deck of the quarter\n');

for (const dialect of dialects) {
  (hasChromium ? describe : describe.skip)(
    `a founder answers a request in the browser (${dialect.name}) @db`,
    function () {
      this.timeout(120_000);
      let t: TestDb;
      let fx: Fixture;
      let smtp: TestSmtp;
      let rx: Awaited<ReturnType<typeof receiver>>;
      let server: RunningServer;
      let browser: Browser;
      let link: string;
      let requestId: string;
      const clock = new TestClock(new Date('2026-01-05T12:00:00.000Z'));
      const call = async (method: string, path: string, body?: unknown, status = 200) => {
        const res = await api(server.url, path, { token: fx.admin.rest, method, body });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(status);
        return res.body;
      };

      before(async () => {
        t = await dialect.open();
        fx = await buildFixture(t.db);
        smtp = await startSmtp();
        rx = await receiver();
        server = await startTestServer(t.db, {
          clock,
          env: {
            SMTP_URL: smtp.url,
            MAIL_DELIVERY: 'on',
            MAIL_POLL_INTERVAL_SECONDS: '0.05',
            WEBHOOK_DELIVERY: 'on',
            WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
            WEBHOOK_POLL_INTERVAL_SECONDS: '0.05',
            WEBHOOK_RETRY_BASE_SECONDS: '0.01',
          },
        });
        browser = await launchChromium();
        const acme = fx.companies.acme.id;
        await call(
          'POST',
          '/v1/webhooks/',
          { url: rx.url, description: 'reports', company_ids: [acme] },
          201,
        );
        await call(
          'POST',
          `/v1/companies/${acme}/contacts/`,
          { name: 'Ada Founder', email: 'ada@acme.example' },
          201,
        );
        const draft = await call(
          'POST',
          '/v1/information-requests/',
          {
            name: 'Q4 2025 update',
            period: '2025-Q4',
            period_start_date: '2025-10-01',
            period_end_date: '2025-12-31',
            due_date: '2026-01-31',
            company_ids: [acme],
            metrics: [{ category: 'revenue' }, { category: 'cash_in_bank', optional: true }],
            documents: [{ name: 'Board deck' }],
          },
          201,
        );
        requestId = draft.id;
        await call('POST', `/v1/information-requests/${requestId}/send/`);
        await waitFor('the request mail', () => (smtp.received.length > 0 ? true : undefined));
        const token = /\/respond\/(frl_[\w-]+)/.exec(smtp.received[0]!.parsed.text ?? '')![1]!;
        link = `${server.url}/respond/${token}`;
      });
      after(async () => {
        await browser?.close();
        await server?.close();
        await smtp?.close();
        await rx?.close();
        await t?.drop();
      });

      it('fits a 375 px screen without sideways scrolling', async () => {
        const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
        try {
          await page.goto(link);
          await expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal(
            'Q4 2025 update',
          );
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          expect(width).to.be.at.most(375);
        } finally {
          await page.close();
        }
      });

      it('ties a refused value to its field, keeps what was typed, then takes the corrected form by keyboard', async () => {
        const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
        try {
          await page.goto(link);
          await page.getByLabel(/^Revenue \(/).fill('1.2 million');
          await page.getByLabel(/^Currency for Revenue/).selectOption('EUR');
          await page.getByLabel(/^Cash in bank \(/).fill('2500000.25');
          await page.getByRole('button', { name: 'Submit' }).press('Enter');
          await page.waitForSelector('#error-summary');
          const revenue = page.getByLabel(/^Revenue \(/);
          expect(await revenue.getAttribute('aria-invalid')).to.equal('true');
          const described = (await revenue.getAttribute('aria-describedby'))!.split(' ');
          const texts = await Promise.all(described.map((id) => page.locator(`#${id}`).textContent()));
          expect(texts.some((text) => /Error:/.test(text ?? ''))).to.equal(true);
          expect(await revenue.inputValue()).to.equal('1.2 million');
          expect(await page.getByLabel(/^Cash in bank \(/).inputValue()).to.equal('2500000.25');
          expect(await page.getByLabel(/^Currency for Revenue/).inputValue()).to.equal('EUR');

          await revenue.fill('1200000.50');
          await page.getByLabel(/^File for Board deck/).setInputFiles({
            name: 'deck.pdf',
            mimeType: 'application/pdf',
            buffer: PDF,
          });
          await page.getByRole('button', { name: 'Submit' }).focus();
          await page.keyboard.press('Enter');
          await page.waitForSelector('text=the report was submitted');
          expect(await page.textContent('body'))
            .to.include('completed')
            .and.include('ada@acme.example');
        } finally {
          await page.close();
        }
      });

      it('lands the answers: the report, the counters, the metrics, the feed and the webhook all show them', async () => {
        const acme = fx.companies.acme.id;
        const reports = (await call('GET', '/v1/information-reports/')).results as {
          id: string;
          company_id: string;
          status: string;
          metrics: { name: string; status: string }[];
          documents: { status: string }[];
        }[];
        const summary = reports.find((r) => r.company_id === acme)!;
        const report = await call('GET', `/v1/information-reports/${summary.id}/`);
        expect(report.status).to.equal('completed');
        expect(report.submitted_at).to.be.a('string');
        expect(report.metrics.map((m: { status: string }) => m.status)).to.deep.equal([
          'completed',
          'completed',
        ]);
        expect(report.documents.map((d: { status: string }) => d.status)).to.deep.equal(['completed']);

        const request = await call('GET', `/v1/information-requests/${requestId}/`);
        expect(request).to.deep.include({ completed_count: 1, in_progress_count: 0, not_started_count: 0 });

        const metrics = (await call('GET', `/v1/metrics/?company_id=${acme}&page_size=100`)).results as {
          category: string;
          date: string;
          value: string;
          currency: string | null;
          detailed_source: string;
        }[];
        const revenue = metrics.find((m) => m.category === 'revenue')!;
        expect(revenue).to.deep.include({ date: '2025-12-31', value: '1200000.50', currency: 'EUR' });
        expect(revenue.detailed_source).to.include(`information report ${summary.id}`);
        const cash = metrics.find((m) => m.category === 'cash_in_bank')!;
        expect(cash).to.deep.include({ date: '2025-12-31', value: '2500000.25' });

        const events = (await call('GET', '/v1/events/?types=information_report.submitted&page_size=100'))
          .results as { type: string; data: { id: string; status: string } }[];
        expect(events.map((e) => [e.data.id, e.data.status])).to.deep.equal([[summary.id, 'completed']]);
        const created = (await call('GET', '/v1/events/?types=metric.created&page_size=100'))
          .results as unknown[];
        expect(created.length).to.be.at.least(2);

        // Signed at the test clock's time, which the library's five-minute window would call stale.
        const submitted = await waitFor('the submitted webhook', () =>
          rx.received
            .filter((r) => typeof r.headers['webhook-signature'] === 'string')
            .map(
              (r) => JSON.parse(r.body) as { type: string; data: { data: { id: string; status: string } } },
            )
            .find((p) => p.type === 'information_report.submitted'),
        );
        expect(submitted.data.data).to.deep.include({ id: summary.id, status: 'completed' });
        await waitFor('the confirmation mail', () =>
          smtp.received.find((m) => /submitted|received|thank/i.test(m.parsed.subject ?? ''))
            ? true
            : undefined,
        );
      });
    },
  );
}
