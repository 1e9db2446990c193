// Method + path → what is being asked: the verb, API group and version, namespace, resource, name and subresource.

import { queryFlag, type RequestInfo } from '../api/request.js';

/** subresources of a namespace that are not namespaced collections */
const namespaceSubresources = new Set(['status', 'finalize']);

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const segments = path.split('/').filter(Boolean).map(decodeSegment);
  const info: RequestInfo = {
    isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '',
    namespace: '', resource: '', subresource: '', name: '', parts: [],
  };
  const prefix = segments[0];
  if (prefix !== 'api' && prefix !== 'apis') return info;
  let rest = segments.slice(1);
  info.apiPrefix = prefix;
  if (prefix === 'apis') {
    if (rest.length < 1) return info;
    info.apiGroup = rest[0];
    rest = rest.slice(1);
  }
  if (rest.length < 1) return info;
  info.apiVersion = rest[0];
  rest = rest.slice(1);
  if (rest.length < 1) return info;

  info.isResourceRequest = true;
  // the deprecated /watch/ path prefix
  let watchPath = false;
  if (rest[0] === 'watch') { watchPath = true; rest = rest.slice(1); }

  if (rest[0] === 'namespaces' && rest.length >= 2) {
    info.namespace = rest[1];
    if (rest.length > 2 && !namespaceSubresources.has(rest[2])) { rest = rest.slice(2); info.inNamespace = true; }
  }
  info.parts = rest;
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest[2] ?? '';

  switch (method) {
    case 'GET': case 'HEAD':
      // as in the reference, `watch` makes a watch of a collection only: on an object or subresource path it is
      // ignored and the request is a get (one object is watched through /watch/ or a metadata.name field selector)
      info.verb = watchPath ? 'watch' : info.name ? 'get' : queryFlag(query.get('watch')) ? 'watch' : 'list';
      break;
    case 'POST': info.verb = 'create'; break;
    case 'PUT': info.verb = 'update'; break;
    case 'PATCH': info.verb = 'patch'; break;
    case 'DELETE': info.verb = info.name ? 'delete' : 'deletecollection'; break;
    default: info.verb = method.toLowerCase();
  }
  // a list or watch narrowed to one name by a field selector is authorized as that name
  if ((info.verb === 'list' || info.verb === 'watch') && !info.name) {
    const fs = query.get('fieldSelector');
    const m = fs && /^metadata\.name==?([^,]+)$/.exec(fs);
    if (m) info.name = m[1];
  }
  return info;
}

function decodeSegment(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}
