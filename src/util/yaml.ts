// The YAML libraries are loaded on first use: most requests never need them, and start-up stays short.
// Request bodies are decoded by js-yaml, which is linear in its input and bounds nesting; the `yaml` library (whose
// mappings look keys up one by one, quadratic in their size) writes responses and reads local configuration files.
type YamlModule = typeof import('yaml');
type YamlDecoder = typeof import('js-yaml');
let loaded: YamlModule | undefined;
let decoder: YamlDecoder | undefined;

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
