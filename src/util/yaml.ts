// The YAML libraries are loaded on first use: most requests never need them, and start-up stays short.
// js-yaml decodes request bodies and writes responses: both are linear in their input, and decoding bounds nesting.
// The `yaml` library (whose mappings look keys up one by one, quadratic in their size, and whose writer builds a
// node tree first) reads and writes local configuration files, which are small.
type YamlModule = typeof import('yaml');
type YamlDecoder = typeof import('js-yaml');
let loaded: YamlModule | undefined;
let decoder: YamlDecoder | undefined;
let writerSchema: import('js-yaml').Schema | undefined;

export async function loadYaml(): Promise<YamlModule> {
  // the programs bundle this CommonJS package, and a bundled CommonJS module's namespace holds its exports as default
  const m = await import('yaml') as YamlModule & { default?: YamlModule };
  return (loaded ??= typeof m.parse === 'function' ? m : m.default!);
}

/** loads both: the writer of responses and the decoder of request bodies */
export async function loadYamlCodecs(): Promise<void> {
  await loadYaml();
  decoder ??= await import('js-yaml');
}

/** the module, for synchronous code paths reached only after loadYaml() */
export function yaml(): YamlModule {
  if (!loaded) throw new Error('the YAML library is not loaded yet; call loadYaml() first');
  return loaded;
}

/** the request-body decoder, for synchronous code paths reached only after loadYamlCodecs() */
export function yamlDecoder(): YamlDecoder {
  if (!decoder) throw new Error('the YAML decoder is not loaded yet; call loadYamlCodecs() first');
  return decoder;
}

/**
 * A string some YAML reader could take for a number: YAML 1.1 readers (kubectl's, PyYAML) accept signs, leading dots,
 * `_` separators, base-60 and 0x/0o/0b forms that js-yaml's own schema does not, so js-yaml alone would leave
 * `1_000` or `+.5` unquoted. Quoting a few more strings than needed costs nothing.
 */
const numberLike = (s: string) => /^[-+]?\.?[0-9]/.test(s) && /^[-+0-9._:a-fA-FxXoObBeE]+$/.test(s);

/**
 * The YAML of a JSON value for a response (one document, no trailing `---`): mappings keep their key order, long
 * lines are not folded, repeated objects are written again rather than as anchors and aliases, and strings that any
 * common reader (YAML 1.1 or 1.2) would take for another type are quoted. Undefined members are left out, as JSON
 * leaves them out. For synchronous code paths reached only after loadYamlCodecs().
 */
export function toYaml(value: unknown): string {
  const y = yamlDecoder();
  // a type that only ever answers "this string needs quotes": it represents nothing and is never used to read
  writerSchema ??= y.DEFAULT_SCHEMA.extend({ implicit: [new y.Type('tag:yaml.org,2002:str', { kind: 'scalar', resolve: numberLike })] });
  return y.dump(value, { schema: writerSchema, noRefs: true, lineWidth: -1, skipInvalid: true });
}
