// explain: the documentation of a kind or one of its fields, from the server's OpenAPI v3 document of the
// group version (its schema found by group, version and kind, `$ref`s followed along the field path).

import { Command } from 'commander';
import { CliError, type Cli } from '../cli.js';
import { lookup } from '../resources.js';

type Schema = Record<string, any>;

export function explainCommand(cli: Cli): Command {
  return new Command('explain')
    .description('Describe the fields of a resource')
    .argument('<resource>', 'TYPE or TYPE.field.subfield, e.g. pods.spec.containers')
    .option('--recursive', 'list every field below, by name and type')
    .option('--api-version <group/version>', 'explain this version of the resource')
    .action(async (arg: string, f: { recursive?: boolean; apiVersion?: string }) => {
      const d = await cli.discovery();
      const [typeWord, ...path] = arg.split('.');
      let info = lookup(d, typeWord!);
      if (f.apiVersion) {
        const match = d.resources.find((r) => r.resource === info.resource && `${r.group ? `${r.group}/` : ''}${r.version}` === f.apiVersion);
        if (!match) throw new CliError(`the server does not serve ${info.resource} in ${f.apiVersion}`);
        info = match;
      }
      const client = await cli.client();
      const index = await client.request<any>({ method: 'GET', path: '/openapi/v3' });
      const key = info.group ? `apis/${info.group}/${info.version}` : `api/${info.version}`;
      const entry = index?.paths?.[key];
      if (!entry) throw new CliError(`the server publishes no OpenAPI v3 document for ${key}`);
      const [p, q] = String(entry.serverRelativeURL).split('?');
      const doc = await client.request<any>({ method: 'GET', path: p!, query: Object.fromEntries(new URLSearchParams(q ?? '')) });
      const schemas: Record<string, Schema> = doc?.components?.schemas ?? {};
      const root = Object.values(schemas).find((s) => (s['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.group === info.group && g.version === info.version && g.kind === info.kind));
      if (!root) throw new CliError(`no schema for ${info.kind} in the server's OpenAPI document`);
      const resolve = (s: Schema | undefined): Schema => {
        let cur = s ?? {};
        for (let i = 0; i < 32; i++) {
          const ref = cur.$ref ?? (cur.allOf?.length === 1 ? cur.allOf[0].$ref : undefined);
          if (!ref) break;
          cur = { ...schemas[String(ref).replace('#/components/schemas/', '')], ...(cur.description ? { description: cur.description } : {}) };
        }
        return cur;
      };
      let schema = resolve(root);
      let fieldName: string | undefined;
      let fieldSchema: Schema | undefined;
      for (const part of path) {
        const container = schema.type === 'array' ? resolve(schema.items) : schema;
        const next = container.properties?.[part];
        if (!next) throw new CliError(`field "${part}" does not exist`);
        fieldName = part;
        fieldSchema = next;
        schema = resolve(next);
      }
      let out = `${info.group ? `GROUP:      ${info.group}\n` : ''}KIND:       ${info.kind}\nVERSION:    ${info.version}\n\n`;
      if (fieldName) out += `FIELD: ${fieldName} <${typeName(fieldSchema!, schemas)}>\n\n`;
      out += `DESCRIPTION:\n${indent(schema.description ?? fieldSchema?.description ?? '<empty>', 4)}\n`;
      const body = schema.type === 'array' ? resolve(schema.items) : schema;
      const props = Object.entries(body.properties ?? {}) as [string, Schema][];
      if (props.length) {
        out += 'FIELDS:\n';
        const required = new Set<string>(body.required ?? []);
        if (f.recursive) out += recursive(body, schemas, resolve, 2, new Set());
        else {
          for (const [name, prop] of props) {
            out += `  ${name}\t<${typeName(prop, schemas)}>${required.has(name) ? ' -required-' : ''}\n`;
            const desc = prop.description ?? resolve(prop).description;
            out += desc ? `${indent(desc, 4)}\n\n` : '\n';
          }
        }
      }
      cli.out(out.replace(/\n+$/, '\n'));
    });
}

const indent = (text: string, n: number) => text.split('\n').map((l) => `${' '.repeat(n)}${l}`).join('\n');

/** `<string>`, `<integer>`, `<[]Container>`, `<map[string]string>`, `<ObjectMeta>` */
function typeName(s: Schema, schemas: Record<string, Schema>): string {
  const ref = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0].$ref : undefined);
  if (ref) {
    const name = String(ref).split('/').pop()!;
    const target = schemas[name];
    if (target && target.type && target.type !== 'object') return target.type;
    return name.split('.').pop()!;
  }
  if (s.type === 'array') return `[]${typeName(s.items ?? {}, schemas)}`;
  if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') return `map[string]${typeName(s.additionalProperties, schemas)}`;
  if (s['x-kubernetes-int-or-string']) return 'IntOrString';
  return s.type ?? 'Object';
}

function recursive(s: Schema, schemas: Record<string, Schema>, resolve: (s: Schema) => Schema, depth: number, seen: Set<Schema>): string {
  let out = '';
  const required = new Set<string>(s.required ?? []);
  for (const [name, prop] of Object.entries(s.properties ?? {}) as [string, Schema][]) {
    out += `${' '.repeat(depth)}${name}\t<${typeName(prop, schemas)}>${required.has(name) ? ' -required-' : ''}\n`;
    let inner = resolve(prop);
    if (inner.type === 'array') inner = resolve(inner.items ?? {});
    if (inner.properties && !seen.has(inner)) out += recursive(inner, schemas, resolve, depth + 2, new Set([...seen, inner]));
  }
  return out;
}
