// How many seats a request holds while it runs: one, except for lists (and watches that start with the current
// state), which cost a seat per hundred objects they go through, up to ten, as the reference estimates them.
import type { FlowRequest } from '../api/flowcontrol.js';

export const minimumSeats = 1;
export const maximumSeats = 10;
export const objectsPerSeat = 100;

/** stored objects of a resource; undefined when unknown */
export type ObjectCount = (apiGroup: string, resource: string) => number | undefined;

const clamp = (seats: number) => Math.min(maximumSeats, Math.max(minimumSeats, Math.ceil(seats)));

/** a watch sends the current state first when asked to, or when it names no version to start from */
export const watchStartsWithState = (q: URLSearchParams) => {
  const initial = q.get('sendInitialEvents');
  if (initial !== null && initial !== '') return initial !== 'false' && initial !== '0';
  return !q.get('resourceVersion');
};

export function estimateSeats(req: FlowRequest, count: ObjectCount): number {
  const { info, query } = req;
  if (!info.isResourceRequest || (info.verb !== 'list' && info.verb !== 'watch')) return minimumSeats;
  if (info.verb === 'watch' && !watchStartsWithState(query)) return minimumSeats;
  const stored = count(info.apiGroup, info.resource);
  if (stored === undefined) return minimumSeats;
  const rv = query.get('resourceVersion') ?? '';
  const limitText = Number(query.get('limit') ?? '');
  const limit = Number.isSafeInteger(limitText) && limitText > 0 ? Math.min(limitText, stored) : stored;
  // where the server reads a list: consistent reads, pages and exact versions from storage, the rest from the watch cache
  const fromStorage = info.verb === 'list' && (rv === '' || query.get('resourceVersionMatch') === 'Exact' || !!query.get('continue') || (limitText > 0 && rv !== '0'));
  // the watch cache goes through everything it holds; storage reads a page, twice over when selectors filter it
  const selective = !!query.get('labelSelector') || !!query.get('fieldSelector');
  const objects = !fromStorage ? stored : selective ? stored + limit : 2 * limit;
  return clamp(objects / objectsPerSeat);
}
