// Bundles the programs from the compiled output into dist/bin: one file each plus shared and lazily loaded
// chunks, so a start loads a handful of files instead of hundreds of modules. Packages stay external.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bin', { recursive: true, force: true });   // chunk names change with their content

await build({
  entryPoints: {
    apiserver: 'dist/src/main/cluster-apiserver.js', agent: 'dist/src/main/agent.js', 'controller-manager': 'dist/src/main/controller-manager.js',
    scheduler: 'dist/src/main/scheduler.js', clusterctl: 'dist/src/main/clusterctl.js', 'test-server': 'dist/src/main/test-server.js',
    'metrics-server': 'dist/src/main/metrics-server.js',
  },
  outdir: 'dist/bin',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
