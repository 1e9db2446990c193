// Reading the objects targets name, the way several commands need them: lists through every page, single
// objects by name, kinds filled in on list items, and failures kept per target so one missing object does not
// hide the others.

import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { ApiResourceInfo } from '../client/discovery.js';
import { ApiError, type ResourceClient } from '../client/rest-client.js';
import { errorText, ExitCode, type Cli } from './cli.js';
import type { Target } from './resources.js';

export const apiVersionOf = (info: Pick<ApiResourceInfo, 'group' | 'version'>) => (info.group ? `${info.group}/${info.version}` : info.version);

/** list items come without kind and apiVersion; printed objects carry them */
export function withKind(obj: ApiObject, info: ApiResourceInfo): ApiObject {
  return { apiVersion: apiVersionOf(info), kind: info.kind, ...obj };
}

/** server-side tables in the server's own meta group, JSON otherwise */
export const tableAccept = (names: Naming) =>
  `application/json;as=Table;v=v1;g=${names.metaGroup},application/json;as=Table;v=v1beta1;g=${names.metaGroup},application/json`;

export interface Found { info: ApiResourceInfo; namespace?: string; object: ApiObject }

export interface SelectorOptions { selector?: string; fieldSelector?: string; chunkSize?: number }

export async function resourceFor(cli: Cli, t: { info: ApiResourceInfo; namespace?: string }): Promise<ResourceClient<ApiObject>> {
  return (await cli.client()).resource<ApiObject>(t.info, t.namespace);
}

/**
 * The objects of every target, in order: named ones read by name (or taken from `-f` when `fromFiles`),
 * collections listed with the selectors. Failures are printed as the reference prints them; `failed` tells
 * whether any happened.
 */
export async function fetchTargets(cli: Cli, targets: Target[], o: SelectorOptions & { ignoreNotFound?: boolean } = {}): Promise<{ found: Found[]; failed: boolean }> {
  const found: Found[] = [];
  let failed = false;
  for (const t of targets) {
    const r = await resourceFor(cli, t);
    try {
      if (t.name !== undefined) {
        found.push({ info: t.info, namespace: t.namespace, object: withKind(await r.get(t.name), t.info) });
      } else {
        const list = await r.listAll({ labelSelector: o.selector, fieldSelector: o.fieldSelector, limit: o.chunkSize || undefined });
        for (const item of list.items) found.push({ info: t.info, namespace: item.metadata?.namespace ?? t.namespace, object: withKind(item, t.info) });
      }
    } catch (e) {
      if (o.ignoreNotFound && e instanceof ApiError && e.code === 404) continue;
      cli.err(`${errorText(e)}\n`);
      failed = true;
    }
  }
  return { found, failed };
}

/** ends the command with exit code 1 after errors were printed */
export function failIf(failed: boolean): void {
  if (failed) throw new ExitCode(1);
}

export const objectName = (o: ApiObject) => o.metadata?.name ?? '';

/** the stored object, or undefined when there is none */
export async function liveObject(r: ResourceClient<ApiObject>, name: string): Promise<ApiObject | undefined> {
  try {
    return await r.get(name);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}
