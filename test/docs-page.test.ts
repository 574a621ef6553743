import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { routes } from '../rest/routes.ts';
import type { RunningServer } from '../server/http.ts';
import { hasChromium, launchChromium } from './helpers/browser.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { startTestServer } from './helpers/server.ts';

(hasChromium ? describe : describe.skip)('the /docs API reference in a browser', function () {
  this.timeout(60000);
  let t: TestDb;
  let server: RunningServer;
  let browser: Browser;

  before(async () => {
    t = await sqliteTestDb();
    server = await startTestServer(t.db);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await t?.drop();
  });

  it('renders every route from assets this service serves', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock', { timeout: 30000 });
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method} ${path}`;
      }),
    );
    for (const route of routes) {
      expect(shown, `${route.method} ${route.path}`).to.include(
        `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
      );
    }
    expect(shown).to.include('POST /o/token/');
    expect(foreign).to.deep.equal([]);
    await page.close();
  });
});
