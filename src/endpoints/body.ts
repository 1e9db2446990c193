// Reading and decoding request bodies, with the reference's size limit.
import type { RequestContext } from '../api/request.js';
import { yaml } from '../util/yaml.js';
import type { Naming } from '../api/naming.js';
import { loadProtobufCodec } from '../api/protobuf/load.js';

import { badRequest, tooLarge, unsupportedMediaType } from '../api/status.js';

/** the reference's request body limit */
export const maxBodyBytes = 3 * 1024 * 1024;

export async function readBody(ctx: RequestContext, limit = maxBodyBytes): Promise<Buffer> {
  const declared = Number(ctx.headers['content-length'] ?? 0);
  if (declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  ctx.audit?.requestBody(body, mediaType(ctx));
  return body;
}

export const mediaType = (ctx: RequestContext) => String(ctx.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

/** parses JSON text, reporting the first error position as the reference does in a 400 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`error decoding the request body: ${(e as Error).message}`);
  }
}

export function parseYamlObject(text: string): unknown {
  const docs = yaml().parseAllDocuments(text);
  if (Array.isArray(docs) && docs.length > 1) throw badRequest('error decoding YAML: the request body holds more than one document');
  try {
    return yaml().parse(text, { uniqueKeys: true, merge: false });
  } catch (e) {
    throw badRequest(`error decoding YAML: ${(e as Error).message}`);
  }
}

/** decodes an object body (POST, PUT) by its content type: JSON, YAML, or the protobuf envelope of a built-in kind */
export async function readObject(ctx: RequestContext, names: Naming): Promise<{ value: unknown; text: string }> {
  const type = mediaType(ctx);
  const raw = await readBody(ctx);
  if (type === names.protobufMediaType) return { value: await decodeProtobuf(raw, names), text: '' };
  const text = raw.toString('utf8');
  if (type === '' || type === 'application/json' || type === '*/*') return { value: parseJson(text), text };
  if (type === 'application/yaml' || type === 'text/yaml') return { value: parseYamlObject(text), text };
  throw unsupportedMediaType(type, ['application/json', 'application/yaml', names.protobufMediaType]);
}

/** the protobuf codec loads on first use, keeping its field tables out of start-up */
async function decodeProtobuf(raw: Buffer, names: Naming): Promise<Record<string, unknown>> {
  const { decodeEnvelope, protobufToJson, UnsupportedKindError } = await loadProtobufCodec();
  try {
    const envelope = decodeEnvelope(raw, names);
    if (envelope.contentEncoding)
      throw unsupportedMediaType(`${names.protobufMediaType} with content encoding ${envelope.contentEncoding}`, [names.protobufMediaType, 'application/json']);
    return protobufToJson(envelope.raw, envelope.apiVersion, envelope.kind);
  } catch (e) {
    if (e instanceof UnsupportedKindError) throw unsupportedMediaType(`${names.protobufMediaType} (${e.message})`, ['application/json', 'application/yaml']);
    if (e instanceof Error && e.name === 'MalformedProtobufError') throw badRequest(`error decoding the request body: ${e.message}`);
    throw e;
  }
}
