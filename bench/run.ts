// The single entry for all benchmarks: `npm run bench` (all suites) or
// `node dist/bench/run.js <suite>...`. Each suite returns a Markdown body; it is printed and
// written into BENCHMARKS.md as its own section, with the command, date and machine.
import { fuzzBench } from './fuzz.js';
import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { startBench } from './start.js';
import { storageBench } from './storage.js';
import { apiBench } from './api.js';
import { applyBench } from './apply.js';
import { agentBench } from './agent.js';
import { authBench } from './auth.js';
import { crdBench } from './crd.js';
import { testingBench } from './testing.js';
import { schedulerBench } from './scheduler.js';
import { deploymentBench } from './deployment.js';
import { admissionBench } from './admission.js';
import { overloadBench } from './overload.js';
import { streamsBench } from './streams.js';
import { scaleBench } from './scale.js';
import { memoryBench } from './memory.js';
import { bigobjBench } from './bigobj.js';

/** `alone`: long suites that run only when named */
const suites: { name: string; run: () => Promise<string>; alone?: boolean }[] = [
  { name: 'start', run: startBench },
  { name: 'fuzz', run: fuzzBench },
  { name: 'storage', run: storageBench },
  { name: 'api', run: apiBench },
  { name: 'apply', run: applyBench },
  { name: 'agent', run: agentBench },
  { name: 'auth', run: authBench },
  { name: 'crd', run: crdBench },
  { name: 'testing', run: testingBench },
  { name: 'scheduler', run: schedulerBench },
  { name: 'deployment', run: deploymentBench },
  { name: 'admission', run: admissionBench },
  { name: 'overload', run: overloadBench },
  { name: 'streams', run: streamsBench },
  // long: run alone (`node dist/bench/run.js scale`); sizes from SCALE_NODES, SCALE_PODS, SCALE_QPS
  { name: 'scale', run: scaleBench, alone: true },
  // long: run alone; the number of Pods from MEMORY_PODS
  { name: 'memory', run: memoryBench, alone: true },
  // long: run alone; requests per verb from BIGOBJ_N, cases from BIGOBJ_ONLY
  { name: 'bigobj', run: bigobjBench, alone: true },
];

const FILE = 'BENCHMARKS.md';

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter(name => !suites.some(s => s.name === name));
  if (unknown.length) throw new Error(`unknown suite(s) ${unknown.join(', ')}; known: ${suites.map(s => s.name).join(', ')}`);
  for (const suite of suites.filter(s => (wanted.length === 0 ? !s.alone : wanted.includes(s.name)))) {
    const started = Date.now();
    const loadBefore = loadavg()[0];
    const body = await suite.run();
    const section = [
      `## ${suite.name}`,
      '',
      `Command: \`npm run bench\` (this suite alone: \`node dist/bench/run.js ${suite.name}\`). `
        + `Date: ${new Date().toISOString().slice(0, 10)}. `
        + `Machine: ${availableParallelism()} CPUs (nproc), ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, `
        + `Node ${process.version}, ${process.platform} ${process.arch}. Took ${Math.round((Date.now() - started) / 1000)} s. `
        + `Load average (1 min): ${loadBefore.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end.`,
      '',
      body,
      '',
    ].join('\n');
    console.log(section);
    await writeSection(suite.name, section);
  }
}

/** replaces the suite's section in BENCHMARKS.md (or appends it), keeping the others */
async function writeSection(name: string, section: string) {
  const current = await readFile(FILE, 'utf8').catch(() => '# Benchmarks\n\nWritten by `npm run bench`; one section per suite.\n');
  const sections = current.split(/^(?=## )/m);
  const index = sections.findIndex(s => s.startsWith(`## ${name}\n`));
  if (index >= 0) sections[index] = section + '\n';
  else sections.push((sections[sections.length - 1].endsWith('\n\n') ? '' : '\n') + section + '\n');
  await writeFile(FILE, sections.join('').replace(/\n+$/, '\n'));
}

main().catch(err => {
  console.error(err);
  process.exitCode = 1;
});
