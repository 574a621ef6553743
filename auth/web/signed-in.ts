import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { Clock } from '../../core/clock.ts';
import type { Repos } from '../../db/repos/index.ts';
import type { FailureLimits } from '../rate-limit.ts';
import type { InformationWebOptions } from './information/context.ts';
import type { NavState } from './layout.ts';
import { messagePage } from './pages.ts';
import { sendHtml } from './respond.ts';
import { csrfMatches, type Sessions, type WebSession } from './sessions.ts';

// What every signed-in page shares: its options, the session check with CSRF, the navigation.

export interface WebOptions extends InformationWebOptions {
  repos: Repos;
  clock: Clock;
  sessions: Sessions;
  /** Failed sign-ins per account and per address (shared with the token endpoints). */
  failures: FailureLimits;
  /** Unrevoked OAuth applications one user may hold. */
  applicationsPerUser: () => number;
  publicUrl: () => string;
  /** Webhook URLs may name loopback addresses (WEBHOOK_ALLOW_PRIVATE_URLS). */
  webhookAllowPrivateUrls?: () => boolean;
}

export const HOME = '/account/connections';

export function field(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

export type Handler = (req: Request, res: Response, session: WebSession) => Promise<void>;
export type Form = ReturnType<typeof express.urlencoded>;

export const OUT_OF_DATE =
  'The form was not accepted because it is out of date. Reload the page and try again.';

export function expiredPage(message: string): string {
  return messagePage({
    title: 'This page expired',
    message,
    link: { href: HOME, label: 'Go to your account' },
  });
}

export function nav(session: WebSession, current: NavState['current']): NavState {
  return { current, csrfToken: session.csrfToken, email: session.user.email, outbox: readsOutbox(session) };
}

/** The outbox carries founder links of every company: admins with access to all of them read it. */
export function readsOutbox(session: WebSession): boolean {
  return session.user.role === 'admin' && session.user.all_companies;
}

/** Pages that need a signed-in user; every POST must carry the session's CSRF token. */
export function signedIn(sessions: Sessions, handler: Handler) {
  return async (req: Request, res: Response, _next: NextFunction): Promise<void> => {
    const session = await sessions.current(req);
    if (!session) {
      if (req.method === 'GET') res.redirect(303, `/login?${new URLSearchParams({ next: req.originalUrl })}`);
      else sendHtml(res, 401, expiredPage('Your session has ended. Sign in again, then repeat the change.'));
      return;
    }
    if (req.method === 'POST' && !csrfMatches(session, field(req.body, 'csrf_token'))) {
      sendHtml(res, 403, expiredPage(OUT_OF_DATE));
      return;
    }
    await handler(req, res, session);
  };
}
