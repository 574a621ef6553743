import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { REFRESH_RETRY_MS } from '../auth/mcp-oauth/provider.ts';
import { tokenHash } from '../core/secrets.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import {
  consent,
  csrfOf,
  hiddenValue,
  pkce,
  REDIRECT,
  registerClient,
  signInFlow,
  tokenRequest,
  WebClient,
} from './helpers/oauth.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

const DAY = 86_400_000;

/** tools/list over /mcp with a bearer token: status and body. */
function listTools(base: string, token: string) {
  return api(base, '/mcp', {
    token,
    method: 'POST',
    headers: { Accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
}

for (const dialect of dialects) {
  describe(`MCP sign-in over HTTP (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let clock: TestClock;
    let base: string;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      clock = new TestClock();
      // Many registrations from one address: this suite is about sign-in, not the registration limit.
      server = await startTestServer(t.db, { clock, env: { MCP_REGISTRATIONS_PER_MINUTE: '1000' } });
      base = server.url;
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    describe('discovery', () => {
      it('serves protected-resource metadata at the path form and the root form', async () => {
        for (const path of [
          '/.well-known/oauth-protected-resource/mcp',
          '/.well-known/oauth-protected-resource',
        ]) {
          const res = await api(base, path);
          expect(res.status).to.equal(200);
          expect(res.body.resource).to.equal(`${base}/mcp`);
          expect(res.body.authorization_servers).to.deep.equal([base]);
        }
      });

      it('serves authorization-server metadata with S256, registration and Client ID Metadata Documents', async () => {
        const res = await api(base, '/.well-known/oauth-authorization-server');
        expect(res.status).to.equal(200);
        expect(res.body).to.include({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          client_id_metadata_document_supported: true,
          authorization_response_iss_parameter_supported: true,
        });
        expect(res.body.code_challenge_methods_supported).to.deep.equal(['S256']);
        expect(res.body.grant_types_supported).to.deep.equal(['authorization_code', 'refresh_token']);
      });

      it('answers /mcp without a token with 401 and the resource metadata address', async () => {
        const res = await listTools(base, '');
        expect(res.status).to.equal(401);
        expect(res.body.code).to.equal('unauthenticated');
        expect(res.headers.get('www-authenticate')).to.equal(
          `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        );
      });

      it('adds error="invalid_token" to the challenge when a bad token was sent', async () => {
        const res = await listTools(base, 'pds_mcp_nonsense');
        expect(res.status).to.equal(401);
        const challenge = res.headers.get('www-authenticate')!;
        expect(challenge).to.match(
          new RegExp(
            `^Bearer resource_metadata="${base}/\\.well-known/oauth-protected-resource/mcp", error="invalid_token"`,
          ),
        );
      });
    });

    describe('registration', () => {
      it('accepts https and loopback http redirect URIs and refuses others', async () => {
        const ok = await registerClient(base, {
          redirect_uris: ['https://app.example/cb', 'http://localhost:33418/cb', 'http://[::1]:5000/cb'],
        });
        expect(ok.status).to.equal(201);
        expect(ok.body.client_id).to.be.a('string');
        expect(ok.body.client_secret).to.equal(undefined);
        for (const uri of ['http://app.example/cb', 'myapp://cb']) {
          const bad = await registerClient(base, { redirect_uris: [uri] });
          expect(bad.status, uri).to.equal(400);
          expect(bad.body.error).to.equal('invalid_redirect_uri');
        }
      });

      it('refuses a redirect URI that is not a valid URI by RFC 3986, naming redirect_uris[i], and stores nothing', async () => {
        const before = await fx.repos.db('mcp_clients').count({ n: '*' }).first();
        for (const [uris, field] of [
          [['http://127.0.0.1:9999/cb"><img src=x onerror=alert(1)>'], 'redirect_uris[0]'],
          [['https://app.example/cb', 'https://app.example/a b'], 'redirect_uris[1]'],
          [
            ['https://app.example/cb', 'https://app.example/cb', 'https://app.example\\evil'],
            'redirect_uris[2]',
          ],
          [['https://app.example/<cb>'], 'redirect_uris[0]'],
          [['https://app.example/cb\u0007'], 'redirect_uris[0]'],
        ] as const) {
          const bad = await registerClient(base, { redirect_uris: uris });
          expect(bad.status, uris.join(' ')).to.equal(400);
          expect(bad.body.error).to.equal('invalid_redirect_uri');
          const description = (bad.body as { error_description?: string }).error_description!;
          expect(description, uris.join(' ')).to.match(
            new RegExp(`^${field.replace(/[[\]]/g, '\\$&')} holds `),
          );
          expect(description).to.not.include('<img');
        }
        const after = await fx.repos.db('mcp_clients').count({ n: '*' }).first();
        expect(after).to.deep.equal(before);
      });

      it('checks a confidential client secret against its hash, by Basic or in the body', async () => {
        const { body: client } = await registerClient(base, {
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'client_secret_basic',
        });
        expect(client.client_secret).to.be.a('string');
        const stored = await fx.repos.mcpAuth.getClient(client.client_id);
        expect(stored!.client_secret_hash).to.match(/^scrypt\$/);
        expect(stored!.metadata).not.to.include(client.client_secret!);

        const web = new WebClient(base);
        const { code, verifier } = await consent(base, web, client);
        const exchange = {
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT,
        };
        const wrong = await tokenRequest(base, {
          ...exchange,
          client_id: client.client_id,
          client_secret: 'nope',
        });
        expect(wrong.status).to.equal(401);
        expect(wrong.body.error).to.equal('invalid_client');
        const missing = await tokenRequest(base, { ...exchange, client_id: client.client_id });
        expect(missing.status).to.equal(401);
        const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
        const right = await tokenRequest(base, exchange, { Authorization: `Basic ${basic}` });
        expect(right.status).to.equal(200);
        expect(right.body.token_type).to.equal('Bearer');
      });
    });

    describe('sign-in', () => {
      it('sends a browser without a session to the login page and back', async () => {
        const { body: client } = await registerClient(base, { redirect_uris: [REDIRECT] });
        const web = new WebClient(base);
        const { location, params } = await consent(base, web, client);
        expect(location.origin + location.pathname).to.equal(REDIRECT);
        expect(location.searchParams.get('state')).to.equal(params.state);
        expect(location.searchParams.get('iss')).to.equal(base);
        expect(location.searchParams.get('code')).to.match(/^pds_code_/);
      });

      it('names the client, its redirect host and the firm on the consent page', async () => {
        const { body: client } = await registerClient(base, {
          client_name: 'Claude <script>',
          redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
        });
        const web = new WebClient(base);
        await web.signIn('admin@alpha.test');
        const { challenge } = pkce();
        const page = await web.get(
          `/authorize?${new URLSearchParams({
            response_type: 'code',
            client_id: client.client_id,
            redirect_uri: 'https://claude.ai/api/mcp/auth_callback',
            code_challenge: challenge,
            code_challenge_method: 'S256',
          })}`,
        );
        expect(page.status).to.equal(200);
        expect(page.headers.get('content-type')).to.match(/^text\/html/);
        expect(page.headers.get('cache-control')).to.equal('no-store');
        expect(page.text).to.include('Claude &lt;script&gt;');
        expect(page.text).not.to.include('Claude <script>');
        expect(page.text).to.include('claude.ai');
        expect(page.text).to.include('Alpha Partners');
        expect(page.text).to.include('admin@alpha.test');
      });

      it('says the same for a wrong password and an unknown email', async () => {
        const web = new WebClient(base);
        const wrong = await web.signIn('admin@alpha.test', 'wrong-password');
        const unknown = await web.signIn('nobody@alpha.test', 'wrong-password');
        expect(wrong.status).to.equal(401);
        expect(unknown.status).to.equal(401);
        expect(wrong.text).to.include('The email or password is incorrect.');
        expect(unknown.text).to.include('The email or password is incorrect.');
        expect(hiddenValue(wrong.text, 'csrf_token')).to.be.a('string');
        expect(web.cookies.has('pds_session')).to.equal(false);
      });

      it('tells a deactivated user so', async () => {
        await fx.repos.users.create({
          ...fx.viewer.user,
          id: newId(),
          email: 'gone@alpha.test',
          is_active: false,
        });
        const res = await new WebClient(base).signIn('gone@alpha.test');
        expect(res.status).to.equal(403);
        expect(res.text).to.include('This account is deactivated');
      });

      it('sets an HttpOnly SameSite=Lax session cookie and never redirects off the site', async () => {
        const web = new WebClient(base);
        const res = await web.signIn('viewer@alpha.test', 'fixture-password', '//evil.example/steal');
        expect(res.status).to.equal(303);
        expect(res.location).to.equal('/account/connections');
        const cookie = res.headers.getSetCookie().find((c) => c.startsWith('pds_session='))!;
        expect(cookie).to.include('HttpOnly').and.to.include('SameSite=Lax').and.to.include('Path=/');
        const row = await t.db('web_sessions').first();
        expect(row.id_hash).to.have.length(64);
        expect(row.id_hash).not.to.equal(web.cookies.get('pds_session'));
      });

      it('rejects a login form posted without its CSRF token', async () => {
        const web = new WebClient(base);
        await web.get('/login');
        const res = await web.post('/login', { email: 'admin@alpha.test', password: 'fixture-password' });
        expect(res.status).to.equal(403);
        expect(web.cookies.has('pds_session')).to.equal(false);
      });

      it('redirects with access_denied when the user denies', async () => {
        const { body: client } = await registerClient(base, { redirect_uris: [REDIRECT] });
        const web = new WebClient(base);
        await web.signIn('admin@alpha.test');
        const { challenge } = pkce();
        const params = {
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 'xyz',
        };
        const page = await web.get(`/authorize?${new URLSearchParams(params)}`);
        const res = await web.post('/authorize', {
          ...params,
          csrf_token: csrfOf(page.text),
          decision: 'deny',
        });
        expect(res.status).to.equal(303);
        const location = new URL(res.location!);
        expect(location.searchParams.get('error')).to.equal('access_denied');
        expect(location.searchParams.get('state')).to.equal('xyz');
        expect(location.searchParams.get('iss')).to.equal(base);
        expect(location.searchParams.has('code')).to.equal(false);
      });

      it('rejects a consent posted with a wrong CSRF token', async () => {
        const { body: client } = await registerClient(base, { redirect_uris: [REDIRECT] });
        const web = new WebClient(base);
        await web.signIn('admin@alpha.test');
        const { challenge } = pkce();
        const res = await web.post('/authorize', {
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          csrf_token: 'forged',
          decision: 'allow',
        });
        expect(res.status).to.equal(403);
        expect(res.location).to.equal(null);
      });

      it('answers an unregistered redirect URI with 400 and no redirect', async () => {
        const { body: client } = await registerClient(base, { redirect_uris: [REDIRECT] });
        const { challenge } = pkce();
        const res = await new WebClient(base).get(
          `/authorize?${new URLSearchParams({
            response_type: 'code',
            client_id: client.client_id,
            redirect_uri: 'https://evil.example/cb',
            code_challenge: challenge,
            code_challenge_method: 'S256',
          })}`,
        );
        expect(res.status).to.equal(400);
        expect(res.location).to.equal(null);
        expect(JSON.parse(res.text).error).to.equal('invalid_request');
      });

      it('refuses an authorization request for another resource', async () => {
        const { body: client } = await registerClient(base, { redirect_uris: [REDIRECT] });
        const { challenge } = pkce();
        const res = await new WebClient(base).get(
          `/authorize?${new URLSearchParams({
            response_type: 'code',
            client_id: client.client_id,
            redirect_uri: REDIRECT,
            code_challenge: challenge,
            code_challenge_method: 'S256',
            resource: 'https://other.example/mcp',
          })}`,
        );
        expect(res.status).to.equal(302);
        expect(new URL(res.location!).searchParams.get('error')).to.equal('invalid_target');
      });
    });

    describe('tokens', () => {
      it('issues tokens bound to the resource that call /mcp', async () => {
        const { tokens } = await signInFlow(base);
        expect(tokens.access_token).to.match(/^pds_mcp_/);
        // As long as the sign-in: clients that never refresh stay connected.
        expect(tokens.expires_in).to.equal(30 * 86_400);
        const row = await t.db('access_tokens').where({ kind: 'mcp' }).orderBy('created_at', 'desc').first();
        expect(row).to.include({ audience: 'mcp', resource: `${base}/mcp` });
        expect(row.grant_id).to.be.a('string');
        const res = await listTools(base, tokens.access_token);
        expect(res.status).to.equal(200);
        expect(res.body.result.tools.map((x: { name: string }) => x.name)).to.include('list_companies');
      });

      it('is refused by the REST API', async () => {
        const { tokens } = await signInFlow(base);
        const res = await api(base, '/v1/companies/', { token: tokens.access_token });
        expect(res.status).to.equal(401);
      });

      it('rejects a code verifier that does not match the challenge', async () => {
        const { body: client } = await registerClient(base, { redirect_uris: [REDIRECT] });
        const { code } = await consent(base, new WebClient(base), client);
        const res = await tokenRequest(base, {
          grant_type: 'authorization_code',
          client_id: client.client_id,
          code,
          code_verifier: pkce().verifier,
          redirect_uri: REDIRECT,
        });
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal('invalid_grant');
      });

      it('rejects a code exchanged with another redirect URI or resource', async () => {
        const { body: client } = await registerClient(base, {
          redirect_uris: [REDIRECT, 'http://127.0.0.1:9/other'],
        });
        const { code, verifier } = await consent(base, new WebClient(base), client);
        const common = {
          grant_type: 'authorization_code',
          client_id: client.client_id,
          code,
          code_verifier: verifier,
        };
        const redirect = await tokenRequest(base, { ...common, redirect_uri: 'http://127.0.0.1:9/other' });
        expect(redirect.body.error).to.equal('invalid_grant');
        const resource = await tokenRequest(base, {
          ...common,
          redirect_uri: REDIRECT,
          resource: 'https://other.example/mcp',
        });
        expect(resource.body.error).to.equal('invalid_target');
        const good = await tokenRequest(base, { ...common, redirect_uri: REDIRECT });
        expect(good.status).to.equal(200);
      });

      it('fails a code used twice and revokes the tokens of its first use', async () => {
        const { body: client } = await registerClient(base, { redirect_uris: [REDIRECT] });
        const { code, verifier } = await consent(base, new WebClient(base), client);
        const form = {
          grant_type: 'authorization_code',
          client_id: client.client_id,
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT,
        };
        const first = await tokenRequest(base, form);
        expect(first.status).to.equal(200);
        expect((await listTools(base, first.body.access_token)).status).to.equal(200);
        const second = await tokenRequest(base, form);
        expect(second.status).to.equal(400);
        expect(second.body.error).to.equal('invalid_grant');
        expect((await listTools(base, first.body.access_token)).status).to.equal(401);
        const refresh = await tokenRequest(base, {
          grant_type: 'refresh_token',
          client_id: client.client_id,
          refresh_token: first.body.refresh_token,
        });
        expect(refresh.body.error).to.equal('invalid_grant');
      });

      it('refuses a token issued for another resource', async () => {
        const { tokens } = await signInFlow(base);
        await t
          .db('access_tokens')
          .where({ token_hash: tokenHash(tokens.access_token) })
          .update({ resource: 'https://other.example/mcp' });
        const res = await listTools(base, tokens.access_token);
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.include('error="invalid_token"');
      });

      it('rotates refresh tokens and revokes the sign-in when one is reused', async () => {
        const { client, tokens } = await signInFlow(base);
        const refresh = (token: string) =>
          tokenRequest(base, {
            grant_type: 'refresh_token',
            client_id: client.client_id,
            refresh_token: token,
          });
        const second = await refresh(tokens.refresh_token);
        expect(second.status).to.equal(200);
        expect(second.body.refresh_token).not.to.equal(tokens.refresh_token);
        expect(second.body.access_token).not.to.equal(tokens.access_token);
        expect((await listTools(base, second.body.access_token)).status).to.equal(200);

        clock.advance(REFRESH_RETRY_MS + 1000);
        const reused = await refresh(tokens.refresh_token);
        expect(reused.status).to.equal(400);
        expect(reused.body.error).to.equal('invalid_grant');
        expect((await listTools(base, tokens.access_token)).status).to.equal(401);
        expect((await listTools(base, second.body.access_token)).status).to.equal(401);
        expect((await refresh(second.body.refresh_token)).body.error).to.equal('invalid_grant');
      });

      it('gives a refresh retried within seconds the same new tokens, in parallel too, and revokes on a later reuse', async () => {
        const { client, tokens } = await signInFlow(base);
        const refresh = (token: string) =>
          tokenRequest(base, {
            grant_type: 'refresh_token',
            client_id: client.client_id,
            refresh_token: token,
          });
        const [first, racer] = await Promise.all([
          refresh(tokens.refresh_token),
          refresh(tokens.refresh_token),
        ]);
        expect(first.status).to.equal(200);
        expect(racer.status).to.equal(200);
        expect(racer.body).to.deep.equal(first.body);
        clock.advance(REFRESH_RETRY_MS - 2000);
        const retry = await refresh(tokens.refresh_token);
        expect(retry.status).to.equal(200);
        expect(retry.body).to.deep.equal(first.body);
        expect((await listTools(base, first.body.access_token)).status).to.equal(200);

        clock.advance(3000);
        const late = await refresh(tokens.refresh_token);
        expect(late.status).to.equal(400);
        expect(late.body.error).to.equal('invalid_grant');
        expect((await listTools(base, first.body.access_token)).status).to.equal(401);
        expect((await refresh(first.body.refresh_token)).body.error).to.equal('invalid_grant');
      });

      it('does not replay a retried refresh once its new refresh token was used', async () => {
        const { client, tokens } = await signInFlow(base);
        const refresh = (token: string) =>
          tokenRequest(base, {
            grant_type: 'refresh_token',
            client_id: client.client_id,
            refresh_token: token,
          });
        const second = await refresh(tokens.refresh_token);
        const third = await refresh(second.body.refresh_token);
        expect(third.status).to.equal(200);
        const reused = await refresh(tokens.refresh_token);
        expect(reused.body.error).to.equal('invalid_grant');
        expect((await listTools(base, third.body.access_token)).status).to.equal(401);
      });

      it('requires redirect_uri at the token step when the authorization request named it (RFC 6749 §4.1.3)', async () => {
        const { body: client } = await registerClient(base, { redirect_uris: [REDIRECT] });
        const named = await consent(base, new WebClient(base), client);
        const common = {
          grant_type: 'authorization_code',
          client_id: client.client_id,
          resource: `${base}/mcp`,
        };
        const without = await tokenRequest(base, {
          ...common,
          code: named.code,
          code_verifier: named.verifier,
        });
        expect(without.status).to.equal(400);
        expect(without.body.error).to.equal('invalid_grant');
        expect(without.body.error_description).to.match(/redirect_uri is required/);
        const withIt = await tokenRequest(base, {
          ...common,
          code: named.code,
          code_verifier: named.verifier,
          redirect_uri: REDIRECT,
        });
        expect(withIt.status).to.equal(200);

        const omitted = await consent(base, new WebClient(base), client, { redirectUri: null });
        const plain = await tokenRequest(base, {
          ...common,
          code: omitted.code,
          code_verifier: omitted.verifier,
        });
        expect(plain.status).to.equal(200);
      });

      it('refuses a refresh token presented by another client', async () => {
        const { tokens } = await signInFlow(base);
        const { body: other } = await registerClient(base, { redirect_uris: [REDIRECT] });
        const res = await tokenRequest(base, {
          grant_type: 'refresh_token',
          client_id: other.client_id,
          refresh_token: tokens.refresh_token,
        });
        expect(res.body.error).to.equal('invalid_grant');
      });

      it('keeps an access token valid for the whole sign-in and ends every token 30 days after it', async () => {
        const { client, tokens } = await signInFlow(base);
        const refresh = (token: string) =>
          tokenRequest(base, {
            grant_type: 'refresh_token',
            client_id: client.client_id,
            refresh_token: token,
          });
        // A client that never refreshes still gets in on day 29.
        clock.advance(29 * DAY);
        expect((await listTools(base, tokens.access_token)).status).to.equal(200);
        const late = await refresh(tokens.refresh_token);
        expect(late.status).to.equal(200);
        expect(late.body.expires_in).to.equal(DAY / 1000);
        let current = late.body.refresh_token;

        // Half an hour before the end, a new access token lives only as long as the sign-in.
        clock.advance(DAY - 1800_000);
        const last = await refresh(current);
        expect(last.status).to.equal(200);
        expect(last.body.expires_in).to.equal(1800);
        current = last.body.refresh_token;

        clock.advance(1800_000);
        expect((await listTools(base, tokens.access_token)).status).to.equal(401);
        expect((await listTools(base, last.body.access_token)).status).to.equal(401);
        const ended = await refresh(current);
        expect(ended.status).to.equal(400);
        expect(ended.body.error).to.equal('invalid_grant');
        expect(ended.body.error_description).to.include('30 days');
      });

      it('revokes a sign-in through RFC 7009 revocation of its refresh token', async () => {
        const { client, tokens } = await signInFlow(base);
        const res = await fetch(`${base}/revoke`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ client_id: client.client_id, token: tokens.refresh_token }),
        });
        expect(res.status).to.equal(200);
        expect((await listTools(base, tokens.access_token)).status).to.equal(401);
      });
    });

    describe('account pages', () => {
      it('lists my connections and revoking one makes the client next call 401', async () => {
        const { web, tokens } = await signInFlow(base);
        expect((await listTools(base, tokens.access_token)).status).to.equal(200);
        const page = await web.get('/account/connections');
        expect(page.status).to.equal(200);
        expect(page.text).to.include('Test Client');
        const grant = await t
          .db('mcp_grants')
          .where({ user_id: fx.admin.user.id })
          .whereNull('revoked_at')
          .orderBy('created_at', 'desc')
          .first();
        expect(grant.last_used_at).to.equal(clock.now().toISOString());
        expect(page.text).to.include(`/account/connections/${grant.id}/revoke`);

        const revoked = await web.post(`/account/connections/${grant.id}/revoke`, {
          csrf_token: csrfOf(page.text),
        });
        expect(revoked.status).to.equal(303);
        expect((await listTools(base, tokens.access_token)).status).to.equal(401);
        const after = await web.get('/account/connections?notice=connection-revoked');
        expect(after.text).not.to.include(`/account/connections/${grant.id}/revoke`);
      });

      it('rejects a revocation posted without the CSRF token, and another user connection is not found', async () => {
        const { web, tokens } = await signInFlow(base);
        const grant = await t.db('mcp_grants').whereNull('revoked_at').orderBy('created_at', 'desc').first();
        const forged = await web.post(`/account/connections/${grant.id}/revoke`, { csrf_token: 'forged' });
        expect(forged.status).to.equal(403);
        const missing = await web.post(`/account/connections/${grant.id}/revoke`, {});
        expect(missing.status).to.equal(403);
        expect((await listTools(base, tokens.access_token)).status).to.equal(200);

        const viewer = new WebClient(base);
        await viewer.signIn('viewer@alpha.test');
        const page = await viewer.get('/account/connections');
        const foreign = await viewer.post(`/account/connections/${grant.id}/revoke`, {
          csrf_token: csrfOf(page.text),
        });
        expect(foreign.status).to.equal(404);
        expect((await listTools(base, tokens.access_token)).status).to.equal(200);
      });

      it('sends a signed-out visitor to the login page', async () => {
        const res = await new WebClient(base).get('/account/developer');
        expect(res.status).to.equal(303);
        expect(res.location).to.equal('/login?next=%2Faccount%2Fdeveloper');
      });

      it('creates an application whose secret, shown once, works at /o/token/', async () => {
        const web = new WebClient(base);
        await web.signIn('editor@alpha.test');
        const page = await web.get('/account/developer');
        expect(page.status).to.equal(200);
        const created = await web.post('/account/developer/applications', {
          csrf_token: csrfOf(page.text),
          name: 'Nightly export',
        });
        expect(created.status).to.equal(201);
        const clientId = /id="new-client-id" type="text" readonly value="([^"]+)"/.exec(created.text)![1]!;
        const secret = /id="new-client-secret" type="text" readonly value="([^"]+)"/.exec(created.text)![1]!;
        const res = await fetch(`${base}/o/token/`, {
          method: 'POST',
          headers: {
            Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
            'Content-Type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
        });
        expect(res.status).to.equal(200);
        const { access_token } = (await res.json()) as { access_token: string };
        expect((await api(base, '/v1/companies/', { token: access_token })).status).to.equal(200);

        const again = await web.get('/account/developer');
        expect(again.text).to.include('Nightly export');
        expect(again.text).not.to.include(secret);
      });

      it('rejects an application without a name with the reason', async () => {
        const web = new WebClient(base);
        await web.signIn('editor@alpha.test');
        const page = await web.get('/account/developer');
        const res = await web.post('/account/developer/applications', {
          csrf_token: csrfOf(page.text),
          name: ' ',
        });
        expect(res.status).to.equal(400);
        expect(res.text).to.include('Application name must not be empty.');
      });

      it('lets admins see and revoke the firm applications, and no one else', async () => {
        const editor = new WebClient(base);
        await editor.signIn('editor@alpha.test');
        let page = await editor.get('/account/developer');
        await editor.post('/account/developer/applications', {
          csrf_token: csrfOf(page.text),
          name: 'Editor app',
        });
        const app = await t.db('oauth_applications').where({ name: 'Editor app' }).first();

        const viewer = new WebClient(base);
        await viewer.signIn('viewer@alpha.test');
        page = await viewer.get('/account/developer');
        expect(page.text).not.to.include('Editor app');
        const denied = await viewer.post(`/account/developer/applications/${app.id}/revoke`, {
          csrf_token: csrfOf(page.text),
        });
        expect(denied.status).to.equal(404);

        const admin = new WebClient(base);
        await admin.signIn('admin@alpha.test');
        page = await admin.get('/account/developer');
        expect(page.text).to.include('Editor app');
        const revoked = await admin.post(`/account/developer/applications/${app.id}/revoke`, {
          csrf_token: csrfOf(page.text),
        });
        expect(revoked.status).to.equal(303);
        const row = await t.db('oauth_applications').where({ id: app.id }).first();
        expect(row.revoked_at).to.be.a('string');

        const outsider = new WebClient(base);
        await outsider.signIn('admin@bravo.test');
        page = await outsider.get('/account/developer');
        expect(page.text).not.to.include('Editor app');
      });

      it('creates a personal access token that works on /mcp, and revokes it', async () => {
        const web = new WebClient(base);
        await web.signIn('viewer@alpha.test');
        let page = await web.get('/account/developer');
        const created = await web.post('/account/developer/tokens', {
          csrf_token: csrfOf(page.text),
          name: 'Laptop',
          days: '7',
        });
        expect(created.status).to.equal(201);
        const token = /id="new-token" type="text" readonly value="([^"]+)"/.exec(created.text)![1]!;
        expect((await listTools(base, token)).status).to.equal(200);
        const row = await t.db('access_tokens').where({ name: 'Laptop' }).first();
        expect(row.expires_at).to.equal(new Date(clock.now().getTime() + 7 * DAY).toISOString());

        const tooLong = await web.post('/account/developer/tokens', {
          csrf_token: csrfOf(page.text),
          name: 'Forever',
          days: '31',
        });
        expect(tooLong.status).to.equal(400);

        page = await web.get('/account/developer');
        const revoked = await web.post(`/account/developer/tokens/${row.id}/revoke`, {
          csrf_token: csrfOf(page.text),
        });
        expect(revoked.status).to.equal(303);
        expect((await listTools(base, token)).status).to.equal(401);
      });

      it('signs out', async () => {
        const web = new WebClient(base);
        await web.signIn('viewer@alpha.test');
        const page = await web.get('/account/connections');
        const out = await web.post('/logout', { csrf_token: csrfOf(page.text) });
        expect(out.status).to.equal(303);
        expect(web.cookies.has('pds_session')).to.equal(false);
        expect((await web.get('/account/connections')).status).to.equal(303);
      });
    });
  });

  describe(`MCP sign-in limits and metadata documents (${dialect.name}) @db`, () => {
    let t: TestDb;
    let server: RunningServer;
    let documents: Server;
    let documentBase: string;
    const served = new Map<string, unknown>();

    before(async () => {
      t = await dialect.open();
      await buildFixture(t.db);
      server = await startTestServer(t.db, {
        env: { MCP_ALLOW_LOOPBACK_CLIENT_METADATA: 'true', MCP_ACCESS_TOKEN_TTL: '600', TRUST_PROXY: 'true' },
      });
      documents = createServer((req, res) => {
        const doc = served.get(req.url ?? '');
        res.writeHead(doc ? 200 : 404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(doc ?? { error: 'not found' }));
      });
      await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
      documentBase = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
    });
    after(async () => {
      documents?.close();
      await server?.close();
      await t?.drop();
    });

    function authorizeWith(clientId: string) {
      const { challenge } = pkce();
      return new WebClient(server.url).get(
        `/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        })}`,
      );
    }

    it('accepts a client id metadata document whose client_id is its URL, and caches it', async () => {
      const url = `${documentBase}/good.json`;
      served.set('/good.json', { client_id: url, client_name: 'Doc Client', redirect_uris: [REDIRECT] });
      const res = await authorizeWith(url);
      expect(res.status).to.equal(302);
      expect(res.location).to.match(/^\/login\?next=/);
      const row = await t.db('mcp_clients').where({ client_id: url }).first();
      expect(JSON.parse(row.metadata)).to.include({
        client_name: 'Doc Client',
        token_endpoint_auth_method: 'none',
      });
    });

    it('refuses a metadata document whose client_id differs or that has no redirect URIs', async () => {
      served.set('/liar.json', { client_id: 'https://elsewhere.example/c.json', redirect_uris: [REDIRECT] });
      served.set('/empty.json', { client_id: `${documentBase}/empty.json`, redirect_uris: [] });
      for (const path of ['/liar.json', '/empty.json', '/missing.json']) {
        const res = await authorizeWith(`${documentBase}${path}`);
        expect(res.status, path).to.equal(400);
        expect(JSON.parse(res.text).error).to.equal('invalid_client');
      }
    });

    it('gives access tokens the lifetime of MCP_ACCESS_TOKEN_TTL', async () => {
      const { tokens } = await signInFlow(
        server.url,
        new WebClient(server.url, { 'X-Forwarded-For': '10.0.2.1' }),
      );
      expect(tokens.expires_in).to.equal(600);
    });

    it('limits failed logins to 10 a minute per account and address, then 429 with Retry-After', async () => {
      const web = new WebClient(server.url, { 'X-Forwarded-For': '10.0.0.1' });
      for (let i = 0; i < 10; i++) {
        expect((await web.signIn('admin@alpha.test', 'wrong-password')).status).to.equal(401);
      }
      const blocked = await web.signIn('admin@alpha.test', 'fixture-password');
      expect(blocked.status).to.equal(429);
      expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 60);
      expect(blocked.text).to.include('Too many failed sign-in attempts');
      expect(web.cookies.has('pds_session')).to.equal(false);
      const owner = new WebClient(server.url, { 'X-Forwarded-For': '10.0.0.99' });
      expect((await owner.signIn('admin@alpha.test', 'fixture-password')).status).to.equal(303);
    });

    it('limits failed logins to 50 a minute per address over all accounts', async () => {
      const web = new WebClient(server.url, { 'X-Forwarded-For': '10.0.1.1' });
      for (let i = 0; i < 50; i++) {
        expect((await web.signIn(`guess${i}@alpha.test`, 'wrong-password')).status).to.equal(401);
      }
      expect((await web.signIn('viewer@alpha.test')).status).to.equal(429);
      const elsewhere = new WebClient(server.url, { 'X-Forwarded-For': '10.0.1.2' });
      expect((await elsewhere.signIn('viewer@alpha.test')).status).to.equal(303);
    });
  });

  describe(`MCP metadata documents are off by default (${dialect.name}) @db`, () => {
    let t: TestDb;
    let server: RunningServer;

    before(async () => {
      t = await dialect.open();
      server = await startTestServer(t.db);
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    it('does not fetch an http loopback client id', async () => {
      const { challenge } = pkce();
      const res = await new WebClient(server.url).get(
        `/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: `${server.url}/.well-known/oauth-authorization-server`,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        })}`,
      );
      expect(res.status).to.equal(400);
      expect(JSON.parse(res.text).error).to.equal('invalid_client');
    });
  });
}

describe('MCP sign-in behind an https PUBLIC_URL', () => {
  let t: TestDb;
  let server: RunningServer;

  before(async () => {
    t = await dialects[0]!.open();
    await buildFixture(t.db);
    server = await startTestServer(t.db, { env: { PUBLIC_URL: 'https://portfolio.example' } });
  });
  after(async () => {
    await server?.close();
    await t?.drop();
  });

  it('uses __Host- prefixed Secure cookies and https addresses', async () => {
    const web = new WebClient(server.url);
    const login = await web.get('/login');
    expect(login.headers.getSetCookie()[0]).to.match(/^__Host-pds_login_csrf=.*; Secure$/);
    const res = await web.signIn('admin@alpha.test');
    expect(res.status).to.equal(303);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__Host-pds_session='))!;
    expect(cookie).to.include('Secure').and.to.include('HttpOnly').and.to.include('Path=/');
    expect(cookie).not.to.include('Domain');
    expect((await web.get('/account/connections')).status).to.equal(200);
    const metadata = await api(server.url, '/.well-known/oauth-protected-resource/mcp');
    expect(metadata.body.resource).to.equal('https://portfolio.example/mcp');
  });
});
