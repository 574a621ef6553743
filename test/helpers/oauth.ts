import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';

/** A browser without a browser: keeps cookies, never follows redirects, posts forms. */
export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly base: string,
    /** Sent with every request (an X-Forwarded-For, say). */
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const headers = { ...this.extraHeaders, ...extra };
    return cookie ? { ...headers, Cookie: cookie } : headers;
  }

  async get(path: string) {
    const res = await fetch(new URL(path, this.base), { headers: this.headers(), redirect: 'manual' });
    this.remember(res);
    return {
      status: res.status,
      headers: res.headers,
      location: res.headers.get('location'),
      text: await res.text(),
    };
  }

  async post(path: string, form: Record<string, string | undefined>) {
    const body = new URLSearchParams(
      Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined),
    );
    const res = await fetch(new URL(path, this.base), {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/x-www-form-urlencoded' }),
      body,
      redirect: 'manual',
    });
    this.remember(res);
    return {
      status: res.status,
      headers: res.headers,
      location: res.headers.get('location'),
      text: await res.text(),
    };
  }

  /** Signs in through the login form; returns the login response (303 on success). */
  async signIn(email: string, password = 'fixture-password', next?: string) {
    const page = await this.get(`/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
    return this.post('/login', {
      csrf_token: csrfOf(page.text),
      next: hiddenValue(page.text, 'next'),
      email,
      password,
    });
  }
}

export function hiddenValue(html: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  return match
    ? match[1]!
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
    : undefined;
}

export function csrfOf(html: string): string {
  const token = hiddenValue(html, 'csrf_token');
  if (!token) throw new Error('no csrf_token in the page');
  return token;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  [key: string]: unknown;
}

/** Dynamic client registration (RFC 7591); a public client unless told otherwise. */
export async function registerClient(
  base: string,
  metadata: Record<string, unknown> = {},
): Promise<{ status: number; body: RegisteredClient & { error?: string } }> {
  const res = await fetch(`${base}/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Client',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    }),
  });
  return { status: res.status, body: (await res.json()) as RegisteredClient & { error?: string } };
}

/** A form POST to the MCP token endpoint; returns status and JSON body. */
export async function tokenRequest(
  base: string,
  form: Record<string, string | undefined>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined)),
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

export const REDIRECT = 'http://127.0.0.1:9/callback';

/** Signs the browser in (when it is not yet) and allows the client; returns the code. */
export async function consent(
  base: string,
  web: WebClient,
  client: RegisteredClient,
  options: { resource?: string | null; redirectUri?: string | null; state?: string; scope?: string } = {},
) {
  const { verifier, challenge } = pkce();
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: client.client_id,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: options.state ?? 'state-1',
  };
  if (options.redirectUri !== null) params.redirect_uri = options.redirectUri ?? client.redirect_uris[0]!;
  if (options.resource !== null) params.resource = options.resource ?? `${base}/mcp`;
  if (options.scope) params.scope = options.scope;
  const path = `/authorize?${new URLSearchParams(params)}`;
  let page = await web.get(path);
  if (page.status === 302) {
    expect(page.location).to.match(/^\/login\?next=/);
    const login = await web.signIn('admin@alpha.test', 'fixture-password', path);
    expect(login.status).to.equal(303);
    expect(login.location).to.equal(path);
    page = await web.get(path);
  }
  expect(page.status).to.equal(200);
  const done = await web.post('/authorize', {
    ...params,
    csrf_token: csrfOf(page.text),
    decision: 'allow',
  });
  expect(done.status).to.equal(303);
  const location = new URL(done.location!);
  return { code: location.searchParams.get('code')!, verifier, location, params };
}

/** A full sign-in: register, consent, exchange; returns the client, the browser and the tokens. */
export async function signInFlow(base: string, web = new WebClient(base), options: { scope?: string } = {}) {
  const { body: client } = await registerClient(base, { redirect_uris: [REDIRECT] });
  const { code, verifier } = await consent(base, web, client, options);
  const tokens = await tokenRequest(base, {
    grant_type: 'authorization_code',
    client_id: client.client_id,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    resource: `${base}/mcp`,
  });
  expect(tokens.status).to.equal(200);
  return {
    client,
    web,
    tokens: tokens.body as { access_token: string; refresh_token: string; expires_in: number },
  };
}
