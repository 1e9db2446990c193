// /version: the reference release this server implements, with this package's version as build metadata.
import { readFileSync } from 'node:fs';

const referenceRelease = { major: '1', minor: '27', patch: '16' };

export function versionInfo() {
  // the package's own version, from the nearest package.json above this file (compiled or bundled)
  let pkg = '0.0.0';
  for (let up = '../'; up.length <= 12; up += '../') {
    try { pkg = JSON.parse(readFileSync(new URL(`${up}package.json`, import.meta.url), 'utf8')).version; break; } catch { /* look higher */ }
  }
  const { major, minor, patch } = referenceRelease;
  return {
    major, minor,
    gitVersion: `v${major}.${minor}.${patch}+cluster-${pkg}`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-11-23T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
