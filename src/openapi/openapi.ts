// OpenAPI documents. Until the schema catalog generates them, /openapi/v2 answers an empty protobuf
// document (enough for clients that only need it to exist) and /openapi/v3 an index of group documents.
import type { Naming } from '../api/naming.js';
import type { ApiResources } from '../registry/resources.js';
import type { RequestContext } from '../server/context.js';
import { sendText, sendObject } from '../server/respond.js';
import { pathNotFound } from '../server/status.js';

export function openapiEndpoints(resources: ApiResources, names: Naming) {
  return {
    handle(ctx: RequestContext): boolean {
      const p = ctx.path;
      if (p === '/openapi/v2' || p === '/swagger-2.0.0.pb-v1' || p === '/swagger.json') {
        const accept = String(ctx.headers.accept ?? '');
        if (accept.includes('protobuf')) sendText(ctx, 200, '', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
        else sendObject(ctx, 200, { swagger: '2.0', info: { title: names.vendor, version: 'v1.27' }, paths: {}, definitions: {} });
        return true;
      }
      if (p === '/openapi/v3' || p === '/openapi/v3/') {
        const paths: Record<string, { serverRelativeURL: string }> = {};
        for (const g of resources.groups()) for (const v of g.versions) {
          const key = g.name ? `apis/${g.name}/${v}` : `api/${v}`;
          paths[key] = { serverRelativeURL: `/openapi/v3/${key}` };
        }
        sendObject(ctx, 200, { paths });
        return true;
      }
      if (p.startsWith('/openapi/v3/')) throw pathNotFound(p);
      return false;
    },
  };
}
