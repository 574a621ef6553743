export interface ClientCredentials {
  id: string;
  secret: string;
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * The client id and secret of an HTTP Basic header (RFC 6749 §2.3.1: each form-urlencoded), undefined
 * when the header is not Basic, or 'malformed' when it cannot be decoded.
 */
export function basicCredentials(header: string | undefined): ClientCredentials | 'malformed' | undefined {
  if (!header || !/^basic\s/i.test(header)) return undefined;
  const decoded = Buffer.from(header.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  try {
    return {
      id: formDecode(colon < 0 ? decoded : decoded.slice(0, colon)),
      secret: colon < 0 ? '' : formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    return 'malformed';
  }
}
