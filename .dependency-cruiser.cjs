// The layers of src/ and the only directions their imports may take (DESIGN.md, Layers). Each folder lists the
// folders it may import; anything else is a violation. Tests (*.test.ts and testing/ helpers) may reach across.
const layers = {
  util: [],
  api: ['util'],
  pki: ['util'],
  metrics: ['util'],
  config: ['api', 'util', 'pki', 'authn'],
  schema: ['api', 'util'],
  cel: ['api', 'schema', 'util'],
  patch: ['api', 'schema', 'util'],
  apply: ['api', 'schema', 'patch', 'util'],
  storage: ['api', 'util'],
  watch: ['api', 'storage', 'util'],
  authn: ['api', 'util', 'pki'],
  authz: ['api', 'util'],
  audit: ['api', 'util', 'metrics'],
  admission: ['api', 'util', 'schema', 'cel', 'patch', 'pki'],
  registry: ['api', 'util', 'storage', 'watch', 'schema', 'cel', 'apply', 'patch', 'pki'],
  endpoints: ['api', 'util', 'storage', 'watch', 'registry', 'schema', 'apply', 'patch', 'admission'],
  discovery: ['api', 'util', 'registry', 'endpoints'],
  openapi: ['api', 'util', 'schema', 'registry', 'endpoints'],
  health: ['api', 'util', 'endpoints'],
  debug: ['api', 'util', 'endpoints'],
  flowcontrol: ['api', 'util'],
  http: ['api', 'util', 'endpoints', 'discovery', 'openapi', 'health', 'metrics', 'flowcontrol'],
  client: ['api', 'util', 'config'],
  controllers: ['api', 'util', 'client', 'pki'],
  scheduler: ['api', 'util', 'client'],
  agent: ['api', 'util', 'client', 'config', 'pki'],
  cli: ['api', 'util', 'client', 'config'],
  metricsserver: ['api', 'util', 'client'],
  main: ['*'],
  // the testing kit composes a server for tests, as main composes the programs
  testing: ['*'],
};

const alternatives = (names) => `(${names.join('|')})`;
const folders = Object.keys(layers);

const layerRules = folders.filter(f => !layers[f].includes('*')).map(folder => ({
  name: `layer-${folder}`,
  comment: `src/${folder} may import only: ${layers[folder].join(', ') || 'nothing of the project'}`,
  severity: 'error',
  from: { path: `^src/${folder}/`, pathNot: '(\\.test\\.ts|/testing/.*)$' },
  to: {
    path: '^src/',
    pathNot: `^src/${alternatives([folder, ...layers[folder]])}/`,
  },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      comment: 'files do not import each other in a circle',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { circular: true },
    },
    {
      name: 'not-to-tests',
      comment: 'production code does not import tests',
      severity: 'error',
      from: { path: '^src/', pathNot: '(\\.test\\.ts|/testing/.*)$' },
      to: { path: '(\\.test\\.ts|^test/)' },
    },
    {
      name: 'known-layer',
      comment: 'every folder of src/ has its place in the layer table of this file',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: `^src/(?!${alternatives(folders)}/)[^/]+/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
