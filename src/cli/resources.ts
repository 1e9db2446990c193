// From the command line to the objects a command acts on: `TYPE`, `TYPE NAME...`, `TYPE/NAME...`,
// `TYPE1,TYPE2`, categories such as `all`, or the objects of `-f`; each with its resource and namespace.

import type { ApiObject } from '../api/meta.js';
import type { ApiResourceInfo, Discovery } from '../client/discovery.js';
import { CliError, type Cli } from './cli.js';
import { readManifests } from './manifests.js';

export interface Target {
  info: ApiResourceInfo;
  /** absent for cluster-scoped resources and for lists across all namespaces */
  namespace?: string;
  /** absent: the whole collection (a list) */
  name?: string;
  /** the object read from `-f` */
  object?: ApiObject;
  source?: string;
}

export interface TargetOptions {
  filenames?: string[];
  recursive?: boolean;
  allNamespaces?: boolean;
  /** the verb used to phrase the error when nothing is named */
  verb?: string;
  /** names are required (`delete`, `label` without --all ...) */
  requireNames?: boolean;
}

export interface Targets {
  targets: Target[];
  /** more than one resource type was asked for: printed names carry their type */
  multipleTypes: boolean;
}

export function resourceNotFound(arg: string): CliError {
  return new CliError(`the server doesn't have a resource type "${arg}"`);
}

export function lookup(d: Discovery, arg: string): ApiResourceInfo {
  const info = d.find(arg);
  if (!info) throw resourceNotFound(arg);
  return info;
}

/** The types a word names: one resource, or every resource of a category (`all`). */
function typesOf(d: Discovery, word: string): ApiResourceInfo[] {
  const info = d.find(word);
  if (info) return [info];
  const inCategory = d.resources.filter((r) => r.preferred && r.categories.includes(word.toLowerCase()));
  if (inCategory.length) return inCategory;
  throw resourceNotFound(word);
}

export async function resolveTargets(cli: Cli, args: string[], o: TargetOptions = {}): Promise<Targets> {
  const d = await cli.discovery();
  const { namespace, explicit } = await cli.namespace();
  const nsFor = (info: ApiResourceInfo) => (!info.namespaced || (o.allNamespaces && !explicit) ? undefined : namespace);

  if (o.filenames?.length) {
    if (args.length) throw new CliError('both file names and resource arguments were given; name objects one way or the other');
    const manifests = await readManifests(cli, o.filenames, o.recursive);
    return {
      multipleTypes: new Set(manifests.map((m) => `${m.object.apiVersion}/${m.object.kind}`)).size > 1,
      targets: manifests.map(({ object, source }) => {
        const info = d.forKind(object.apiVersion!, object.kind!);
        if (!info) throw new CliError(`${source}: no resource serves kind "${object.kind}" in version "${object.apiVersion}"`);
        const own = object.metadata?.namespace;
        if (info.namespaced && own && explicit && own !== namespace)
          throw new CliError(`the namespace of the object ${object.kind}/${object.metadata?.name} ("${own}") does not match the namespace "${namespace}"; pass --namespace=${own} to act on it`);
        return { info, namespace: info.namespaced ? own ?? namespace : undefined, name: object.metadata?.name, object, source };
      }),
    };
  }

  if (!args.length) {
    throw new CliError(`you must name the type of resource to ${o.verb ?? 'get'}, or give -f; "clusterctl api-resources" lists the types`);
  }
  if (args.some((a) => a.includes('/'))) {
    const targets = args.map((a) => {
      const slash = a.indexOf('/');
      if (slash <= 0 || slash === a.length - 1) throw new CliError(`arguments in resource/name form must have a single resource and name; "${a}" is not`);
      const info = lookup(d, a.slice(0, slash));
      return { info, namespace: nsFor(info) ?? (info.namespaced ? namespace : undefined), name: a.slice(slash + 1) };
    });
    return { targets, multipleTypes: new Set(targets.map((t) => t.info.resource + t.info.group)).size > 1 };
  }
  const [typeArg, ...names] = args;
  const words = typeArg!.split(',').filter(Boolean);
  const types = words.flatMap((w) => typesOf(d, w));
  if (names.length && types.length > 1) throw new CliError(`names can be given with one resource type only, not "${typeArg}"`);
  if (o.requireNames && !names.length) throw new CliError(`name the ${typeArg} to ${o.verb ?? 'act on'}, or select them with -l or --all`);
  const targets = names.length
    ? names.map((name) => ({ info: types[0]!, namespace: types[0]!.namespaced ? namespace : undefined, name }))
    : types.map((info) => ({ info, namespace: nsFor(info) }));
  return { targets, multipleTypes: types.length > 1 || words.some((w) => !d.find(w)) };
}

/** `configmap/x`, `deployment.apps/web`: how names print when more than one type is shown, and for `-o name` */
export function qualifiedName(info: Pick<ApiResourceInfo, 'kind' | 'group'>, name: string): string {
  return `${info.kind.toLowerCase()}${info.group ? `.${info.group}` : ''}/${name}`;
}

/** the server rejected a list for lack of the verb: say so in its own words */
export function supports(info: ApiResourceInfo, verb: string): boolean {
  return info.verbs.includes(verb);
}

/** the object a target names from a file, in the target's namespace */
export const targetObject = (t: Target): ApiObject =>
  (t.info.namespaced ? { ...t.object!, metadata: { ...t.object!.metadata, namespace: t.namespace } } : t.object!);
