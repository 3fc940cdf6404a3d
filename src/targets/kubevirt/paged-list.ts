/**
 * A Kubernetes list read in pages (limit/continue), as client-go's pager reads it: each page asks
 * for at most LIST_PAGE_SIZE items and goes on from the previous page's `metadata.continue` until
 * there is none. A continue token the API server no longer honours (410 Gone, reason Expired: etcd
 * compacted the list's resourceVersion while it was being read) makes it list again in one
 * request without a limit, the pager's fallback, rather than page again into another expiry.
 */
import { KubeApiError, getJson, type KubeAccess } from './kubernetes-api.js';
import { LIST_PAGE_SIZE } from './limits.js';

interface ListPage<T> {
  items?: T[];
  metadata?: { continue?: string; resourceVersion?: string };
}

/** Every item of the list at `path` (which may carry a query already), and the last page's resourceVersion. */
export async function listAllPages<T>(
  access: KubeAccess,
  path: string,
  signal?: AbortSignal,
  pageSize = LIST_PAGE_SIZE,
): Promise<{ items: T[]; resourceVersion: string }> {
  const items: T[] = [];
  let token = '';
  for (;;) {
    let page: ListPage<T>;
    try {
      page = await getJson<ListPage<T>>(access, withQuery(path, { limit: String(pageSize), continue: token }), signal);
    } catch (err) {
      if (!(token && err instanceof KubeApiError && err.status === 410)) throw err;
      const whole = await getJson<ListPage<T>>(access, path, signal);
      return { items: whole.items ?? [], resourceVersion: whole.metadata?.resourceVersion ?? '' };
    }
    items.push(...(page.items ?? []));
    token = page.metadata?.continue ?? '';
    if (!token) return { items, resourceVersion: page.metadata?.resourceVersion ?? '' };
  }
}

function withQuery(path: string, params: Record<string, string>): string {
  const query = new URLSearchParams(Object.entries(params).filter(([, value]) => value !== '')).toString();
  return query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
}
