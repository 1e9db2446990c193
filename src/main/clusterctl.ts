#!/usr/bin/env node
// clusterctl: the command-line client. The exit code is the command's.
import { runCli } from '../cli/program.js';

runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
}, (e) => {
  process.stderr.write(`error: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
