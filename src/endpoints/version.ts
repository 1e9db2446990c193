// /version: the reference release this server implements, with this package's version as build metadata.
import { packageVersion } from '../util/package.js';

const referenceRelease = { major: '1', minor: '27', patch: '16' };

export function versionInfo() {
  const pkg = packageVersion();
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
