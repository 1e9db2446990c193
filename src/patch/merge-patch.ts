// JSON merge patch (RFC 7396): objects merge recursively, null deletes a member, anything else
// replaces. A patch that is not an object replaces the whole document; the reference refuses a
// `null` patch (400) since it would erase the object.
import { type JsonObject, type PatchOptions, badPatch, clone, getOwn, isObject, setOwn } from './common.js';

export function applyMergePatch(doc: unknown, patch: unknown, opts: PatchOptions = {}): unknown {
  if (patch === null || patch === undefined) throw badPatch('invalid JSON merge patch: the patch must not be null');
  return merge(opts.inPlace ? doc : clone(doc), patch);
}

/** merges into `target`, which is our own copy */
function merge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, merge(getOwn(result, key), value));
  }
  return result;
}
