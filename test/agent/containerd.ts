// Debian's containerd (with runc) for the agent's tests: started in its own mount namespace with a
// private /run, on a socket in a temporary folder, with images built locally from busybox-static
// (no registry is reachable): `localhost/busybox:1`, the sandbox image `localhost/pause:1`, and an
// unused `localhost/extra:1` for garbage collection.
//
// The agent's root folder is made here, a shared mount the runtime's namespace follows (a slave of it),
// so the tmpfs and bind mounts the agent makes for volumes reach the containers.
//
// Networks: `loopback` (the default) configures a CNI network of the loopback plugin only, so the
// runtime reports its network ready and the host's network is untouched (the tests' pods use the host
// network); `private` runs containerd in a network namespace of its own with no CNI configuration at
// first (the runtime reports NetworkReady=false): `configureBridge` then adds a bridge network with host
// ports (portmap), and `inNetwork` runs a command in that namespace, which is the node's network.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, symlinkSync, copyFileSync, writeFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tempDir } from './helpers.js';
import { criRuntime } from '../../src/agent/runtime/cri.js';

export interface Containerd {
  endpoint: string;
  dir: string;
  /** the agent's --root-dir: a shared mount the runtime sees */
  agentRoot: string;
  /** a --cgroup-root of this test's own, removed at stop */
  cgroupRoot: string;
  /** the ctr client against this containerd, in its namespace */
  ctr(...args: string[]): string;
  /** imports one of the images built for the tests again (after a test removed it) */
  importImage(name: 'busybox' | 'pause' | 'extra'): void;
  /** `private` network: adds the bridge and host-port network (subnet 10.88.0.0/24, gateway 10.88.0.1) */
  configureBridge(): void;
  /** `private` network: runs a command in the runtime's network namespace */
  inNetwork(command: string[], timeoutMs?: number): string;
  stop(): Promise<void>;
}

export interface ContainerdOptions {
  network?: 'loopback' | 'private';
}

const which = (cmd: string) => {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
};

/** Why containerd cannot run here, or nothing when it can. */
export function containerdMissing(): string | undefined {
  if (process.getuid?.() !== 0) return 'containerd needs root';
  for (const cmd of ['containerd', 'runc', 'ctr', 'unshare', 'nsenter']) if (!which(cmd)) return `${cmd} is not installed (scripts/ensure-deps.sh installs containerd runc busybox-static)`;
  if (!existsSync('/bin/busybox') && !which('busybox')) return 'busybox-static is not installed';
  if (!['/usr/lib/cni', '/opt/cni/bin'].some((d) => existsSync(join(d, 'loopback')))) return 'the CNI plugins are not installed (scripts/ensure-deps.sh installs containernetworking-plugins)';
  return undefined;
}

/** Why pods cannot get a bridge network with host ports here, or nothing when they can. */
export function cniMissing(): string | undefined {
  if (!['/usr/lib/cni', '/opt/cni/bin'].some((d) => ['bridge', 'host-local', 'portmap', 'loopback'].every((p) => existsSync(join(d, p))))) return 'the CNI plugins are not installed (scripts/ensure-deps.sh installs containernetworking-plugins)';
  if (!which('iptables')) return 'iptables is not installed';
  return undefined;
}

