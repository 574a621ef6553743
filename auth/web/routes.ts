import express, { type Response, type Router } from 'express';
import { InvalidInput } from '../../core/errors.ts';
import { hashSecret, verifySecret } from '../../core/secrets.ts';
import type { McpGrantWithClient } from '../../db/repos/mcp-auth.ts';
import { revokeGrant } from '../../services/accounts.ts';
import type { Actor } from '../../services/changes.ts';
import { createWebhook } from '../../services/webhooks.ts';
import {
  AccountError,
  createApplication,
  createPersonalToken,
  listApplications,
  listPersonalTokens,
  revokeApplication,
  revokePersonalToken,
} from '../accounts.ts';
import { RateLimited } from '../rate-limit.ts';
import { addProposalRoutes } from './documents/review.ts';
import { addInformationRoutes } from './information/routes.ts';
import {
  type ApplicationView,
  type ConnectionView,
  type Created,
  connectionsPage,
  type DeveloperView,
  developerPage,
  loginPage,
  messagePage,
  type WebhookView,
} from './pages.ts';
import { sendHtml } from './respond.ts';
import { csrfMatches, type WebSession } from './sessions.ts';
import {
  expiredPage,
  type Form,
  field,
  HOME,
  nav,
  OUT_OF_DATE,
  signedIn,
  type WebOptions,
} from './signed-in.ts';

/** Only a path of this site: never `//host` or a full URL, so the login cannot redirect elsewhere. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : HOME;
}

const notices: Record<string, string> = {
  'connection-revoked': 'The connection was revoked. The client is signed out.',
  'application-revoked': 'The application was revoked, with every token issued to it.',
  'token-revoked': 'The token was revoked.',
};

// Verifying against this when the email is unknown makes both failures cost the same time.
let decoyHash: Promise<string> | undefined;

/** The signed-in user as the author of a change. */
function userActor(session: WebSession): Actor {
  return { type: 'user', id: session.user.id, userId: session.user.id };
}

/** The sign-in form, its check of the password (rate limited per account and address), and sign-out. */
function addSignInRoutes(router: Router, options: WebOptions, form: Form): void {
  const { repos, sessions, failures } = options;

  router.get('/login', async (req, res) => {
    const next = safeNext(req.query.next);
    if (await sessions.current(req)) {
      res.redirect(303, next);
      return;
    }
    sendHtml(res, 200, loginPage({ csrfToken: sessions.loginCsrf(req, res), next }));
  });

  router.post('/login', form, async (req, res) => {
    const email = field(req.body, 'email').trim();
    const password = field(req.body, 'password');
    const next = safeNext(field(req.body, 'next'));
    const again = (status: number, error: string) =>
      sendHtml(res, status, loginPage({ csrfToken: sessions.loginCsrf(req, res), next, email, error }));
    if (!sessions.loginCsrfMatches(req, field(req.body, 'csrf_token'))) {
      again(403, 'The sign-in form expired. Enter your email and password again.');
      return;
    }
    let refund: () => Promise<void>;
    try {
      refund = await failures.reserve(req.ip ?? '', `account:${email.toLowerCase()}`);
    } catch (err) {
      if (!(err instanceof RateLimited)) throw err;
      res.setHeader('Retry-After', String(err.retryAfterSeconds));
      again(429, `Too many failed sign-in attempts. Wait ${err.retryAfterSeconds} seconds, then try again.`);
      return;
    }
    if (!email || !password) {
      await refund();
      again(400, 'Enter your email and your password.');
      return;
    }
    const user = await repos.users.getByEmail(email);
    decoyHash ??= hashSecret('not a password of anyone');
    const ok = await verifySecret(password, user?.password_hash ?? (await decoyHash));
    if (!user || !ok) {
      again(401, 'The email or password is incorrect.');
      return;
    }
    await refund();
    if (!user.is_active) {
      again(403, 'This account is deactivated. Ask an admin of your firm to reactivate it.');
      return;
    }
    await sessions.start(res, user);
    res.redirect(303, next);
  });

  router.post('/logout', form, async (req, res) => {
    const session = await sessions.current(req);
    if (session) {
      if (!csrfMatches(session, field(req.body, 'csrf_token'))) {
        sendHtml(res, 403, expiredPage(OUT_OF_DATE));
        return;
      }
      await sessions.end(session, res);
    }
    const next = safeNext(field(req.body, 'next'));
    res.redirect(303, `/login?${new URLSearchParams({ next })}`);
  });
}

