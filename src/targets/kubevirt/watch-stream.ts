/**
 * One watch request on a kubevirt.io collection (a namespace's, or every namespace's), its
 * newline-delimited JSON events handed on in order: what the per-VM state follower (state.ts)
 * and the listing follower (listing-watch.ts) both read. kube-apiserver answers a watch from a
 * resourceVersion it no longer holds either with HTTP 410 or, once the stream began, with an
 * ERROR event whose Status has code 410 (k8s.io/apiserver cacher): both end as `expired`, after
 * which the caller lists again.
 */
import http from 'node:http';
import https from 'node:https';
import { describeError, VconsoleError } from '../../errors.js';
import { HTTP_REQUEST_TIMEOUT_MS } from '../../limits.js';
import { REJECTION_BODY_LIMIT_BYTES } from '../dial/limits.js';
import { Backoff, pause } from '../../retry/backoff.js';
import { VMI_WATCH_GRACE_MS, VMI_WATCH_TIMEOUT_S, VM_STATE_FIRST_RETRY_MS } from './limits.js';
import { KubeApiError, requestOptions, statusMessage, type KubeAccess } from './kubernetes-api.js';

/** One event of a watch: ADDED, MODIFIED, DELETED or BOOKMARK (ERROR ends the stream). */
interface WatchEvent<T> {
  type?: string;
  object?: T & { metadata?: { resourceVersion?: string } };
}

/** How one watch stream ended: cleanly (resume from the last version) or with 410 (list again). */
type WatchEnd = 'ended' | 'expired';

/**
 * Watches `path` (a collection, no query) from `query.resourceVersion` with bookmarks, the
 * server asked to end the stream after VMI_WATCH_TIMEOUT_S. Resolves when the stream ends (or
 * the signal aborts); rejects with a KubeApiError for a refused watch or an ERROR event other
 * than 410.
 */
export function watchOnce<T>(
  access: KubeAccess,
  path: string,
  query: Record<string, string>,
  signal: AbortSignal,
  onEvent: (event: WatchEvent<T>) => void,
): Promise<WatchEnd> {
  const params = new URLSearchParams({
    ...Object.fromEntries(Object.entries(query).filter(([, value]) => value !== '')),
    watch: 'true',
    allowWatchBookmarks: 'true',
    timeoutSeconds: String(VMI_WATCH_TIMEOUT_S),
  });
  if (query.resourceVersion === '') params.set('resourceVersion', '');
  const url = new URL(`${access.server}${path}?${params}`);
  return requestOptions(access).then((transport) => streamEvents(url, transport, signal, onEvent));
}

// long: one request's whole life (answer, lines, timers, abort) reads best in one place
function streamEvents<T>(
  url: URL,
  transport: https.RequestOptions,
  signal: AbortSignal,
  onEvent: (event: WatchEvent<T>) => void,
): Promise<WatchEnd> {
  return new Promise<WatchEnd>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(lifeTimer);
      signal.removeEventListener('abort', onAbort);
      req.destroy();
      outcome();
    };
    const client = url.protocol === 'http:' ? http : https;
    const headers = { ...(transport.headers as Record<string, string>), Accept: 'application/json' };
    const req = client.request(url, { ...transport, method: 'GET', headers }, (res) => {
      clearTimeout(connectTimer);
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          if (body.length < REJECTION_BODY_LIMIT_BYTES) body += chunk;
        });
        const status = res.statusCode ?? 0;
        res.on('end', () =>
          finish(() => (status === 410 ? resolve('expired') : reject(new KubeApiError(status, statusMessage(body, status))))),
        );
        res.on('error', () => finish(() => resolve('ended')));
        return;
      }
      let partial = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (settled || !line.trim()) continue;
          let event: WatchEvent<T & { code?: number; message?: string }>;
          try {
            event = JSON.parse(line) as typeof event;
          } catch {
            continue;
          }
          if (event.type === 'ERROR') {
            const code = event.object?.code ?? 0;
            if (code === 410) finish(() => resolve('expired'));
            else finish(() => reject(new KubeApiError(code, event.object?.message ?? `watch error ${code}`)));
            return;
          }
          onEvent(event);
        }
      });
      res.on('end', () => finish(() => resolve('ended')));
      res.on('close', () => finish(() => resolve('ended')));
      res.on('error', () => finish(() => resolve('ended')));
    });
    req.on('error', (err) => finish(() => reject(new VconsoleError(`cannot watch the VMs: ${describeError(err)}`))));
    const connectTimer = setTimeout(
      () => finish(() => reject(new VconsoleError('the Kubernetes API did not answer the watch'))),
      HTTP_REQUEST_TIMEOUT_MS,
    );
    // The server ends the watch after timeoutSeconds; one that has not by far after is dead.
    const lifeTimer = setTimeout(() => finish(() => resolve('ended')), VMI_WATCH_TIMEOUT_S * 1000 + VMI_WATCH_GRACE_MS);
    const onAbort = () => finish(() => resolve('ended'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    req.end();
  });
}

/**
 * Before the next watch, once one ended without expiring: a stream that ended at once with no event
 * waits the back-off's next pause (a server that ends watches at once is not asked again in a
 * tight loop); any other resets it.
 */
export async function paceNextWatch(events: number, startedAt: number, retries: Backoff, signal: AbortSignal): Promise<void> {
  if (events === 0 && Date.now() - startedAt < VM_STATE_FIRST_RETRY_MS) await pause(retries.next(), signal);
  else retries.reset();
}
