import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLoopbackAddress, isPublicAddress, type Resolve } from '../../core/public-address.ts';

export { type Resolve, resolveWithDns } from '../../core/public-address.ts';

export interface DocumentFetchOptions {
  resolve: Resolve;
  /** Also accept loopback addresses (tests and local development). */
  allowLoopback: boolean;
  maxBytes: number;
  /** For the whole exchange: connecting, the answer and its body. */
  timeoutMs: number;
}

/**
 * GETs a small JSON document from a public address only: the host is resolved once, every address
 * it resolves to must be public, and the connection goes to the checked address (a custom lookup,
 * so no second resolution can swap it). Redirects are refused and the body is cut at maxBytes.
 */
export async function fetchPublicDocument(target: string, options: DocumentFetchOptions): Promise<string> {
  const url = new URL(target);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`${url.protocol} is not fetched`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await options.resolve(host);
  if (addresses.length === 0) throw new Error(`${host} does not resolve`);
  for (const { address } of addresses) {
    const allowed = isPublicAddress(address) || (options.allowLoopback && isLoopbackAddress(address));
    if (!allowed) throw new Error(`${host} resolves to ${address}, which is not a public address`);
  }
  const checked = addresses[0]!;
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [checked]);
    else callback(null, checked.address, checked.family);
  };
  const client = url.protocol === 'https:' ? https : http;

  return new Promise<string>((resolve, reject) => {
    const request = client.get(
      url,
      { headers: { Accept: 'application/json' }, lookup: pinned },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.destroy();
          fail(new Error(`GET ${target} answered a redirect (${status}), which is not followed`));
          return;
        }
        if (status < 200 || status >= 300) {
          response.destroy();
          fail(new Error(`GET ${target} answered ${status}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            response.destroy();
            fail(new Error(`the document is larger than ${options.maxBytes / 1024} KiB`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(timer);
          resolve(Buffer.concat(chunks).toString('utf8'));
        });
        response.on('error', fail);
      },
    );
    const timer = setTimeout(
      () => fail(new Error(`GET ${target} took longer than ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    function fail(err: Error): void {
      clearTimeout(timer);
      request.destroy();
      reject(err);
    }
    request.on('error', fail);
  });
}
