// Content negotiation: which representation a response takes (JSON, YAML, Table, protobuf, aggregated discovery),
// honouring the requested group exactly or falling through to the next Accept entry.
import type { Naming } from '../api/naming.js';

export interface MediaRange {
  type: string;        // e.g. application/json
  params: Record<string, string>;
  q: number;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || !header.trim()) return [{ type: '*/*', params: {}, q: 1 }];
  const out: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [type, ...ps] = part.split(';').map(s => s.trim());
    if (!type) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of ps) {
      const i = p.indexOf('=');
      if (i < 0) continue;
      const k = p.slice(0, i).trim().toLowerCase(), v = p.slice(i + 1).trim().replace(/^"|"$/g, '');
      if (k === 'q') q = Number(v); else params[k] = v;
    }
    out.push({ type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 });
  }
  // stable sort by q, keeping the client's order among equals
  return out.map((m, i) => ({ m, i })).sort((a, b) => b.m.q - a.m.q || a.i - b.i).map(x => x.m).filter(m => m.q > 0);
}

export type Representation =
  | { kind: 'json'; contentType: string }
  | { kind: 'yaml'; contentType: string }
  | { kind: 'protobuf'; contentType: string }
  | { kind: 'table'; contentType: string; version: string }
  /** `protobuf`: the metadata in the protobuf envelope (meta's PartialObjectMetadata messages), else JSON */
  | { kind: 'metadata'; contentType: string; version: string; list: boolean; protobuf: boolean }
  | { kind: 'discovery'; contentType: string; version: string };

export interface NegotiationTarget {
  /** object responses can take the Table form */
  table?: boolean;
  /** YAML is offered */
  yaml?: boolean;
  /** aggregated discovery (GET /api, /apis) */
  discovery?: boolean;
  /** PartialObjectMetadata forms */
  metadata?: boolean;
  /** the kind has a protobuf form; without one, a protobuf entry falls through to the next */
  protobuf?: boolean;
}

const jsonLike = (t: string) => t === 'application/json' || t === 'application/*' || t === '*/*';

/** the representation for the first acceptable entry, or undefined (406) */
export function negotiate(accept: MediaRange[], names: Naming, target: NegotiationTarget): Representation | undefined {
  for (const m of accept) {
    const as = m.params['as'];
    if (as) {
      // the metadata forms come in protobuf too, for any resource (a custom one's included), as the reference serves
      // them to its metadata clients; a Table and discovery only in JSON
      const protobuf = m.type === names.protobufMediaType;
      if (m.type !== 'application/json' && !protobuf) continue;
      const g = m.params['g'], v = m.params['v'];
      // a Table or metadata answer is labelled plain application/json, as the reference labels it (only aggregated
      // discovery names its kind in the Content-Type); the body's kind says what it is
      if (as === 'Table' && !protobuf && target.table && g === names.metaGroup && (v === 'v1' || v === 'v1beta1'))
        return { kind: 'table', version: v, contentType: 'application/json' };
      if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && target.metadata && g === names.metaGroup && (v === 'v1' || v === 'v1beta1'))
        return { kind: 'metadata', version: v, list: as === 'PartialObjectMetadataList', protobuf, contentType: protobuf ? m.type : 'application/json' };
      if (as === 'APIGroupDiscoveryList' && !protobuf && target.discovery && g === names.group('apidiscovery') && (v === 'v2' || v === 'v2beta1'))
        return { kind: 'discovery', version: v, contentType: `application/json;g=${g};v=${v};as=APIGroupDiscoveryList` };
      continue;
    }
    if (jsonLike(m.type)) return { kind: 'json', contentType: 'application/json' };
    if (target.protobuf && m.type === names.protobufMediaType) return { kind: 'protobuf', contentType: names.protobufMediaType };
    if (target.yaml && (m.type === 'application/yaml' || m.type === 'text/yaml')) return { kind: 'yaml', contentType: 'application/yaml' };
  }
  return undefined;
}

/** whether a representation is written in the protobuf envelope (and its watch events length-prefixed) */
export const inProtobuf = (rep: Representation) => rep.kind === 'protobuf' || (rep.kind === 'metadata' && rep.protobuf);

export const offeredTypes = (names: Naming, target: NegotiationTarget) => [
  'application/json', ...(target.yaml ? ['application/yaml'] : []), ...(target.protobuf ? [names.protobufMediaType] : []),
  ...(target.table ? [`application/json;as=Table;v=v1;g=${names.metaGroup}`] : []),
  ...(target.discovery ? [`application/json;as=APIGroupDiscoveryList;v=v2;g=${names.group('apidiscovery')}`] : []),
];
