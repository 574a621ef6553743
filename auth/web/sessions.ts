import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../core/clock.ts';
import type { Firm, User } from '../../core/principal.ts';
import { constantTimeEqual, tokenHash } from '../../core/secrets.ts';
import type { Repos } from '../../db/repos/index.ts';

/** A browser sign-in lasts a working day; MCP sign-ins made through it last 30 days on their own. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;
const LOGIN_CSRF_TTL_S = 3600;

export interface WebSession {
  idHash: string;
  user: User;
  firm: Firm;
  csrfToken: string;
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (out.has(name)) continue;
    try {
      out.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // a malformed value is the same as no value
    }
  }
  return out;
}

function random(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Browser sessions for the sign-in and account pages. The session cookie is `__Host-` prefixed,
 * Secure, HttpOnly and SameSite=Lax when PUBLIC_URL is https; forms carry a per-session CSRF token.
 * Before sign-in, the login form's CSRF token is a random value in a cookie of its own (double submit).
 */
export class Sessions {
  constructor(
    private readonly repos: Repos,
    private readonly clock: Clock,
    /** Read on every use: the public URL may be settled after the app is built. */
    private readonly publicUrl: () => string,
  ) {}

  private get secure(): boolean {
    return this.publicUrl().startsWith('https:');
  }

  private name(base: string): string {
    return this.secure ? `__Host-${base}` : base;
  }

  private setCookie(res: ServerResponse, name: string, value: string, maxAgeSeconds: number): void {
    const attributes = [`${name}=${value}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
    if (this.secure) attributes.push('Secure');
    const existing = res.getHeader('Set-Cookie');
    const list = Array.isArray(existing) ? existing : existing ? [String(existing)] : [];
    res.setHeader('Set-Cookie', [...list, attributes.join('; ')]);
  }

  /** The signed-in user of this request, or undefined (no cookie, unknown, expired, or user deactivated). */
  async current(req: IncomingMessage): Promise<WebSession | undefined> {
    const id = parseCookies(req.headers.cookie).get(this.name('pds_session'));
    if (!id) return undefined;
    const idHash = tokenHash(id);
    const row = await this.repos.sessions.find(idHash);
    if (!row || row.expires_at <= this.clock.now().toISOString()) return undefined;
    const user = await this.repos.users.get(row.user_id);
    const firm = user && (await this.repos.firms.get(user.firm_id));
    if (!user?.is_active || !firm) return undefined;
    return { idHash, user, firm, csrfToken: row.csrf_token };
  }

  async start(res: ServerResponse, user: User): Promise<void> {
    const now = this.clock.now();
    await this.repos.sessions.removeExpired(now.toISOString());
    const id = random();
    await this.repos.sessions.insert({
      id_hash: tokenHash(id),
      user_id: user.id,
      csrf_token: random(),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
    });
    this.setCookie(res, this.name('pds_session'), id, SESSION_TTL_MS / 1000);
    this.setCookie(res, this.name('pds_login_csrf'), '', 0);
  }

  async end(session: WebSession, res: ServerResponse): Promise<void> {
    await this.repos.sessions.remove(session.idHash);
    this.setCookie(res, this.name('pds_session'), '', 0);
  }

  /** The login form's CSRF token: the one this browser already holds, or a new one set as a cookie. */
  loginCsrf(req: IncomingMessage, res: ServerResponse): string {
    const held = parseCookies(req.headers.cookie).get(this.name('pds_login_csrf'));
    if (held && /^[\w-]{43}$/.test(held)) return held;
    const token = random();
    this.setCookie(res, this.name('pds_login_csrf'), token, LOGIN_CSRF_TTL_S);
    return token;
  }

  loginCsrfMatches(req: IncomingMessage, submitted: unknown): boolean {
    const held = parseCookies(req.headers.cookie).get(this.name('pds_login_csrf'));
    return !!held && typeof submitted === 'string' && constantTimeEqual(held, submitted);
  }
}

export function csrfMatches(session: WebSession, submitted: unknown): boolean {
  return typeof submitted === 'string' && constantTimeEqual(session.csrfToken, submitted);
}
