// Sets of field paths, stored as a trie: `members` are the paths ending at this node, `children` hold the
// longer ones. Operations return new sets that may share subtrees with their inputs (or be an input),
// so sets are never mutated once handed out; `insert` is only for building a fresh set.
import { canonicalElement, isPathElement, sortElements, type Path, type PathElement } from './field-path.js';

export interface FieldSet {
  members: Set<PathElement>;
  children: Map<PathElement, FieldSet>;
}

export const emptySet = (): FieldSet => ({ members: new Set(), children: new Map() });

export const isEmpty = (s: FieldSet | undefined): boolean => !s || (s.members.size === 0 && s.children.size === 0);

export function setOf(...paths: Path[]): FieldSet {
  const s = emptySet();
  for (const p of paths) insert(s, p);
  return s;
}

export function insert(s: FieldSet, path: Path): void {
  if (path.length === 0) return;
  let node = s;
  for (let i = 0; i < path.length - 1; i++) node = descend(node, path[i]);
  node.members.add(path[path.length - 1]);
}

/** the child set at `pe`, created when missing */
export function descend(s: FieldSet, pe: PathElement): FieldSet {
  let child = s.children.get(pe);
  if (!child) s.children.set(pe, (child = emptySet()));
  return child;
}

export function has(s: FieldSet, path: Path): boolean {
  let node: FieldSet | undefined = s;
  for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(path[i]);
  return !!node && path.length > 0 && node.members.has(path[path.length - 1]);
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  if (isEmpty(a)) return b;
  if (isEmpty(b)) return a;
  const members = new Set(a.members);
  for (const m of b.members) members.add(m);
  const children = new Map(a.children);
  for (const [pe, cb] of b.children) {
    const ca = children.get(pe);
    children.set(pe, ca ? union(ca, cb) : cb);
  }
  return { members, children };
}

/** paths of `a` not in `b`; a member of `b` does not remove the paths below it */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  return subtract(a, b, false);
}

/** paths of `a` neither in `b` nor below a path of `b` */
export function recursiveDifference(a: FieldSet, b: FieldSet): FieldSet {
  return subtract(a, b, true);
}

/** `a` itself when nothing of it is taken away: an owner whose fields an update leaves alone keeps its very set */
function subtract(a: FieldSet, b: FieldSet, recursive: boolean): FieldSet {
  if (isEmpty(a) || isEmpty(b)) return a;
  const members = new Set<PathElement>();
  for (const m of a.members) if (!b.members.has(m)) members.add(m);
  const children = new Map<PathElement, FieldSet>();
  let same = members.size === a.members.size;
  for (const [pe, ca] of a.children) {
    if (recursive && b.members.has(pe)) { same = false; continue; }
    const cb = b.children.get(pe);
    const rest = cb ? subtract(ca, cb, recursive) : ca;
    if (rest !== ca) same = false;
    if (!isEmpty(rest)) children.set(pe, rest);
  }
  return same ? a : { members, children };
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  const members = new Set<PathElement>();
  const [small, large] = a.members.size <= b.members.size ? [a.members, b.members] : [b.members, a.members];
  for (const m of small) if (large.has(m)) members.add(m);
  const children = new Map<PathElement, FieldSet>();
  const [cs, cl] = a.children.size <= b.children.size ? [a.children, b.children] : [b.children, a.children];
  for (const [pe, c1] of cs) {
    const c2 = cl.get(pe);
    if (!c2) continue;
    const both = intersection(c1, c2);
    if (!isEmpty(both)) children.set(pe, both);
  }
  return { members, children };
}

export function equals(a: FieldSet, b: FieldSet): boolean {
  if (a === b) return true;
  if (a.members.size !== b.members.size || a.children.size !== b.children.size) return false;
  for (const m of a.members) if (!b.members.has(m)) return false;
  for (const [pe, ca] of a.children) {
    const cb = b.children.get(pe);
    if (!cb || !equals(ca, cb)) return false;
  }
  return true;
}

/** every path of the set, in the reference's order */
export function paths(s: FieldSet): Path[] {
  const out: Path[] = [];
  const walk = (node: FieldSet, prefix: PathElement[]) => {
    for (const pe of sortElements(node.members)) out.push([...prefix, pe]);
    for (const pe of sortElements(node.children.keys())) walk(node.children.get(pe)!, [...prefix, pe]);
  };
  walk(s, []);
  return out;
}

export function size(s: FieldSet): number {
  let n = s.members.size;
  for (const c of s.children.values()) n += size(c);
  return n;
}

// ── fieldsV1 ────────────────────────────────────────────────────────────────────────────────────────

export type FieldsV1 = { [key: string]: FieldsV1 };

/** the fieldsV1 tree, keys in the order the reference writes them ("." after the children) */
export function toFieldsV1(s: FieldSet): FieldsV1 {
  const out: FieldsV1 = {};
  const keys = s.children.size === 0 ? s.members : new Set<PathElement>([...s.members, ...s.children.keys()]);
  for (const pe of sortElements(keys)) {
    const child = s.children.get(pe);
    if (!child) { out[pe] = {}; continue; }
    const sub = toFieldsV1(child);
    if (s.members.has(pe)) sub['.'] = {};
    out[pe] = sub;
  }
  return out;
}

/** reads a fieldsV1 tree; unknown element kinds are dropped, malformed ones throw */
export function fromFieldsV1(tree: unknown): FieldSet {
  return readNode(tree).set ?? emptySet();
}

function readNode(tree: unknown): { set?: FieldSet; member: boolean } {
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) throw new Error('fieldsV1 must be an object');
  let set: FieldSet | undefined;
  let member = false;
  // for..in rather than Object.entries: a set of 100,000 keys would allocate as many pairs
  for (const key in tree) {
    const sub = (tree as Record<string, unknown>)[key];
    if (key === '.') { member = true; continue; }
    if (!isPathElement(key)) {
      if (/^[fvik]:/.test(key)) throw new Error(`invalid path element ${JSON.stringify(key)}`);
      continue;
    }
    const pe = canonicalElement(key);
    const child = readNode(sub);
    set ??= emptySet();
    if (child.member) set.members.add(pe);
    if (child.set) set.children.set(pe, child.set);
  }
  return { set, member: member || !set };
}
