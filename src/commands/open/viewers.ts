import type { ViewerLauncher } from '../../viewers/viewer-router.js';

/**
 * The browser viewer; its pages and server load only when a console first opens in it. When no
 * browser could be started for a page, `unopened` gets the page's URL (it holds the page's
 * secret: shown to the user once, never logged).
 */
export async function loadBrowserViewers(unopened: (key: number, url: string) => void): Promise<ViewerLauncher> {
  const { BrowserViewers } = await import('../../viewers/browser/browser-viewers.js');
  const browser = new BrowserViewers();
  browser.on('status', (event) => {
    const url = event.state === 'failed' ? browser.urlOf(event.key) : undefined;
    if (url) unopened(event.key, url);
  });
  return browser;
}