/** The MCP clients connected to the user's account, each revocable. */
function addConnectionRoutes(router: Router, options: WebOptions, form: Form): void {
  const { repos, clock, sessions } = options;

  router.get('/account', (_req, res) => res.redirect(303, HOME));

  router.get(
    '/account/connections',
    signedIn(sessions, async (req, res, session) => {
      const grants = await repos.mcpAuth.listActiveGrants(session.user.id, clock.now().toISOString());
      sendHtml(
        res,
        200,
        connectionsPage({
          nav: nav(session, 'connections'),
          mcpUrl: `${options.publicUrl()}/mcp`,
          connections: grants.map(connectionView),
          notice: notices[String(req.query.notice)],
        }),
      );
    }),
  );

  router.post(
    '/account/connections/:id/revoke',
    form,
    signedIn(sessions, async (req, res, session) => {
      const grant = await repos.mcpAuth.getGrant(String(req.params.id));
      if (!grant || grant.user_id !== session.user.id) {
        sendHtml(res, 404, notFoundPage('connection', HOME));
        return;
      }
      await revokeGrant(repos, userActor(session), grant, clock.now().toISOString());
      res.redirect(303, `${HOME}?notice=connection-revoked`);
    }),
  );
}

/** The developer settings page: the user's applications (an admin's: the firm's too) and live tokens. */
async function developerSettings(
  options: WebOptions,
  session: WebSession,
  extra: Partial<DeveloperView> = {},
): Promise<string> {
  const { repos, clock } = options;
  const now = clock.now().toISOString();
  const apps = (await listApplications(repos, session.firm.slug)).filter((a) => !a.revoked_at);
  const view = (a: (typeof apps)[number]): ApplicationView => ({
    id: a.id,
    name: a.name,
    clientId: a.client_id,
    ownerEmail: a.user_email,
    createdAt: a.created_at,
  });
  const tokens = (await listPersonalTokens(repos, session.user.email)).filter(
    (t) => !t.revoked_at && t.expires_at > now,
  );
  return developerPage({
    webhooks: managesWebhooks(session) ? await webhookViews(options, session) : undefined,
    nav: nav(session, 'developer'),
    firmName: session.firm.name,
    tokenUrl: `${options.publicUrl()}/o/token/`,
    applications: apps.filter((a) => a.user_id === session.user.id).map(view),
    firmApplications:
      session.user.role === 'admin' ? apps.filter((a) => a.user_id !== session.user.id).map(view) : undefined,
    tokens: tokens.map((t) => ({
      id: t.id,
      name: t.name ?? 'personal access token',
      createdAt: t.created_at,
      expiresAt: t.expires_at,
      lastUsedAt: t.last_used_at,
    })),
    ...extra,
  });
}

/** Webhooks carry every company's changes out of the service: admins with access to all companies manage them. */
function managesWebhooks(session: WebSession): boolean {
  return session.user.role === 'admin' && session.user.all_companies;
}

async function webhookViews(options: WebOptions, session: WebSession): Promise<WebhookView[]> {
  const { webhooks } = options.repos;
  const endpoints = await webhooks.listEndpoints(session.firm.id);
  return Promise.all(
    endpoints.map(async (e) => ({
      id: e.id,
      url: e.url,
      description: e.description,
      eventTypes: e.event_types,
      enabled: e.enabled,
      disabledReason: e.disabled_reason,
      deliveries: (await webhooks.listDeliveries(session.firm.id, e.id, 5)).map((d) => ({
        eventType: d.event_type,
        status: d.status,
        attempts: d.attempts,
        statusCode: d.last_status_code,
        error: d.last_error,
        at: d.last_attempt_at ?? d.created_at,
        durationMs: d.last_duration_ms,
      })),
    })),
  );
}

/** Runs an account operation; its AccountError becomes a 400 page with the message in the right section. */
async function attempt(
  options: WebOptions,
  res: Response,
  session: WebSession,
  section: 'application' | 'token' | 'webhook',
  create: () => Promise<Created>,
): Promise<void> {
  let created: Created;
  try {
    created = await create();
  } catch (err) {
    if (!(err instanceof AccountError)) throw err;
    const message = err.message.charAt(0).toUpperCase() + err.message.slice(1);
    sendHtml(
      res,
      400,
      await developerSettings(options, session, { error: { section, message: `${message}.` } }),
    );
    return;
  }
  sendHtml(res, 201, await developerSettings(options, session, { created }));
}

