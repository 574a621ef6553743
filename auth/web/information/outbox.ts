// The outbox page: the firm's outbound mail as `portfolio outbox` shows it to an operator, over the same
// repository calls (list, get, release), limited to the firm of the signed-in admin.
import type { Router } from 'express';
import type { MailRow } from '../../../db/repos/mail.ts';
import { html } from '../html.ts';
import { type NavState, page } from '../layout.ts';
import { alert, hidden, messagePage, when } from '../pages.ts';
import { sendHtml } from '../respond.ts';
import { type Form, type Handler, nav, readsOutbox, signedIn, type WebOptions } from '../signed-in.ts';

export const OUTBOX_PATH = '/account/outbox';
const SHOWN = 100;

const recipient = (m: MailRow) => (m.to_name ? `${m.to_name} <${m.to_address}>` : m.to_address);

function sendButton(m: MailRow, csrf: string) {
  if (m.status !== 'held') return '';
  return html`<form method="post" action="${OUTBOX_PATH}/${m.id}/send">
  ${hidden({ csrf_token: csrf })}
  <button class="button secondary" type="submit" aria-label="Send the message to ${m.to_address}">Send</button>
</form>`;
}

function item(m: MailRow, csrf: string) {
  return html`<li>
  <div class="item-main">
    <div class="item-title"><a href="${OUTBOX_PATH}/${m.id}">${m.subject}</a> <span class="badge">${m.status}</span></div>
    <div class="item-meta">To ${recipient(m)} · ${m.kind} · queued ${when(m.created_at)}${m.sent_at ? html` · sent ${when(m.sent_at)}` : ''}</div>
    ${m.link ? html`<div class="item-meta">Founder link: <a href="${m.link}">${m.link}</a></div>` : ''}
    ${m.status === 'failed' && m.last_error ? html`<div class="item-meta">Failed after ${String(m.attempts)} attempt(s): ${m.last_error}</div>` : ''}
  </div>
  ${sendButton(m, csrf)}
</li>`;
}

function outboxPage(navState: NavState, rows: MailRow[], notice?: string): string {
  return page({
    title: 'Outbox',
    nav: navState,
    body: html`<div class="card">
  <h1>Outbox</h1>
  <p class="muted">Mail to founders, newest first. Without SMTP_URL every message is held here, with its founder link; "Send" queues a held message for a server with SMTP_URL set.</p>
  ${alert('ok', notice)}
  ${
    rows.length > 0
      ? html`<ul class="items">${rows.map((m) => item(m, navState.csrfToken))}</ul>`
      : html`<p class="empty">The outbox is empty: mail appears here when a request is sent, reminded or answered.</p>`
  }
</div>`,
  });
}

function messageView(navState: NavState, m: MailRow): string {
  return page({
    title: m.subject,
    nav: navState,
    body: html`<div class="card">
  <p><a href="${OUTBOX_PATH}">Outbox</a></p>
  <h1>${m.subject}</h1>
  <dl class="facts">
    <dt>To</dt><dd>${recipient(m)}</dd>
    <dt>Status</dt><dd>${m.status}${m.sent_at ? html` (sent ${when(m.sent_at)})` : ''}</dd>
    <dt>Kind</dt><dd>${m.kind}</dd>
    <dt>Queued</dt><dd>${when(m.created_at)}</dd>
    <dt>Attempts</dt><dd>${String(m.attempts)}${m.last_error ? `, last error: ${m.last_error}` : ''}</dd>
    ${m.link ? html`<dt>Founder link</dt><dd><a href="${m.link}">${m.link}</a></dd>` : ''}
  </dl>
  <pre class="mail">${m.text_body.trimEnd()}</pre>
  ${sendButton(m, navState.csrfToken)}
</div>`,
  });
}

const notFound = () =>
  messagePage({
    title: 'No such message',
    message: 'This message is not in the outbox of your firm.',
    link: { href: OUTBOX_PATH, label: 'Back to the outbox' },
  });

/** Only admins with every company read the outbox: its messages carry every company's founder links. */
function guard(handler: Handler): Handler {
  return async (req, res, session) => {
    if (!readsOutbox(session)) {
      sendHtml(res, 404, notFound());
      return;
    }
    await handler(req, res, session);
  };
}

export function addOutboxRoutes(router: Router, options: WebOptions, form: Form): void {
  const { repos, clock, sessions } = options;
  router.get(
    OUTBOX_PATH,
    signedIn(
      sessions,
      guard(async (req, res, session) => {
        const rows = await repos.mail.list({ firmId: session.firm.id, limit: SHOWN });
        const notice = req.query.notice === 'queued' ? 'The message is queued for sending.' : undefined;
        sendHtml(res, 200, outboxPage(nav(session, 'outbox'), rows, notice));
      }),
    ),
  );
  router.get(
    `${OUTBOX_PATH}/:id`,
    signedIn(
      sessions,
      guard(async (req, res, session) => {
        const m = await repos.mail.get(String(req.params.id), session.firm.id);
        if (!m) sendHtml(res, 404, notFound());
        else sendHtml(res, 200, messageView(nav(session, 'outbox'), m));
      }),
    ),
  );
  router.post(
    `${OUTBOX_PATH}/:id/send`,
    form,
    signedIn(
      sessions,
      guard(async (req, res, session) => {
        const id = String(req.params.id);
        if (await repos.mail.release(id, clock.now().toISOString(), session.firm.id)) {
          res.redirect(303, `${OUTBOX_PATH}?notice=queued`);
          return;
        }
        const m = await repos.mail.get(id, session.firm.id);
        const message = m ? `This message is ${m.status}: only a held message can be sent.` : undefined;
        sendHtml(
          res,
          m ? 409 : 404,
          message
            ? messagePage({
                title: 'Not sent',
                message,
                link: { href: OUTBOX_PATH, label: 'Back to the outbox' },
              })
            : notFound(),
        );
      }),
    ),
  );
}
