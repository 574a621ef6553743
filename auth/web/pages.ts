import type { OAuthScope } from '../../core/principal.ts';
import { html, type SafeHtml } from './html.ts';
import { type NavState, PRODUCT_NAME, page } from './layout.ts';

export function hidden(fields: Record<string, string | undefined>): SafeHtml[] {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
}

export function alert(kind: 'error' | 'ok' | 'warn', message: string | undefined): SafeHtml | '' {
  if (!message) return '';
  return kind === 'error'
    ? html`<div class="alert error" role="alert">${message}</div>`
    : html`<div class="alert ${kind}" role="status">${message}</div>`;
}

/** `2026-06-01 12:00 UTC` in a <time> element. */
export function when(iso: string | null | undefined, never = 'never'): SafeHtml {
  if (!iso) return html`${never}`;
  const text = `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return html`<time datetime="${iso}">${text}</time>`;
}

export interface LoginView {
  csrfToken: string;
  next: string;
  email?: string;
  error?: string;
}

export function loginPage(view: LoginView): string {
  return page({
    title: 'Sign in',
    narrow: true,
    body: html`<div class="card">
  <h1>Sign in</h1>
  <p class="muted lead">Use the email and password of your ${PRODUCT_NAME} account.</p>
  ${view.error ? html`<div class="alert error" role="alert" id="login-error">${view.error}</div>` : ''}
  <form method="post" action="/login">
    ${hidden({ csrf_token: view.csrfToken, next: view.next })}
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required autofocus
      value="${view.email ?? ''}"${view.error ? html` aria-describedby="login-error"` : ''}>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <button class="button full" type="submit">Sign in</button>
  </form>
</div>`,
  });
}

export interface ConsentView {
  csrfToken: string;
  clientName: string;
  /** True when the name comes from a metadata document at the client's own https address. */
  clientVerified: boolean;
  clientHost: string;
  redirectHost: string;
  firmName: string;
  userEmail: string;
  /** The scopes the sign-in will grant: exactly what the client asked for (both when it named none). */
  scopes: readonly OAuthScope[];
  /** Whether the MCP server offers its write tools (MCP_WRITE_TOOLS). */
  writeTools: boolean;
  /** The authorization request, posted back with the decision. */
  request: Record<string, string | undefined>;
  /** Where to come back to after signing out as someone else. */
  retryUrl: string;
}

/** One line per requested scope, saying what it allows here and now. */
function consentScopeItems(view: ConsentView): SafeHtml[] {
  const items: SafeHtml[] = [];
  if (view.scopes.includes('read')) {
    items.push(
      html`<li><strong>read</strong>: read the data of ${view.firmName} that you can see, with your permissions;</li>`,
    );
  }
  if (view.scopes.includes('write')) {
    items.push(
      view.writeTools
        ? html`<li><strong>write</strong>: where your role allows, change metrics and add financing rounds;</li>`
        : html`<li><strong>write</strong>: change data where your role allows, once this server offers write tools to AI clients (it does not now);</li>`,
    );
  } else {
    items.push(html`<li>not change anything: this connection is read only;</li>`);
  }
  return items;
}

export function consentPage(view: ConsentView): string {
  return page({
    title: `Allow ${view.clientName}?`,
    narrow: true,
    body: html`<div class="card">
  <h1>Allow ${view.clientName} to use your portfolio data?</h1>
  <p class="muted">An AI client is asking to connect to ${PRODUCT_NAME} as you.</p>
  <dl class="facts">
    <dt>Client</dt>
    <dd>${view.clientName}${view.clientVerified ? html` <span class="badge">from ${view.clientHost}</span>` : ''}</dd>
    <dt>Returns you to</dt>
    <dd>${view.redirectHost}</dd>
    <dt>Firm</dt>
    <dd>${view.firmName}</dd>
    <dt>Signed in as</dt>
    <dd>${view.userEmail}</dd>
  </dl>
  <p>If you allow it, the client can:</p>
  <ul class="plain">
    ${consentScopeItems(view)}
    <li>stay connected for up to 30 days, until you revoke it under Connections.</li>
  </ul>
  ${alert('warn', `Allow only if you started this connection yourself and recognise ${view.redirectHost}.`)}
  <form method="post" action="/authorize">
    ${hidden({ ...view.request, csrf_token: view.csrfToken })}
    <div class="actions">
      <button class="button" type="submit" name="decision" value="allow">Allow</button>
      <button class="button secondary" type="submit" name="decision" value="deny">Deny</button>
    </div>
  </form>
  <form class="signout" method="post" action="/logout">
    ${hidden({ csrf_token: view.csrfToken, next: view.retryUrl })}
    Not ${view.userEmail}? <button class="button link" type="submit">Sign in as someone else</button>
  </form>
</div>`,
  });
}

export interface MessageView {
  title: string;
  message: string;
  link?: { href: string; label: string };
}

export function messagePage(view: MessageView): string {
  return page({
    title: view.title,
    narrow: true,
    body: html`<div class="card">
  <h1>${view.title}</h1>
  <p>${view.message}</p>
  ${view.link ? html`<p><a href="${view.link.href}">${view.link.label}</a></p>` : ''}
</div>`,
  });
}

export interface ConnectionView {
  id: string;
  clientName: string;
  clientHost: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
}

export interface ConnectionsView {
  nav: NavState;
  mcpUrl: string;
  connections: ConnectionView[];
  notice?: string;
}

export function connectionsPage(view: ConnectionsView): string {
  const items = view.connections.map(
    (c) => html`<li>
      <div class="item-main">
        <div class="item-title">${c.clientName}${c.clientHost ? html` <span class="badge">${c.clientHost}</span>` : ''}</div>
        <div class="item-meta">Connected ${when(c.createdAt)} · last used ${when(c.lastUsedAt)} · ends ${when(c.expiresAt)}</div>
      </div>
      <form method="post" action="/account/connections/${c.id}/revoke">
        ${hidden({ csrf_token: view.nav.csrfToken })}
        <button class="button danger" type="submit" aria-label="Revoke ${c.clientName}, connected ${c.createdAt.slice(0, 16).replace('T', ' ')} UTC">Revoke</button>
      </form>
    </li>`,
  );
  return page({
    title: 'Connections',
    nav: view.nav,
    body: html`<div class="card">
  <h1>Connections</h1>
  <p class="muted">AI clients signed in to your account through MCP. Revoking one signs it out at once; it can connect again only after you sign in and allow it.</p>
  ${alert('ok', view.notice)}
  ${
    items.length > 0
      ? html`<ul class="items">${items}</ul>`
      : html`<p class="empty">No AI client is connected. To connect one, give it the MCP server address <code>${view.mcpUrl}</code>.</p>`
  }
</div>`,
  });
}

export interface ApplicationView {
  id: string;
  name: string;
  clientId: string;
  ownerEmail: string | null;
  createdAt: string;
}

export interface TokenView {
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

export type Created =
  | { kind: 'application'; name: string; clientId: string; clientSecret: string }
  | { kind: 'token'; name: string; token: string; expiresAt: string }
  | { kind: 'webhook'; url: string; secret: string };

export interface WebhookView {
  id: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  deliveries: {
    eventType: string;
    status: string;
    attempts: number;
    statusCode: number | null;
    error: string | null;
    at: string | null;
    durationMs: number | null;
  }[];
}

export interface DeveloperView {
  nav: NavState;
  firmName: string;
  tokenUrl: string;
  applications: ApplicationView[];
  /** Other users' applications of the firm, for admins only. */
  firmApplications?: ApplicationView[];
  tokens: TokenView[];
  /** The firm's webhook endpoints, for admins only. */
  webhooks?: WebhookView[];
  created?: Created;
  error?: { section: 'application' | 'token' | 'webhook'; message: string };
  notice?: string;
}

function shownOnce(created: Created): SafeHtml {
  if (created.kind === 'webhook') {
    return html`<div class="alert ok" role="status">
      <p><strong>Webhook endpoint for ${created.url} created.</strong> Copy the signing secret now: it is shown only once.</p>
      <label for="new-webhook-secret">Signing secret</label>
      <input class="secret" id="new-webhook-secret" type="text" readonly value="${created.secret}">
    </div>`;
  }
  if (created.kind === 'application') {
    return html`<div class="alert ok" role="status">
      <p><strong>Application “${created.name}” created.</strong> Copy the client secret now: it is shown only once.</p>
      <label for="new-client-id">Client ID</label>
      <input class="secret" id="new-client-id" type="text" readonly value="${created.clientId}">
      <label for="new-client-secret">Client secret</label>
      <input class="secret" id="new-client-secret" type="text" readonly value="${created.clientSecret}">
    </div>`;
  }
  return html`<div class="alert ok" role="status">
    <p><strong>Token “${created.name}” created</strong>, valid until ${when(created.expiresAt)}. Copy it now: it is shown only once.</p>
    <label for="new-token">Personal access token</label>
    <input class="secret" id="new-token" type="text" readonly value="${created.token}">
  </div>`;
}

function applicationItems(apps: ApplicationView[], csrfToken: string, showOwner: boolean): SafeHtml {
  return html`<ul class="items">${apps.map(
    (a) => html`<li>
      <div class="item-main">
        <div class="item-title">${a.name}</div>
        <div class="item-meta">Client ID <code>${a.clientId}</code> · created ${when(a.createdAt)}${showOwner ? html` · by ${a.ownerEmail ?? 'a removed user'}` : ''}</div>
      </div>
      <form method="post" action="/account/developer/applications/${a.id}/revoke">
        ${hidden({ csrf_token: csrfToken })}
        <button class="button danger" type="submit" aria-label="Revoke application ${a.name}">Revoke</button>
      </form>
    </li>`,
  )}</ul>`;
}

function webhookItems(hooks: WebhookView[]): SafeHtml {
  return html`<ul class="items">${hooks.map(
    (h) => html`<li>
      <div class="item-main">
        <div class="item-title"><code>${h.url}</code> · ${h.enabled ? 'enabled' : 'disabled'}</div>
        <div class="item-meta">Events: ${h.eventTypes.join(', ')}${h.description ? ` · ${h.description}` : ''} · id <code>${h.id}</code></div>
        ${h.enabled ? '' : html`<div class="item-meta">Disabled: ${h.disabledReason ?? 'no reason recorded'}</div>`}
        ${
          h.deliveries.length > 0
            ? html`<ul class="item-meta">${h.deliveries.map(
                (d) =>
                  html`<li>${d.eventType}: ${d.status} after ${String(d.attempts)} attempt(s)${d.statusCode === null ? '' : ` · HTTP ${d.statusCode}`}${d.durationMs === null ? '' : ` in ${d.durationMs} ms`}${d.error ? ` · ${d.error}` : ''} · ${when(d.at)}</li>`,
              )}</ul>`
            : html`<div class="item-meta">No deliveries yet.</div>`
        }
      </div>
    </li>`,
  )}</ul>`;
}

function webhooksSection(view: DeveloperView, hooks: WebhookView[]): SafeHtml {
  const created = view.created;
  return html`<section class="card" aria-labelledby="webhooks-heading">
  <h2 id="webhooks-heading">Webhooks</h2>
  <p class="muted">Every change of ${view.firmName} is POSTed to these https URLs, signed per Standard Webhooks. Manage event types, filters, secrets and replays over <code>/v1/webhooks/</code>.</p>
  ${created?.kind === 'webhook' ? shownOnce(created) : ''}
  ${view.error?.section === 'webhook' ? alert('error', view.error.message) : ''}
  <form class="inline-form" method="post" action="/account/developer/webhooks">
    ${hidden({ csrf_token: view.nav.csrfToken })}
    <div class="field">
      <label for="webhook-url">Endpoint URL</label>
      <input id="webhook-url" name="url" type="url" maxlength="2000" required>
    </div>
    <div class="field">
      <label for="webhook-description">Description</label>
      <input id="webhook-description" name="description" type="text" maxlength="500">
    </div>
    <button class="button" type="submit">Add endpoint</button>
  </form>
  ${hooks.length > 0 ? webhookItems(hooks) : html`<p class="empty">No webhook endpoints.</p>`}
</section>`;
}

export function developerPage(view: DeveloperView): string {
  const csrf = view.nav.csrfToken;
  const created = view.created;
  const tokens = view.tokens.map(
    (t) => html`<li>
      <div class="item-main">
        <div class="item-title">${t.name}</div>
        <div class="item-meta">Created ${when(t.createdAt)} · expires ${when(t.expiresAt)} · last used ${when(t.lastUsedAt)}</div>
      </div>
      <form method="post" action="/account/developer/tokens/${t.id}/revoke">
        ${hidden({ csrf_token: csrf })}
        <button class="button danger" type="submit" aria-label="Revoke token ${t.name}">Revoke</button>
      </form>
    </li>`,
  );
  return page({
    title: 'Developer settings',
    nav: view.nav,
    body: html`<h1>Developer settings</h1>
${alert('ok', view.notice)}
<section class="card" aria-labelledby="apps-heading">
  <h2 id="apps-heading">OAuth applications</h2>
  <p class="muted">For scripts and services that call the REST API: exchange the client ID and secret for a bearer token at <code>${view.tokenUrl}</code> (client-credentials grant). Their tokens act with your permissions.</p>
  ${created?.kind === 'application' ? shownOnce(created) : ''}
  ${view.error?.section === 'application' ? alert('error', view.error.message) : ''}
  <form class="inline-form" method="post" action="/account/developer/applications">
    ${hidden({ csrf_token: csrf })}
    <div class="field">
      <label for="app-name">Application name</label>
      <input id="app-name" name="name" type="text" maxlength="255" required>
    </div>
    <button class="button" type="submit">Create application</button>
  </form>
  ${
    view.applications.length > 0
      ? applicationItems(view.applications, csrf, false)
      : html`<p class="empty">You have no applications.</p>`
  }
  ${
    view.firmApplications
      ? html`<h3>Other applications of ${view.firmName}</h3>
  ${
    view.firmApplications.length > 0
      ? applicationItems(view.firmApplications, csrf, true)
      : html`<p class="empty">No other user of the firm has an application.</p>`
  }`
      : ''
  }
</section>
<section class="card" aria-labelledby="tokens-heading">
  <h2 id="tokens-heading">Personal access tokens</h2>
  <p class="muted">For MCP clients that cannot sign in with OAuth. A token acts as you on the REST API and the MCP server, for at most 30 days.</p>
  ${created?.kind === 'token' ? shownOnce(created) : ''}
  ${view.error?.section === 'token' ? alert('error', view.error.message) : ''}
  <form class="inline-form" method="post" action="/account/developer/tokens">
    ${hidden({ csrf_token: csrf })}
    <div class="field">
      <label for="token-name">Token name</label>
      <input id="token-name" name="name" type="text" maxlength="255" required>
    </div>
    <div class="field small">
      <label for="token-days">Days</label>
      <input id="token-days" name="days" type="number" min="1" max="30" value="30" required>
    </div>
    <button class="button" type="submit">Create token</button>
  </form>
  ${tokens.length > 0 ? html`<ul class="items">${tokens}</ul>` : html`<p class="empty">You have no active tokens.</p>`}
</section>
${view.webhooks ? webhooksSection(view, view.webhooks) : ''}`,
  });
}
