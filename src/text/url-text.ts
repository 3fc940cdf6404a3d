/**
 * A path segment that looks like a secret: long, from a token alphabet (base64, base64url,
 * hex, percent-encoding), with both letters and digits. Some console proxies put their ticket
 * in the path (`/websockify/TOKEN`); words such as `virtualmachineinstances` stay readable.
 */
const OPAQUE_SEGMENT = /^(?=[^/]*\d)(?=[^/]*[A-Za-z])[A-Za-z0-9_~+=%-]{16,}$/;
/**
 * A URL inside free text: scheme and authority, then the path up to a query, fragment, quote or
 * space. The scheme is bounded: unbounded, it was tried from every word boundary of a run such
 * as `a.a.a.…` to its end (100 KB of a hostile API's answer held the event loop for seconds).
 */
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]{0,31}:\/\/[^/\s"'?#]*)(\/[^\s"'?#]*)/gi;

/** Punctuation that ends a sentence rather than a path segment (`…/TOKEN: refused`). */
const TRAILING_PUNCTUATION = /[:,.;)\]]+$/;

/** `/websockify/3f9a…` -> `/websockify/***`: every opaque segment of a URL path masked. */
function maskOpaqueSegments(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => {
      const trailer = TRAILING_PUNCTUATION.exec(segment)?.[0] ?? '';
      return OPAQUE_SEGMENT.test(segment.slice(0, segment.length - trailer.length)) ? `***${trailer}` : segment;
    })
    .join('/');
}

/** A URL as it may be shown: scheme, host, port and path (opaque segments masked); no credentials, query or fragment. */
export function safeUrlText(url: URL): string {
  return `${url.protocol}//${url.host}${maskOpaqueSegments(url.pathname)}`;
}

/** Masks the opaque path segments of every URL in `text` (log lines, error messages). */
export function maskUrlPaths(text: string): string {
  return text.replace(URL_IN_TEXT, (_match, origin: string, pathname: string) => origin + maskOpaqueSegments(pathname));
}
