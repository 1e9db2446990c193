// List, then watch from the list's resourceVersion; a watch that ends is resumed from the last
// resourceVersion seen (bookmarks included); a 410 Gone relists. The handler sees one `sync` with
// the full set after every list, then single changes. The informer keeps the current objects.

import { isGone, type ListOptions, type ResourceClient } from './rest-client.js';

export type InformerEvent<T> =
  | { type: 'sync'; items: T[] }
  | { type: 'added' | 'modified' | 'deleted'; object: T };

export interface Informer<T> {
  /** current objects by `namespace/name` */
  readonly store: ReadonlyMap<string, T>;
  /** resolves after the first list was handled */
  readonly synced: Promise<void>;
  /** resourceVersion of the last list or event seen */
  lastResourceVersion(): string;
  stop(): void;
}

export interface InformerOptions extends Pick<ListOptions, 'labelSelector' | 'fieldSelector'> {
  /** server-side lifetime of each watch request; default 5 to 10 minutes, randomised as the reference does */
  watchTimeoutSeconds?: number;
  /** pause before retrying after an error; default 1 s */
  retryDelayMs?: number;
  onError?(err: unknown): void;
}

export const objectKey = (o: any) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

export function startInformer<T>(resource: ResourceClient<T>, handler: (e: InformerEvent<T>) => void, opts: InformerOptions = {}): Informer<T> {
  const store = new Map<string, T>();
  const stopper = new AbortController();
  let resourceVersion = '';
  let markSynced!: () => void;
  const synced = new Promise<void>((r) => (markSynced = r));
  const selectors = { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector };

  const relist = async () => {
    const list = await resource.list(selectors);
    store.clear();
    for (const item of list.items) store.set(objectKey(item), item);
    resourceVersion = list.metadata.resourceVersion ?? '';
    handler({ type: 'sync', items: list.items });
    markSynced();
  };

  const run = async () => {
    let needList = true;
    while (!stopper.signal.aborted) {
      try {
        if (needList) await relist();
        needList = false;
        const timeoutSeconds = opts.watchTimeoutSeconds ?? Math.floor(300 * (1 + Math.random()));
        for await (const e of resource.watch({ ...selectors, resourceVersion, allowWatchBookmarks: true, timeoutSeconds, signal: stopper.signal })) {
          const obj = e.object as any;
          if (obj?.metadata?.resourceVersion) resourceVersion = obj.metadata.resourceVersion;
          if (e.type === 'BOOKMARK') continue;
          const key = objectKey(obj);
          if (e.type === 'DELETED') store.delete(key);
          else store.set(key, obj);
          handler({ type: e.type === 'ADDED' ? 'added' : e.type === 'DELETED' ? 'deleted' : 'modified', object: obj });
        }
      } catch (err) {
        if (stopper.signal.aborted) return;
        if (isGone(err)) {
          needList = true;
          continue;
        }
        opts.onError?.(err);
        await new Promise((r) => setTimeout(r, opts.retryDelayMs ?? 1000));
      }
    }
  };
  void run();
  return { store, synced, lastResourceVersion: () => resourceVersion, stop: () => stopper.abort() };
}