/** Creating and revoking OAuth applications and personal access tokens. */
function addDeveloperRoutes(router: Router, options: WebOptions, form: Form): void {
  const { repos, clock, sessions } = options;

  router.get(
    '/account/developer',
    signedIn(sessions, async (req, res, session) => {
      sendHtml(
        res,
        200,
        await developerSettings(options, session, { notice: notices[String(req.query.notice)] }),
      );
    }),
  );

  router.post(
    '/account/developer/applications',
    form,
    signedIn(sessions, async (req, res, session) => {
      await attempt(options, res, session, 'application', async () => {
        const name = field(req.body, 'name');
        const app = await createApplication(
          repos,
          clock,
          {
            firm: session.firm.slug,
            userEmail: session.user.email,
            name,
            maxApplications: options.applicationsPerUser(),
          },
          userActor(session),
        );
        return {
          kind: 'application',
          name: name.trim(),
          clientId: app.client_id,
          clientSecret: app.client_secret,
        };
      });
    }),
  );

  router.post(
    '/account/developer/applications/:id/revoke',
    form,
    signedIn(sessions, async (req, res, session) => {
      const app = (await listApplications(repos, session.firm.slug)).find((a) => a.id === req.params.id);
      const mayRevoke =
        app && !app.revoked_at && (app.user_id === session.user.id || session.user.role === 'admin');
      if (!app || !mayRevoke) {
        sendHtml(res, 404, notFoundPage('application', '/account/developer'));
        return;
      }
      await revokeApplication(repos, clock, app.client_id, userActor(session));
      res.redirect(303, '/account/developer?notice=application-revoked');
    }),
  );

  router.post(
    '/account/developer/tokens',
    form,
    signedIn(sessions, async (req, res, session) => {
      await attempt(options, res, session, 'token', async () => {
        const name = field(req.body, 'name').trim();
        const daysText = field(req.body, 'days').trim() || '30';
        if (!/^\d+$/.test(daysText)) throw new AccountError('days must be a whole number from 1 to 30');
        if (!name) throw new AccountError('token name must not be empty');
        const token = await createPersonalToken(
          repos,
          clock,
          { email: session.user.email, days: Number(daysText), name },
          userActor(session),
        );
        return { kind: 'token', name, token: token.token, expiresAt: token.expires_at };
      });
    }),
  );

  router.post(
    '/account/developer/webhooks',
    form,
    signedIn(sessions, async (req, res, session) => {
      if (!managesWebhooks(session)) {
        sendHtml(res, 404, notFoundPage('page', '/account/developer'));
        return;
      }
      await attempt(options, res, session, 'webhook', async () => {
        const url = field(req.body, 'url').trim();
        const description = field(req.body, 'description').trim();
        const endpoint = await createWebhook(
          {
            repos,
            clock,
            scope: { firmId: session.firm.id, companyIds: null },
            actor: userActor(session),
            allowPrivateUrls: options.webhookAllowPrivateUrls?.() ?? false,
          },
          { url, description: description || null, eventTypes: ['*'], companyIds: null },
        ).catch((err: unknown) => {
          // The page says what was wrong with the URL in its own words.
          if (err instanceof InvalidInput && err.errors[0]?.field === 'url')
            throw new AccountError(`the endpoint URL ${err.errors[0].message}`);
          throw err;
        });
        const { secret } = endpoint;
        return { kind: 'webhook', url, secret };
      });
    }),
  );

  router.post(
    '/account/developer/tokens/:id/revoke',
    form,
    signedIn(sessions, async (req, res, session) => {
      const token = (await listPersonalTokens(repos, session.user.email)).find((t) => t.id === req.params.id);
      if (!token || token.revoked_at) {
        sendHtml(res, 404, notFoundPage('token', '/account/developer'));
        return;
      }
      await revokePersonalToken(repos, clock, token.id, userActor(session));
      res.redirect(303, '/account/developer?notice=token-revoked');
    }),
  );
}

/** The sign-in page and the account pages (connections, developer settings), server-rendered without scripts. */
export function webRouter(options: WebOptions): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  addSignInRoutes(router, options, form);
  addConnectionRoutes(router, options, form);
  addDeveloperRoutes(router, options, form);
  addInformationRoutes(router, options, form);
  addProposalRoutes(router, options);
  return router;
}

export function notFoundPage(what: string, back: string): string {
  return messagePage({
    title: `No such ${what}`,
    message: `This ${what} does not exist, was already revoked, or is not yours.`,
    link: { href: back, label: 'Back' },
  });
}

function connectionView(grant: McpGrantWithClient): ConnectionView {
  const metadata = grant.client_metadata
    ? (JSON.parse(grant.client_metadata) as { client_name?: string; redirect_uris?: string[] })
    : {};
  let host: string | null = null;
  try {
    host = new URL(
      /^https?:\/\//.test(grant.client_id) ? grant.client_id : (metadata.redirect_uris?.[0] ?? ''),
    ).host;
  } catch {
    host = null;
  }
  return {
    id: grant.id,
    clientName: metadata.client_name?.trim() || host || 'An unnamed client',
    clientHost: host,
    createdAt: grant.created_at,
    lastUsedAt: grant.last_used_at,
    expiresAt: grant.expires_at,
  };
}
