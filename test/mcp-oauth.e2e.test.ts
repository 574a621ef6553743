import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  auth,
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  type OAuthClientProvider,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { expect } from 'chai';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture } from './helpers/fixture.ts';
import { startTestServer } from './helpers/server.ts';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = 'test-output/screenshots';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** What the browser brought back to the client's loopback redirect URI. */
interface Callback {
  code: string | null;
  state: string | null;
  iss: string | null;
  error: string | null;
}

/** An MCP client's OAuth state, in memory; opening the authorization URL is left to the test. */
class MemoryOAuthProvider implements OAuthClientProvider {
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier = '';
  authorizationUrl?: URL;

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'E2E Test Client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return 'e2e-state';
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** The client's side of the redirect: a loopback server that also serves its metadata document. */
async function startClientSite() {
  let resolve: ((cb: Callback) => void) | undefined;
  const documents = new Map<string, unknown>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') {
      resolve?.({
        code: url.searchParams.get('code'),
        state: url.searchParams.get('state'),
        iss: url.searchParams.get('iss'),
        error: url.searchParams.get('error'),
      });
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<!doctype html><title>Done</title><p>Signed in; you can close this window.</p>');
      return;
    }
    const doc = documents.get(url.pathname);
    res.writeHead(doc ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(doc ?? {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    redirectUrl: `${origin}/callback`,
    documents,
    nextCallback: () => new Promise<Callback>((r) => (resolve = r)),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function shoot(page: Page, name: string, size: { width: number }): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}/${name}-${size.width}.png`, fullPage: true });
}

/** Fills the login form, then allows the client on the consent page, taking screenshots of both. */
async function signInAndAllow(page: Page, size: { width: number }) {
  await page.waitForURL(/\/login\?/);
  expect(await page.getAttribute('html', 'lang')).to.equal('en');
  expect(await page.locator('h1').count()).to.equal(1);
  await shoot(page, 'login', size);
  await page.getByLabel('Email').fill('admin@alpha.test');
  await page.getByLabel('Password').fill('fixture-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/authorize\?/);
  const heading = await page.getByRole('heading', { level: 1 }).textContent();
  expect(heading).to.include('E2E Test Client');
  expect(await page.locator('main').textContent()).to.include('Alpha Partners');
  await shoot(page, 'consent', size);
  await page.getByRole('button', { name: 'Allow' }).click();
}

async function shootAccountPages(page: Page, base: string, size: { width: number }) {
  await page.goto(`${base}/account/connections`);
  expect(await page.locator('main').textContent()).to.include('E2E Test Client');
  await shoot(page, 'connections', size);
  await page.goto(`${base}/account/developer`);
  await page.getByLabel('Application name').fill('Quarterly report script');
  await page.getByRole('button', { name: 'Create application' }).click();
  expect(await page.getByLabel('Client secret').inputValue()).to.match(/^pds_cs_/);
  await page.getByLabel('Token name').fill('Laptop');
  await page.getByRole('button', { name: 'Create token' }).click();
  expect(await page.getByLabel('Personal access token', { exact: true }).inputValue()).to.match(/^pds_pat_/);
  await shoot(page, 'developer', size);
}

const [sqlite] = dialects;
const haveChromium = existsSync(CHROMIUM);

(haveChromium ? describe : describe.skip)('MCP sign-in in a real browser @db', function () {
  this.timeout(60_000);
  let t: TestDb;
  let server: RunningServer;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof startClientSite>>;
  let base: string;

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    t = await sqlite!.open();
    await buildFixture(t.db);
    server = await startTestServer(t.db, { env: { MCP_ALLOW_LOOPBACK_CLIENT_METADATA: 'true' } });
    base = server.url;
    site = await startClientSite();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await server?.close();
    await t?.drop();
  });

  async function contextFor(size: typeof DESKTOP, phone = false): Promise<BrowserContext> {
    return browser.newContext(
      phone ? { viewport: size, isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : { viewport: size },
    );
  }

  it('discovers, registers, signs in with the login and consent pages, and calls tools', async () => {
    const context = await contextFor(DESKTOP);
    const page = await context.newPage();
    const provider = new MemoryOAuthProvider(site.redirectUrl);
    const serverUrl = new URL(`${base}/mcp`);

    expect(await auth(provider, { serverUrl })).to.equal('REDIRECT');
    expect(provider.clientInformation()?.client_id).to.be.a('string');
    const callback = site.nextCallback();
    await page.goto(provider.authorizationUrl!.href);
    await signInAndAllow(page, DESKTOP);
    const { code, state, iss, error } = await callback;
    expect(error).to.equal(null);
    expect(state).to.equal('e2e-state');
    expect(iss).to.equal(base);

    expect(await auth(provider, { serverUrl, authorizationCode: code! })).to.equal('AUTHORIZED');
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).to.include('list_companies');
    const result = await client.callTool({ name: 'list_companies', arguments: {} });
    expect(result.isError).to.not.equal(true);
    expect((result.structuredContent as { count: number }).count).to.equal(3);
    await client.close();

    await shootAccountPages(page, base, DESKTOP);
    await context.close();
  });

  it('signs in a client identified by its Client ID Metadata Document, on a phone', async () => {
    const clientId = `${site.origin}/oauth/client.json`;
    site.documents.set('/oauth/client.json', {
      client_id: clientId,
      client_name: 'E2E Test Client',
      client_uri: site.origin,
      redirect_uris: [site.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const metadata = (await discoverAuthorizationServerMetadata(base))!;
    expect(metadata.client_id_metadata_document_supported).to.equal(true);
    const resource = new URL(`${base}/mcp`);
    const clientInformation = { client_id: clientId };
    const { authorizationUrl, codeVerifier } = await startAuthorization(base, {
      metadata,
      clientInformation,
      redirectUrl: site.redirectUrl,
      scope: 'read write',
      state: 'cimd-state',
      resource,
    });

    const context = await contextFor(PHONE, true);
    const page = await context.newPage();
    const callback = site.nextCallback();
    await page.goto(authorizationUrl.href);
    await signInAndAllow(page, PHONE);
    const { code, state, iss } = await callback;
    expect(state).to.equal('cimd-state');
    expect(iss).to.equal(base);

    const tokens = await exchangeAuthorization(base, {
      metadata,
      clientInformation,
      authorizationCode: code!,
      codeVerifier,
      redirectUri: site.redirectUrl,
      resource,
    });
    const client = new Client({ name: 'e2e-cimd', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(resource, {
        requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.isError).to.not.equal(true);
    expect(JSON.stringify(result.structuredContent)).to.include('admin@alpha.test');
    await client.close();

    await shootAccountPages(page, base, PHONE);
    await context.close();
  });
});
