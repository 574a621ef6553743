import { isIPv6 } from 'node:net';

// RFC 3986's grammar for an absolute URI (section 3, with appendix A's character classes). WHATWG's
// URL parser, which `new URL` follows, takes far more (quotes, angle brackets, spaces, backslashes)
// and mends it; a URI that is stored and handed back must be one by the RFC, as written.

const UNRESERVED = 'A-Za-z0-9\\-._~';
const SUB_DELIMS = "!$&'()*+,;=";
const PCT_ENCODED = '%[0-9A-Fa-f]{2}';
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT_ENCODED})`;

/** Every character that may appear somewhere in a URI; anything else must be percent-encoded. */
const URI_CHARACTER = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const USERINFO = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT_ENCODED})*$`);
const REG_NAME = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT_ENCODED})*$`);
const IP_FUTURE = new RegExp(`^v[0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+$`);
const PORT = /^[0-9]*$/;
const PATH = new RegExp(`^(?:${PCHAR}|/)*$`);
const QUERY_OR_FRAGMENT = new RegExp(`^(?:${PCHAR}|[/?])*$`);
/** Appendix B: scheme, authority (after `//`), path, query, fragment; every string matches. */
const PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

function hostProblem(host: string): string | undefined {
  if (host.startsWith('[')) {
    const inner = host.endsWith(']') ? host.slice(1, -1) : '';
    return isIPv6(inner) || IP_FUTURE.test(inner) ? undefined : 'its host is not a valid IP literal';
  }
  return REG_NAME.test(host) ? undefined : 'its host holds a character a host name may not';
}

function authorityProblem(authority: string): string | undefined {
  const at = authority.lastIndexOf('@');
  if (at >= 0 && !USERINFO.test(authority.slice(0, at))) return 'its user information is not valid';
  const hostPort = authority.slice(at + 1);
  // The port follows the last colon, unless that colon is inside an IP literal.
  const colon = hostPort.lastIndexOf(':');
  const hasPort = colon >= 0 && colon > hostPort.lastIndexOf(']');
  if (hasPort && !PORT.test(hostPort.slice(colon + 1))) return 'its port is not a number';
  return hostProblem(hasPort ? hostPort.slice(0, colon) : hostPort);
}

/**
 * Why a text is not an absolute URI by RFC 3986 (a scheme, then characters of the RFC's set, `%` only
 * in escapes), or undefined when it is one. A fragment is allowed; callers that forbid one say so.
 */
export function uriProblem(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    if (!URI_CHARACTER.test(text[i]!))
      return `holds ${JSON.stringify(text[i])} at position ${i + 1}, which a URI may not (RFC 3986): percent-encode it`;
  }
  const [, scheme, authority, path, query, fragment] = PARTS.exec(text)!;
  if (scheme === undefined || !SCHEME.test(scheme))
    return 'is not an absolute URI: it needs a scheme such as https:';
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return 'holds a "%" that does not start a %XX escape';
  const where = authority !== undefined ? authorityProblem(authority) : undefined;
  if (where) return `is not a valid URI (RFC 3986): ${where}`;
  if (!PATH.test(path!)) return 'is not a valid URI (RFC 3986): its path holds "[" or "]"';
  if (query !== undefined && !QUERY_OR_FRAGMENT.test(query))
    return 'is not a valid URI (RFC 3986): its query holds "[", "]" or "#"';
  if (fragment !== undefined && !QUERY_OR_FRAGMENT.test(fragment))
    return 'is not a valid URI (RFC 3986): its fragment holds "[", "]" or "#"';
  return undefined;
}