export async function startContainerd(o: ContainerdOptions = {}): Promise<Containerd> {
  const network = o.network ?? 'loopback';
  const dir = tempDir('agent-containerd-');
  const sock = join(dir, 'containerd.sock');
  for (const d of ['root', 'state', 'run', 'opt', 'cni-conf', 'agent']) mkdirSync(join(dir, d));
  const agentRoot = join(dir, 'agent');
  const cgroupRoot = `/${basename(dir)}`;
  execFileSync('mount', ['--bind', agentRoot, agentRoot]);
  execFileSync('mount', ['--make-rshared', agentRoot]);
  const cniBin = ['/usr/lib/cni', '/opt/cni/bin'].find((d) => existsSync(join(d, 'loopback'))) ?? '/usr/lib/cni';
  if (network === 'loopback') writeFileSync(join(dir, 'cni-conf', '99-loopback.conflist'), JSON.stringify({ cniVersion: '0.4.0', name: 'loopback', plugins: [{ type: 'loopback' }] }));
  writeFileSync(join(dir, 'config.toml'), `version = 2
root = "${dir}/root"
state = "${dir}/state"
[grpc]
  address = "${sock}"
[ttrpc]
  address = "${sock}.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "${dir}/opt"
[plugins."io.containerd.grpc.v1.cri"]
  restrict_oom_score_adj = true
  stats_collect_period = 1
  sandbox_image = "localhost/pause:1"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${cniBin}"
    conf_dir = "${dir}/cni-conf"
`);
  const netns = network === 'private' ? ['--net'] : [];
  const setup = network === 'private' ? 'ip link set lo up && ' : '';
  const proc: ChildProcess = spawn('unshare', ['--mount', ...netns, '--propagation', 'slave', 'sh', '-c', `${setup}mount --bind ${dir}/run /run && exec containerd --config ${dir}/config.toml`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (d) => { log = (log + d.toString()).slice(-20_000); });
  const deadline = Date.now() + 20_000;
  while (!existsSync(sock)) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`containerd did not start: ${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // ctr runs synchronously: bounded, and tried again, so a containerd slow under load cannot hang the test file
  const ctr = (...args: string[]) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return execFileSync('nsenter', ['-t', String(proc.pid), '-m', 'ctr', '--address', sock, '-n', ['k8s', 'io'].join('.'), ...args],
          { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
      } catch (e) {
        if (attempt >= 3) throw new Error(`ctr ${args.join(' ')} failed: ${(e as Error).message}\n${log.slice(-2000)}`);
      }
    }
  };
  const images = join(dir, 'images');
  const archives = {
    busybox: buildImage(images, 'busybox', ['sh'], []),
    pause: buildImage(images, 'pause', [], ['/bin/sleep', '2147483647']),
    extra: buildImage(images, 'extra', ['true'], []),
  };
  for (const archive of Object.values(archives)) ctr('images', 'import', archive);

  return {
    endpoint: `unix://${sock}`,
    dir,
    agentRoot,
    cgroupRoot,
    ctr,
    importImage: (name) => void ctr('images', 'import', archives[name]),
    configureBridge() {
      writeFileSync(join(dir, 'cni-conf', '10-bridge.conflist'), JSON.stringify({
        cniVersion: '0.4.0', name: 'agent-test',
        plugins: [
          { type: 'bridge', bridge: 'cni0', isGateway: true, ipMasq: true, hairpinMode: true, ipam: { type: 'host-local', ranges: [[{ subnet: '10.88.0.0/24' }]], dataDir: join(dir, 'ipam') } },
          { type: 'portmap', capabilities: { portMappings: true } },
        ],
      }));
    },
    inNetwork(command, timeoutMs = 30_000) {
      return execFileSync('nsenter', ['-t', String(proc.pid), '-n', ...command], { encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
    },
    async stop() {
      // every sandbox is stopped and removed through CRI first, so no container process outlives the test
      try {
        const runtime = await criRuntime({ endpoint: `unix://${sock}`, timeoutMs: 20_000, rootDir: dir, logMaxSize: 2 ** 20, logMaxFiles: 2 });
        for (const s of await runtime.listSandboxes()) {
          await runtime.stopSandbox(s.id).catch(() => {});
          await runtime.removeSandbox(s.id).catch(() => {});
        }
        runtime.close();
      } catch {}
      await new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
        setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
      });
      killShims(dir);
      // cgroup v1 has one tree per controller, v2 one tree; only empty groups can be removed
      const group = ['k8s', 'io'].join('.');
      removeEmptyCgroups(join('/sys/fs/cgroup', group));
      for (const c of readdirSync('/sys/fs/cgroup')) removeEmptyCgroups(join('/sys/fs/cgroup', c, group));
      for (const c of readdirSync('/sys/fs/cgroup')) removeEmptyCgroups(join('/sys/fs/cgroup', c, cgroupRoot));
      execFileSync('sh', ['-c', `grep " ${dir}/" /proc/mounts | cut -d" " -f2 | sort -r | xargs -r -n1 umount -l`], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** shims started for this containerd (their command line names its socket) are ended */
function killShims(dir: string) {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes('containerd-shim') && cmd.includes(dir)) process.kill(Number(pid), 'SIGKILL');
    } catch {}
  }
}

function removeEmptyCgroups(root: string) {
  if (!existsSync(root)) return;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
    try {
      rmdirSync(d);
    } catch {}
  };
  walk(root);
}

/** An OCI image archive of busybox-static with its applets linked, named localhost/<name>:1. */
function buildImage(base: string, name: string, cmd: string[], entrypoint: string[]): string {
  const work = join(base, name);
  const rootfs = join(work, 'rootfs');
  const blobs = join(work, 'layout', 'blobs', 'sha256');
  mkdirSync(join(rootfs, 'bin'), { recursive: true });
  mkdirSync(join(rootfs, 'tmp'), { recursive: true });
  mkdirSync(blobs, { recursive: true });
  const busybox = existsSync('/bin/busybox') ? '/bin/busybox' : which('busybox');
  copyFileSync(busybox, join(rootfs, 'bin', 'busybox'));
  const applets = execFileSync(busybox, ['--list'], { encoding: 'utf8' }).split('\n').filter((a) => a && a !== 'busybox');
  for (const applet of applets) symlinkSync('busybox', join(rootfs, 'bin', applet));
  const layerTar = join(work, 'layer.tar');
  execFileSync('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', rootfs, '-cf', layerTar, '.']);
  const blob = (data: Buffer) => {
    const digest = createHash('sha256').update(data).digest('hex');
    writeFileSync(join(blobs, digest), data);
    return { digest: `sha256:${digest}`, size: data.length };
  };
  const layer = blob(readFileSync(layerTar));
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const config = blob(Buffer.from(JSON.stringify({
    architecture: arch, os: 'linux',
    config: { Env: ['PATH=/bin'], ...(cmd.length ? { Cmd: cmd } : {}), ...(entrypoint.length ? { Entrypoint: entrypoint } : {}) },
    rootfs: { type: 'layers', diff_ids: [layer.digest] },
  })));
  const manifest = blob(Buffer.from(JSON.stringify({
    schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...layer }],
  })));
  writeFileSync(join(work, 'layout', 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  writeFileSync(join(work, 'layout', 'index.json'), JSON.stringify({
    schemaVersion: 2,
    manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', ...manifest, annotations: { 'io.containerd.image.name': `localhost/${name}:1`, 'org.opencontainers.image.ref.name': '1' } }],
  }));
  const archive = join(work, `${name}.tar`);
  execFileSync('tar', ['-C', join(work, 'layout'), '-cf', archive, '.']);
  if (!statSync(archive).size) throw new Error(`image archive ${archive} is empty`);
  return archive;
}
