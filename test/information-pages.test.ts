import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from '../server/http.ts';
import { verifyFounderLink } from '../services/founder-links.ts';
import { hasChromium, launchChromium } from './helpers/browser.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, makeUser } from './helpers/fixture.ts';
import { csrfOf, hiddenValue, WebClient } from './helpers/oauth.ts';
import { api, startTestServer } from './helpers/server.ts';

const REQUESTS = '/account/information-requests';

async function signIn(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/login?next=${encodeURIComponent(REQUESTS)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('fixture-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`**${REQUESTS}`);
}

async function addContact(page: Page, company: string, name: string, email: string): Promise<void> {
  await page.getByRole('link', { name: 'Contacts' }).click();
  await page.getByLabel('Company').selectOption({ label: company });
  await page.getByRole('button', { name: 'Show' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Add the contact' }).click();
  await page.getByText('The contact is added.').waitFor();
  expect(await page.locator('ul.items').textContent()).to.include(email);
}

async function fillRequest(page: Page, dueDate: string): Promise<void> {
  await page.getByLabel('Name', { exact: true }).fill('Q3 2026 update');
  await page.getByLabel('Period', { exact: true }).fill('2026-Q3');
  await page.getByLabel('Period start').fill('2026-07-01');
  await page.getByLabel('Period end').fill('2026-09-30');
  await page.getByLabel('Due date').fill(dueDate);
  await page.getByLabel('Acme Analytics').check();
  await page.getByLabel('Beta Bio').check();
  await page.getByLabel('Metric 1').fill('revenue');
  await page.getByLabel('Time period').first().selectOption('quarter');
  await page.getByLabel('Document 1').fill('Board deck');
}

for (const dialect of dialects) {
  describe(`the information pages of the signed-in application (${dialect.name}) @db`, function () {
    this.timeout(90_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let browser: Browser | undefined;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
      if (hasChromium) browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.close();
      await t?.drop();
    });

    it('an admin adds contacts, creates a request for two companies, sends it, reads the held mail with its founder link, sends it from the outbox, reminds and closes', async function () {
      if (!browser) this.skip();
      const page = await (await browser.newContext()).newPage();
      await signIn(page, server.url, 'admin@alpha.test');
      await addContact(page, 'Acme Analytics', 'Ada Founder', 'ada@acme.test');
      await addContact(page, 'Beta Bio', 'Ben Founder', 'ben@beta.test');

      await page.getByRole('link', { name: 'Information requests' }).click();
      await page.getByRole('link', { name: 'New request' }).click();
      await fillRequest(page, '2026-12-31');
      await page.getByRole('button', { name: 'Create the draft' }).click();
      await page.getByText('The draft is saved.').waitFor();
      expect(await page.locator('main').textContent())
        .to.include('revenue (quarter)')
        .and.include('Board deck');

      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByText('The request is sent').waitFor();
      const reports = await page.locator('#reports-heading + .table-wrap').textContent();
      expect(reports).to.include('Acme Analytics').and.include('Beta Bio').and.include('not-started');
      expect(reports).to.include('0 completed, 2 missing');

      await fx.repos.mail.holdPending(new Date().toISOString());
      await page.getByRole('link', { name: 'Outbox' }).click();
      const outbox = await page.locator('ul.items').textContent();
      expect(outbox).to.include('ada@acme.test').and.include('ben@beta.test').and.include('held');
      const link = await page.locator('ul.items a[href*="/respond/"]').first().getAttribute('href');
      expect(link).to.match(/\/respond\/[\w-]+$/);
      const verified = await verifyFounderLink(
        { repos: fx.repos, clock: { now: () => new Date() } },
        link!.split('/respond/')[1]!,
      );
      expect(verified.company.name).to.be.oneOf(['Acme Analytics', 'Beta Bio']);

      await page.locator('ul.items li').first().getByRole('link').first().click();
      expect(await page.locator('pre.mail').textContent()).to.include('Q3 2026 update');
      await page.getByRole('button', { name: /^Send the message/ }).click();
      await page.getByText('The message is queued for sending.').waitFor();
      const statuses = (await fx.repos.mail.list({ firmId: fx.firmA.id, limit: 10 })).map((m) => m.status);
      expect(statuses.sort()).to.deep.equal(['held', 'pending']);

      await page.getByRole('link', { name: 'Information requests' }).click();
      await page.getByRole('link', { name: 'Q3 2026 update' }).click();
      await page.getByRole('button', { name: 'Remind those who have not answered' }).click();
      await page.getByText('Reminders are on their way').waitFor();
      expect(await page.locator('#reports-heading + .table-wrap time').count()).to.equal(2);
      const kinds = (await fx.repos.mail.list({ firmId: fx.firmA.id, limit: 10 })).map((m) => m.kind);
      expect(kinds.filter((k) => k === 'reminder')).to.have.length(2);

      await page.getByRole('button', { name: 'Close' }).click();
      await page.getByText('The request is closed').waitFor();
      expect(await page.locator('dl.facts').textContent()).to.include('closed');
      expect(await page.getByRole('button', { name: /Remind/ }).count()).to.equal(0);
    });

    it('keeps every typed value and shows a due date before the period next to its field', async function () {
      if (!browser) this.skip();
      const page = await (await browser.newContext()).newPage();
      await signIn(page, server.url, 'editor@alpha.test');
      await page.goto(`${server.url}${REQUESTS}/new`);
      await fillRequest(page, '2026-06-01');
      await page.getByRole('button', { name: 'Create the draft' }).click();
      const due = page.getByLabel('Due date');
      expect(await due.getAttribute('aria-invalid')).to.equal('true');
      const describedBy = (await due.getAttribute('aria-describedby'))!;
      expect(await page.locator(`#${describedBy}`).textContent()).to.equal(
        'must not be before period_start_date',
      );
      expect(await due.inputValue()).to.equal('2026-06-01');
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).to.equal('Q3 2026 update');
      expect(await page.getByLabel('Metric 1').inputValue()).to.equal('revenue');
      expect(await page.getByLabel('Time period').first().inputValue()).to.equal('quarter');
      expect(await page.getByLabel('Document 1').inputValue()).to.equal('Board deck');
      expect(await page.getByLabel('Acme Analytics').isChecked()).to.equal(true);
      expect(await page.getByLabel('Gamma Grid').isChecked()).to.equal(false);
    });

    it('shows a viewer the requests without any action, and refuses their POSTs', async () => {
      const created = await api(server.url, '/v1/information-requests/', {
        token: fx.admin.rest,
        method: 'POST',
        body: {
          name: 'Viewer check',
          period: '2026-Q3',
          period_start_date: '2026-07-01',
          period_end_date: '2026-09-30',
          due_date: '2026-12-31',
          company_ids: [fx.companies.gamma.id],
          documents: [{ name: 'Board deck' }],
        },
      });
      expect(created.status).to.equal(201);
      const viewer = new WebClient(server.url);
      await viewer.signIn('viewer@alpha.test');
      const list = await viewer.get(REQUESTS);
      expect(list.status).to.equal(200);
      expect(list.text).to.include('Viewer check').and.not.include('New request');
      const detail = await viewer.get(`${REQUESTS}/${created.body.id}`);
      expect(detail.text).to.include('Viewer check').and.include('Board deck');
      expect(detail.text).to.not.match(/<form method="post" action="\/account\/information-requests/);
      const contacts = await viewer.get('/account/contacts');
      expect(contacts.text).to.not.include('Add the contact');
      const csrf = csrfOf(detail.text);
      const send = await viewer.post(`${REQUESTS}/${created.body.id}/send`, { csrf_token: csrf });
      expect(send.status).to.equal(403);
      // Sent by an admin: Gamma has no contact, which the page says.
      const admin = new WebClient(server.url);
      await admin.signIn('admin@alpha.test');
      const adminPage = await admin.get(`${REQUESTS}/${created.body.id}`);
      const sent = await admin.post(`${REQUESTS}/${created.body.id}/send`, {
        csrf_token: csrfOf(adminPage.text),
      });
      expect(sent.status).to.equal(303);
      expect(sent.location).to.include('without=1');
      expect((await admin.get(sent.location!)).text).to.include(
        '1 company has no contact, so no mail went to them',
      );
      const create = await viewer.post(REQUESTS, { csrf_token: csrf, name: 'x' });
      expect(create.status).to.equal(403);
      const add = await viewer.post(`/account/contacts/${fx.companies.acme.id}/add`, {
        csrf_token: csrf,
        name: 'Eve',
        email: 'eve@acme.test',
      });
      expect(add.status).to.equal(403);
      expect((await viewer.get('/account/outbox')).status).to.equal(404);
      const after = await api(server.url, `/v1/information-requests/${created.body.id}/`, {
        token: fx.admin.rest,
      });
      expect(after.body.status).to.equal('sent');
    });

    it('refuses a POST without the CSRF token, changing nothing', async () => {
      const web = new WebClient(server.url);
      await web.signIn('admin@alpha.test');
      const before = (await api(server.url, '/v1/information-requests/', { token: fx.admin.rest })).body
        .count;
      const res = await web.post(REQUESTS, {
        name: 'Forged',
        period: '2026-Q3',
        period_start_date: '2026-07-01',
        period_end_date: '2026-09-30',
        due_date: '2026-12-31',
        'documents[0].name': 'Deck',
      });
      expect(res.status).to.equal(403);
      const contact = await web.post(`/account/contacts/${fx.companies.acme.id}/add`, {
        name: 'Forged',
        email: 'forged@acme.test',
      });
      expect(contact.status).to.equal(403);
      const now = (await api(server.url, '/v1/information-requests/', { token: fx.admin.rest })).body.count;
      expect(now).to.equal(before);
    });
    it('copies an earlier request into the form, then changes the draft, refusing an emptied name beside it', async () => {
      const earlier = await api(server.url, '/v1/information-requests/', {
        token: fx.admin.rest,
        method: 'POST',
        body: {
          name: 'Q2 2026 update',
          period: '2026-Q2',
          period_start_date: '2026-04-01',
          period_end_date: '2026-06-30',
          due_date: '2026-07-31',
          reminder_days: [-3, 0],
          company_ids: [fx.companies.acme.id, fx.companies.gamma.id],
          metrics: [{ category: 'cash_in_bank', optional: true }],
          documents: [{ name: 'Management accounts', description: 'P&L and balance sheet' }],
        },
      });
      expect(earlier.status).to.equal(201);
      const web = new WebClient(server.url);
      await web.signIn('editor@alpha.test');
      const form = await web.get(`${REQUESTS}/new?copy_from=${earlier.body.id}`);
      expect(form.status).to.equal(200);
      expect(hiddenValue(form.text, 'copy_from')).to.equal(earlier.body.id);
      expect(form.text).to.include(
        'name="metrics[0].category" type="text" list="metric-names" value="cash_in_bank"',
      );
      expect(form.text)
        .to.include('value="Management accounts"')
        .and.include('value="P&amp;L and balance sheet"');
      expect(form.text).to.include(`value="${fx.companies.gamma.id}" checked`);
      expect(form.text).to.include('value="-3, 0"');
      const fields = {
        csrf_token: csrfOf(form.text),
        copy_from: earlier.body.id,
        name: 'Q3 2026 copy',
        period: '2026-Q3',
        period_start_date: '2026-07-01',
        period_end_date: '2026-09-30',
        due_date: '2026-10-31',
        reminder_days: '-3, 0',
        company_ids: fx.companies.gamma.id,
        'metrics[0].category': 'cash_in_bank',
        'metrics[0].time_period': '',
        'metrics[0].optional': 'on',
        'metrics[1].category': '',
        'documents[0].name': 'Management accounts',
        'documents[0].description': 'P&L and balance sheet',
      };
      const created = await web.post(REQUESTS, fields);
      expect(created.status, created.text).to.equal(303);
      const id = /information-requests\/(\w+)\?notice=created/.exec(created.location!)![1]!;
      const stored = (await api(server.url, `/v1/information-requests/${id}/`, { token: fx.admin.rest }))
        .body;
      expect(stored).to.include({ name: 'Q3 2026 copy', copied_from: earlier.body.id, status: 'draft' });
      expect(stored.company_ids).to.deep.equal([fx.companies.gamma.id]);
      expect(stored.reminder_days).to.deep.equal([-3, 0]);
      expect(
        stored.requested_metrics.map((m: { name: string; optional: boolean }) => [m.name, m.optional]),
      ).to.deep.equal([['cash_in_bank', true]]);

      const edit = await web.get(`${REQUESTS}/${id}/edit`);
      expect(edit.text).to.include('value="Q3 2026 copy"');
      const changed = await web.post(`${REQUESTS}/${id}/edit`, {
        ...fields,
        name: 'Q3 2026 update',
        due_date: '2026-11-15',
      });
      expect(changed.status).to.equal(303);
      const after = (await api(server.url, `/v1/information-requests/${id}/`, { token: fx.admin.rest })).body;
      expect(after).to.include({ name: 'Q3 2026 update', due_date: '2026-11-15' });
      const emptied = await web.post(`${REQUESTS}/${id}/edit`, {
        ...fields,
        name: ' ',
        period: 'kept period',
      });
      expect(emptied.status).to.equal(400);
      expect(emptied.text).to.include('aria-invalid="true" aria-describedby="error-name"');
      expect(emptied.text).to.include('<p class="field-error" id="error-name">is required</p>');
      expect(emptied.text).to.include('value="kept period"');
      const unchanged = (await api(server.url, `/v1/information-requests/${id}/`, { token: fx.admin.rest }))
        .body;
      expect(unchanged.name).to.equal('Q3 2026 update');
    });

    it('shows a user limited to some companies only those, and refuses a contact for another', async () => {
      await makeUser(fx.repos, fx.firmA.id, 'acme-editor@alpha.test', 'editor', { all_companies: false }, [
        fx.companies.acme.id,
      ]);
      const web = new WebClient(server.url);
      await web.signIn('acme-editor@alpha.test');
      const contacts = await web.get('/account/contacts');
      expect(contacts.text).to.include('Acme Analytics').and.not.include('Beta Bio');
      const form = await web.get(`${REQUESTS}/new`);
      expect(form.text).to.include('Acme Analytics').and.not.include('Gamma Grid');
      expect(form.text).to.not.include('Outbox');
      const other = await web.get(`/account/contacts?company_id=${fx.companies.beta.id}`);
      expect(other.status).to.equal(404);
      const add = await web.post(`/account/contacts/${fx.companies.beta.id}/add`, {
        csrf_token: csrfOf(form.text),
        name: 'Eve',
        email: 'eve@beta.test',
      });
      expect(add.status).to.equal(404);
      const bad = await web.post(`/account/contacts/${fx.companies.acme.id}/add`, {
        csrf_token: csrfOf(form.text),
        name: 'Eve',
        email: 'not an address',
      });
      expect(bad.status).to.equal(400);
      expect(bad.text).to.include('aria-describedby="error-email"').and.include('value="not an address"');
    });
  });
}
