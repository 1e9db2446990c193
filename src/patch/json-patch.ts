// JSON patch (RFC 6902) as the reference applies it: operations run in order on a copy of the
// document, and the first one that cannot apply fails the whole patch (422 Invalid, with the
// reference's messages). Array indices may be negative, counting from the end, as the reference
// allows. A patch that is not an array of operation objects is a bad request (400).
import {
  type JsonObject, type PatchOptions, badPatch, cannotApply, clone, deepEqual, getOwn, hasOwn, isObject, PatchError, setOwn,
} from './common.js';
import { sliceClock, yieldToLoop } from '../util/slices.js';

/** the reference's limit on operations in one JSON patch */
export const maxJsonPatchOperations = 10000;

type Container = JsonObject | unknown[];
interface Location { parent: Container; key: string }

export function applyJsonPatch(doc: unknown, patch: unknown, opts: PatchOptions = {}): unknown {
  const ops = operationsOf(patch);
  // a failed operation leaves the document half-patched: in place, the caller drops it
  let root = opts.inPlace ? doc : clone(doc);
  const copied = { bytes: 0 };
  for (const op of ops) root = applyOperation(root, op, copied);
  return root;
}

/**
 * applyJsonPatch for the request path, giving the event loop back whenever a slice of work is used up. An operation at
 * an index of a long array costs the array's length (as the reference's does), and a patch of 10,000 such operations
 * on an array it added itself held the server's loop for seconds in one piece.
 */
export async function applyJsonPatchInSlices(doc: unknown, patch: unknown, opts: PatchOptions = {}): Promise<unknown> {
  const ops = operationsOf(patch);
  let root = opts.inPlace ? doc : clone(doc);
  const copied = { bytes: 0 };
  const clock = sliceClock();
  for (const op of ops) {
    root = applyOperation(root, op, copied);
    if (clock.due()) await yieldToLoop();
  }
  return root;
}

/** the operations; a null one decodes (as the reference's decoder has it) and fails when applied, as an unknown kind */
function operationsOf(patch: unknown): Array<JsonObject | null> {
  if (!Array.isArray(patch) || !patch.every((op) => op === null || isObject(op))) {
    throw badPatch('a JSON patch must be a JSON array of operation objects');
  }
  if (patch.length > maxJsonPatchOperations) {
    throw new PatchError('RequestEntityTooLarge',
      `The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${patch.length}`);
  }
  return patch;
}

/**
 * What all copy operations of one patch may copy together: a few copies of a growing document would otherwise double it
 * each time (the reference bounds the accumulated copies the same way, by the request body limit).
 */
export const maxAccumulatedCopyBytes = 3 * 1024 * 1024;

function applyOperation(root: unknown, op: JsonObject | null, copied: { bytes: number }): unknown {
  const kind = typeof op?.op === 'string' ? op.op : 'unknown';
  if (op === null) throw cannotApply(`Unexpected kind: ${kind}`);
  if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(kind)) throw cannotApply(`Unexpected kind: ${kind}`);
  const path = pointer(op, 'path', kind);
  const value = (): unknown => {
    if (!hasOwn(op, 'value')) throw cannotApply(`${kind} operation does not apply: missing value field: missing value`);
    return clone(op.value);
  };
  switch (kind) {
    case 'add': {
      const at = locate(root, path);
      if (!at) throw cannotApply(`add operation does not apply: doc is missing path: "${path}": missing value`);
      insert(at, value(), `error in add for path: '${path}'`);
      return root;
    }
    case 'remove': {
      const at = locate(root, path);
      if (!at) throw cannotApply(`remove operation does not apply: doc is missing path: "${path}": missing value`);
      take(at, `error in remove for path: '${path}'`);
      return root;
    }
    case 'replace': {
      if (path === '') {
        const v = value();
        if (typeof v !== 'object' || v === null) throw cannotApply('replace operation value must be object or array');
        return v;
      }
      const at = locate(root, path);
      if (!at) throw cannotApply(`replace operation does not apply: doc is missing path: ${path}: missing value`);
      const v = value();
      if (read(at) === absent) throw cannotApply(`replace operation does not apply: doc is missing key: ${path}: missing value`);
      write(at, v);
      return root;
    }
    case 'move':
    case 'copy': {
      const from = pointer(op, 'from', kind);
      const src = locate(root, from);
      if (!src) throw cannotApply(`${kind} operation does not apply: doc is missing from path: ${from}: missing value`);
      const moved = kind === 'move' ? take(src, `error in move for path: '${src.key}'`) : read(src);
      if (moved === absent) throw cannotApply(`error in copy for from: '${from}': missing value`);
      if (kind === 'copy') {
        copied.bytes += JSON.stringify(moved)?.length ?? 0;
        if (copied.bytes > maxAccumulatedCopyBytes)
          throw new PatchError('RequestEntityTooLarge', `Unable to copy, would result in document size exceeding the limit of ${maxAccumulatedCopyBytes} bytes`);
      }
      const dest = locate(root, path);
      if (!dest) throw cannotApply(`${kind} operation does not apply: doc is missing destination path: ${path}: missing value`);
      // a moved value is detached from where it was, so it is re-linked, not copied: a copy per move made a patch of
      // moves back and forth over a large value cost its size each time
      insert(dest, kind === 'move' ? moved : clone(moved), `error in ${kind} for path: '${path}'`);
      return root;
    }
    default: { // test
      const expected = value();
      let actual: unknown;
      if (path === '') actual = root;
      else {
        const at = locate(root, path);
        if (!at) throw cannotApply(`test operation does not apply: is missing path: ${path}: missing value`);
        actual = read(at);
      }
      // like the reference, a missing member tests equal to null
      const same = actual === absent || actual === null ? expected === null : deepEqual(actual, expected);
      if (!same) throw cannotApply(`testing value ${path} failed: test failed`);
      return root;
    }
  }
}

