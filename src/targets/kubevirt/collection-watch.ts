/**
 * One kubevirt.io collection kept in step with the API server as client-go's reflector keeps
 * it: list it (in pages, paged-list.ts), then watch from the list's resourceVersion with
 * bookmarks; a stream the server ends (its timeoutSeconds, a restart) or that fails is resumed
 * from the last resourceVersion seen, bookmarks included, so nothing is listed again; a
 * resourceVersion the server no longer holds (410 Gone, as a status or an ERROR event) is
 * listed again, and the caller diffs that list against what it knew (`synced`), so no change
 * is lost or told twice.
 */
import { describeError } from '../../errors.js';
import type { LogLevel } from '../../proxy/types.js';
import { Backoff, pause } from '../../retry/backoff.js';
import { KubeApiError, type KubeAccess } from './kubernetes-api.js';
import { VM_STATE_FIRST_RETRY_MS, VM_STATE_MAX_RETRY_MS } from './limits.js';
import { collectionPath, type ScopedCollection } from './listing.js';
import { listAllPages } from './paged-list.js';
import { paceNextWatch, watchOnce } from './watch-stream.js';

/** What a collection's objects carry that following reads. */
export interface CollectionItem {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

/** Where a followed collection's news goes. */
interface CollectionSink<T> {
  /** The whole collection as listed (first, and again after a 410). */
  synced(items: T[]): void;
  changed(type: 'ADDED' | 'MODIFIED' | 'DELETED', item: T): void;
  log(level: LogLevel, message: string): void;
}

const CHANGES = new Set(['ADDED', 'MODIFIED', 'DELETED']);

/**
 * Follows `collection` until `signal` aborts. A refused list or watch (403, 404) rejects with
 * its KubeApiError: the caller decides whether the collection was optional; anything else is
 * retried with back-off, from the last resourceVersion.
 */
export async function followCollection<T extends CollectionItem>(
  access: KubeAccess,
  collection: ScopedCollection,
  signal: AbortSignal,
  sink: CollectionSink<T>,
): Promise<void> {
  let resourceVersion = '';
  const retries = new Backoff({ firstMs: VM_STATE_FIRST_RETRY_MS, maxMs: VM_STATE_MAX_RETRY_MS });
  while (!signal.aborted) {
    try {
      if (!resourceVersion) {
        const list = await listAllPages<T>(access, collectionPath(collection), signal);
        if (signal.aborted) return;
        sink.synced(list.items);
        resourceVersion = list.resourceVersion;
      }
      const startedAt = Date.now();
      let events = 0;
      const query = { ...collection.query, resourceVersion };
      const end = await watchOnce<T>(access, collection.path, query, signal, (event) => {
        events++;
        if (event.object && event.type && CHANGES.has(event.type)) sink.changed(event.type as 'ADDED', event.object);
        resourceVersion = event.object?.metadata?.resourceVersion || resourceVersion;
      });
      if (end === 'expired') {
        sink.log('debug', `watch of ${collection.path}: resourceVersion ${resourceVersion} expired (410); listing again`);
        resourceVersion = '';
      } else {
        await paceNextWatch(events, startedAt, retries, signal);
      }
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof KubeApiError && (err.status === 403 || err.status === 404 || err.status === 401)) throw err;
      const delay = retries.next();
      sink.log('debug', `watch of ${collection.path}: ${describeError(err)}; trying again in ${delay / 1000} s`);
      await pause(delay, signal);
    }
  }
}
