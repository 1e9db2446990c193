// Bundles the programs from the compiled output into dist/bin: one file each plus shared and lazily loaded
// chunks, so a start loads a handful of files instead of hundreds of modules. Packages stay external, except the
// pure-JS ones every server start loads: resolving and reading their dozens of files cost more than their code.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bin', { recursive: true, force: true });   // chunk names change with their content

const bundled = new Set(['yaml', 'js-yaml', 'prom-client', 'tdigest', 'bintrees', '@opentelemetry/api', 'jose', 'cron-parser', 'luxon', 'commander',
  'rotating-file-stream', 'parse-prometheus-text-format', 'shallow-equal', 'sorted-btree']);
const packageName = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('node:') || !bundled.has(packageName(args.path)) ? { path: args.path, external: true } : undefined);
  },
};

await build({
  entryPoints: {
    apiserver: 'dist/src/main/cluster-apiserver.js', agent: 'dist/src/main/agent.js', 'controller-manager': 'dist/src/main/controller-manager.js',
    scheduler: 'dist/src/main/scheduler.js', clusterctl: 'dist/src/main/clusterctl.js', 'test-server': 'dist/src/main/test-server.js',
    'metrics-server': 'dist/src/main/metrics-server.js',
    // the start of the threads the API server runs its controller manager and scheduler on (found beside the chunks)
    'component-thread-main': 'dist/src/main/component-thread-main.js',
    // the thread that decodes large YAML bodies (see src/util/yaml-thread.ts)
    'yaml-thread-main': 'dist/src/util/yaml-thread-main.js',
  },
  outdir: 'dist/bin',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [externalPackages],
  // bundled CommonJS packages call require() for Node's own modules
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
