import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { type Resolve, resolveWithDns } from '../core/public-address.ts';
import { isAllowedAddress, webhookUrlProblem } from '../core/webhook-url.ts';

export interface PostOptions {
  /** Loopback addresses (and http to them) accepted: development and tests only. */
  allowPrivate: boolean;
  timeoutMs: number;
  /** The most bytes of the answer read; the rest is cut. */
  maxResponseBytes: number;
  resolve?: Resolve;
}

export interface PostResult {
  statusCode: number | null;
  /** Why the attempt failed; null on a 2xx. */
  error: string | null;
  durationMs: number;
}

/**
 * POSTs one webhook. Every address the host resolves to is checked at connect time (a custom lookup, so
 * no other resolution can slip in); redirects are not followed; the exchange is bounded in time and the
 * answer in size.
 */
export function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const refused = webhookUrlProblem(target, options.allowPrivate);
  if (refused) return Promise.resolve({ statusCode: null, error: `url ${refused}`, durationMs: 0 });
  const url = new URL(target);
  const resolve = options.resolve ?? resolveWithDns;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const bad = addresses.find((a) => !isAllowedAddress(a.address, options.allowPrivate));
        if (addresses.length === 0) return callback(new Error(`${hostname} does not resolve`), '', 0);
        if (bad)
          return callback(
            new Error(`${hostname} resolves to ${bad.address}, which is not a public address`),
            '',
            0,
          );
        if (lookupOptions.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: Error) => callback(err, '', 0),
    );
  };
  const client = url.protocol === 'https:' ? https : http;

  return new Promise<PostResult>((done) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      done({ statusCode, error, durationMs: elapsed() });
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        lookup,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'portfolio-data-service-webhooks',
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const verdict =
          status >= 200 && status < 300
            ? null
            : status >= 300 && status < 400
              ? `answered a redirect (${status}), which is not followed`
              : `answered ${status}`;
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          // Only the status matters; an answer beyond the cap is cut rather than read.
          if (size > options.maxResponseBytes) finish(status, verdict);
        });
        response.on('end', () => finish(status, verdict));
        response.on('error', () => finish(status, verdict));
      },
    );
    const timer = setTimeout(
      () => finish(null, `no answer within ${options.timeoutMs / 1000} s`),
      options.timeoutMs,
    );
    request.on('error', (err) => finish(null, err.message));
    request.end(body);
  });
}
