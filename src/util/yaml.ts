// The YAML library is loaded on first use: most requests never need it, and start-up stays short.
type YamlModule = typeof import('yaml');
let loaded: YamlModule | undefined;

export async function loadYaml(): Promise<YamlModule> {
  return (loaded ??= await import('yaml'));
}

/** the module, for synchronous code paths reached only after loadYaml() */
export function yaml(): YamlModule {
  if (!loaded) throw new Error('the YAML library is not loaded yet; call loadYaml() first');
  return loaded;
}
