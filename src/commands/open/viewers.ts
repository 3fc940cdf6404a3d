import type { ViewerLauncher } from '../../viewers/index.js';

/**
 * The browser viewer; its pages and server load only when a console first opens in it. When no
 * browser could be started for a page, `unopened` gets the page's URL (it holds the page's
 * secret: shown to the user once, never logged). Where no window can show (`display` false)
 * no browser is started: `unshown` gets each page's URL, for a port the user forwards.
 */
export async function loadBrowserViewers(
  unopened: (key: number, url: string) => void,
  where: { display: boolean; unshown?: (key: number, url: string) => void } = { display: true },
): Promise<ViewerLauncher> {
  const { BrowserViewers } = await import('../../viewers/browser/browser-viewers.js');
  const browser = new BrowserViewers({ display: where.display });
  browser.on('status', (event) => {
    const url = event.state === 'failed' || event.state === 'no-display' ? browser.urlOf(event.key) : undefined;
    if (url) (event.state === 'no-display' ? (where.unshown ?? unopened) : unopened)(event.key, url);
  });
  return browser;
}
