/**
 * Opens a browser viewer's address as a browser does: the one-time address answers with a
 * redirect to the page and the page's session cookie, which every later request carries
 * (Node's fetch keeps no cookies, so this does it by hand).
 */
export interface BrowsedPage {
  status: number;
  text: string;
  /** The page's own address, once the one-time one was spent. */
  pageUrl?: string;
  /** Fetches `asset` under the page with its session. */
  get(asset: string): Promise<Response>;
}

export async function browse(url: string): Promise<BrowsedPage> {
  const first = await fetch(url, { redirect: 'manual' });
  if (first.status !== 303) return { status: first.status, text: await first.text(), get: () => Promise.reject(new Error('no page')) };
  const pageUrl = new URL(first.headers.get('location') ?? '', url).href;
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0];
  const page = await fetch(pageUrl, { headers: { cookie } });
  return { status: page.status, text: await page.text(), pageUrl, get: (asset) => fetch(`${pageUrl}${asset}`, { headers: { cookie } }) };
}