function pointer(op: JsonObject, member: 'path' | 'from', kind: string): string {
  const p = getOwn(op, member);
  if (typeof p !== 'string') throw cannotApply(`${kind} operation failed to decode ${member}: missing value`);
  return p;
}

const unescape = (token: string) => token.replace(/~[01]/g, t => (t === '~1' ? '/' : '~'));

/** the container holding the pointer's last token, or undefined when some parent is missing */
function locate(root: unknown, path: string): Location | undefined {
  if (!path.startsWith('/')) return undefined;
  const tokens = path.slice(1).split('/').map(unescape);
  let parent: unknown = root;
  for (const token of tokens.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null) return undefined;
    const child = read({ parent: parent as Container, key: token });
    parent = child;
  }
  if (typeof parent !== 'object' || parent === null) return undefined;
  return { parent: parent as Container, key: tokens[tokens.length - 1] };
}

const absent = Symbol('absent');

/** the index an array token names (negative counts from the end), or undefined if out of range */
function arrayIndex(key: string, length: number): number | undefined {
  if (!/^[+-]?\d+$/.test(key)) return undefined;
  let i = Number(key);
  if (i < 0) i += length;
  return i >= 0 && i < length ? i : undefined;
}

function read({ parent, key }: Location): unknown {
  if (!Array.isArray(parent)) return hasOwn(parent, key) ? parent[key] : absent;
  const i = arrayIndex(key, parent.length);
  return i === undefined ? absent : parent[i];
}

function write({ parent, key }: Location, value: unknown): void {
  if (Array.isArray(parent)) parent[arrayIndex(key, parent.length)!] = value;
  else setOwn(parent, key, value);
}

function insert({ parent, key }: Location, value: unknown, context: string): void {
  if (!Array.isArray(parent)) return setOwn(parent, key, value);
  if (key === '-') { parent.push(value); return; }
  if (!/^[+-]?\d+$/.test(key)) throw cannotApply(`${context}: value was not a proper array index: '${key}'`);
  // inserting may also target the position just past the end
  const i = arrayIndex(key, parent.length + 1);
  if (i === undefined) throw cannotApply(`${context}: Unable to access invalid index: ${Number(key)}: invalid index referenced`);
  parent.splice(i, 0, value);
}

function take(at: Location, context: string): unknown {
  const { parent, key } = at;
  if (!Array.isArray(parent)) {
    if (!hasOwn(parent, key)) throw cannotApply(`${context}: Unable to remove nonexistent key: ${key}: missing value`);
    const v = parent[key];
    delete parent[key];
    return v;
  }
  const i = arrayIndex(key, parent.length);
  if (i === undefined) throw cannotApply(`${context}: Unable to access invalid index: ${key}: invalid index referenced`);
  return parent.splice(i, 1)[0];
}
