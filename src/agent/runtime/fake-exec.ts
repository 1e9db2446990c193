// What `exec` runs in a simulated container, and the command of one that runs to completion (an init container, a
// Job's): a small shell over an in-memory file tree of the container, with the commands tools use (echo, cat, ls,
// mkdir, test, sleep, hostname, env, exit, sh -c with variables, and tar, which is how `kubectl cp` moves files both ways). Anything
// else is "not found" with exit code 127, as a shell says (or, for a container's own command, taken as done). No
// process of the host is ever run.
import { extract, pack } from 'tar-stream';
import { Readable, Writable } from 'node:stream';
import type { CommandIO } from '../streaming/remote-command.js';

interface FileNode { dir: boolean; data: Buffer; mode: number; mtime: Date }

/** a simulated container's files, by absolute path */
export type FakeFiles = Map<string, FileNode>;

export function fakeFiles(hostname: string, workingDir = '/'): FakeFiles {
  const now = new Date();
  const files: FakeFiles = new Map();
  for (const d of ['/', '/bin', '/etc', '/tmp', '/root']) files.set(d, { dir: true, data: Buffer.alloc(0), mode: 0o755, mtime: now });
  files.set('/etc/hostname', { dir: false, data: Buffer.from(`${hostname}\n`), mode: 0o644, mtime: now });
  // the runtime makes the container's working directory when the image has none
  mkdirs(files, resolve('/', workingDir));
  return files;
}

/** a path made absolute against `cwd`, with `.` and `..` resolved */
function resolve(cwd: string, p: string): string {
  const parts: string[] = [];
  for (const seg of (p.startsWith('/') ? p : `${cwd}/${p}`).split('/')) {
    if (!seg || seg === '.') continue;
    if (seg === '..') parts.pop(); else parts.push(seg);
  }
  return `/${parts.join('/')}`;
}

const parentOf = (p: string) => (p === '/' ? '/' : p.slice(0, p.lastIndexOf('/')) || '/');

/** `$NAME`, `${NAME}`, `$1` or `$?`, matched exactly where `lastIndex` points */
const variable = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*|[0-9?]))/y;

/** splits a command line into words: quotes group, `;` `&&` `||` separate commands, variables expand outside single
 *  quotes (an unquoted empty one is no word at all, as in sh); one command at a time, so a long script is never held
 *  whole as parsed commands, and each command sees what the ones before it set */
export function* parseScript(script: string, lookup: (name: string) => string = () => ''): Generator<{ words: string[]; then: ';' | '&&' | '||' }> {
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const flush = () => { if (inWord) words.push(word); word = ''; inWord = false; };
  /** the value of a variable at `i` and the index of its last character, if one starts there */
  const expand = (i: number): [string, number] | undefined => {
    variable.lastIndex = i;
    const m = variable.exec(script);
    return m ? [lookup(m[1] ?? m[2]!), i + m[0].length - 1] : undefined;
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === "'") {
      const end = script.indexOf(c, i + 1);
      word += script.slice(i + 1, end < 0 ? script.length : end);
      inWord = true;
      i = end < 0 ? script.length : end;
    } else if (c === '"') {
      inWord = true;
      for (i++; i < script.length && script[i] !== '"'; i++) {
        const d = script[i]!;
        const v = d === '$' ? expand(i) : undefined;
        if (v) { word += v[0]; i = v[1]; }
        else if (d === '\\' && '"\\$`'.includes(script[i + 1] ?? 'x')) word += script[++i];
        else word += d;
      }
    } else if (c === '\\' && i + 1 < script.length) { word += script[++i]; inWord = true; }
    else if (c === ' ' || c === '\t') flush();
    else if (c === ';' || c === '\n' || (c === '&' && script[i + 1] === '&') || (c === '|' && script[i + 1] === '|')) {
      flush();
      const then = c === '&' ? '&&' : c === '|' ? '||' : ';';
      if (then !== ';') i++;
      if (words.length) yield { words, then };
      words = [];
    } else {
      const v = c === '$' ? expand(i) : undefined;
      if (v) { word += v[0]; inWord ||= v[0] !== ''; i = v[1]; }
      else { word += c; inWord = true; }
    }
  }
  flush();
  if (words.length) yield { words, then: ';' as const };
}

async function readAll(from: Readable | undefined, limit = 64 * 2 ** 20): Promise<Buffer> {
  if (!from) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of from) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error('input too large for a simulated container');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

const write = (to: Writable | undefined, text: string | Buffer) => new Promise<void>(r => (to && !to.writableEnded ? to.write(text, () => r()) : r()));

export interface FakeExecContext {
  files: FakeFiles;
  hostname: string;
  env: Record<string, string>;
  /** a program the shell does not know is taken to have run and succeeded (the main process of a simulated container
   *  that runs to completion), instead of being "not found" */
  unknownSucceeds?: boolean;
  /** where its processes start (the container's workingDir); `/` without one */
  cwd?: string;
}

/** what a shell keeps between its commands: its directory, the variables it set, and the code it exits with */
interface ShellState { cwd: string; exited?: number; vars: Map<string, string> }

/** runs `argv` in the simulated container; resolves with the exit code */
export async function fakeExec(c: FakeExecContext, argv: string[], io: CommandIO): Promise<number> {
  return run(c, { cwd: resolve('/', c.cwd ?? '/'), vars: new Map() }, argv, io);
}

/** runs a script; `params` are its $0, $1... (the words after the script of `sh -c`) */
async function runScript(c: FakeExecContext, state: ShellState, script: string, io: CommandIO, params: string[] = []): Promise<number> {
  let code = 0;
  let skip = false;
  let ran = 0;
  const lookup = (name: string) => {
    if (name === '?') return String(code);
    if (/^[0-9]$/.test(name)) return params[Number(name)] ?? '';
    return state.vars.get(name) ?? (Object.hasOwn(c.env, name) ? c.env[name]! : name === 'HOSTNAME' ? c.hostname : '');
  };
  for (const { words, then } of parseScript(script, lookup)) {
    // a stopped command (its client gone, its container stopped) runs nothing more
    if (io.signal.aborted) return code;
    // most commands finish without waiting on anything: a long script gives the event loop back now and then
    if (++ran % 500 === 0) await new Promise(setImmediate);
    if (!skip) code = await run(c, state, words, io);
    if (state.exited !== undefined) return state.exited;
    skip = (then === '&&' && code !== 0) || (then === '||' && code === 0);
  }
  return code;
}

/** an interactive shell: reads lines from stdin and runs them until `exit` or the end of input */
async function interactive(c: FakeExecContext, state: ShellState, io: CommandIO): Promise<number> {
  const out = io.stdout;
  const prompt = () => (io.tty ? write(out, `${state.cwd} # `) : Promise.resolve());
  await prompt();
  let code = 0;
  let line = '';
  for await (const chunk of io.stdin ?? []) {
    for (const ch of (chunk as Buffer).toString('utf8')) {
      if (ch === '\r' || ch === '\n') {
        if (io.tty) await write(out, '\r\n');
        code = await runScript(c, state, line, { ...io, stdin: undefined });
        line = '';
        if (state.exited !== undefined) return state.exited;
        await prompt();
      } else if (ch === '\x04' && io.tty && !line) {
        return code;
      } else if (ch === '\x7f' && io.tty) {
        if (line) { line = line.slice(0, -1); await write(out, '\b \b'); }
      } else {
        line += ch;
        // a terminal shows what is typed
        if (io.tty) await write(out, ch);
      }
    }
  }
  return code;
}

/** applies the redirections of a command (`>&2`, `2>&1`, `> file`, `>> file`), then runs it */
async function run(c: FakeExecContext, state: ShellState, argv: string[], io: CommandIO): Promise<number> {
  const words: string[] = [];
  let stdout = io.stdout;
  let stderr = io.stderr;
  let file: { path: string; append: boolean } | undefined;
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === '>&2' || w === '1>&2') stdout = io.stderr ?? io.stdout;
    else if (w === '2>&1') stderr = stdout;
    else if (w === '2>/dev/null') stderr = undefined;
    else if (/^>>?/.test(w)) {
      const append = w.startsWith('>>');
      const path = w.slice(append ? 2 : 1) || argv[++i] || '';
      file = { path: resolve(state.cwd, path), append };
    } else words.push(w);
  }
  if (!file) return runCommand(c, state, words, { ...io, stdout, stderr });
  if (file.path === '/dev/null') return runCommand(c, state, words, { ...io, stdout: undefined, stderr });
  const chunks: Buffer[] = [];
  const collect = new Writable({ write(chunk: Buffer, _e, cb) { chunks.push(Buffer.from(chunk)); cb(); } });
  const code = await runCommand(c, state, words, { ...io, stdout: collect, stderr });
  const before = file.append ? c.files.get(file.path)?.data ?? Buffer.alloc(0) : Buffer.alloc(0);
  if (!c.files.get(parentOf(file.path))?.dir) { await write(stderr, `sh: can't create ${file.path}: nonexistent directory\n`); return 1; }
  c.files.set(file.path, { dir: false, data: Buffer.concat([before, ...chunks]), mode: 0o644, mtime: new Date() });
  return code;
}

/** the variables a container's processes start with */
const environment = (c: FakeExecContext): Record<string, string> => ({ HOSTNAME: c.hostname, ...c.env });

const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

/** the programs the simulated shell runs itself */
const programs = new Set(['sh', 'bash', 'ash', 'exit', 'true', 'false', 'echo', 'hostname', 'pwd', 'cd', 'env', 'sleep', 'cat', 'ls', 'mkdir', 'rm', 'test', '[', 'tar']);

const known = (program: string) => programs.has(program.replace(/^\/bin\//, ''));

/** whether the simulated shell can run a container's command as it is: a program it knows, and for `sh -c`, a script
 *  of such programs only (a loop, or a program it does not know, would end far sooner than the real one) */
export function knownCommand(argv: string[]): boolean {
  const [program, ...args] = argv;
  if (program === undefined || !known(program)) return false;
  const c = args.indexOf('-c');
  if (!/^(\/bin\/)?(sh|bash|ash)$/.test(program) || c < 0) return true;
  for (const { words } of parseScript(args[c + 1] ?? '', () => 'x')) {
    const first = words.find((w) => !assignment.test(w));
    if (first !== undefined && first !== 'export' && !known(first)) return false;
  }
  return true;
}

async function runCommand(c: FakeExecContext, state: ShellState, argv: string[], io: CommandIO): Promise<number> {
  // `A=1 B=2` or `export A=1` sets variables for the commands after it
  const exported = argv[0] === 'export';
  if (exported || (argv.length && argv.every(w => assignment.test(w)))) {
    for (const m of argv.map(w => assignment.exec(w))) if (m) state.vars.set(m[1]!, m[2]!);
    return 0;
  }
  const [cmd, ...args] = argv;
  const out = io.stdout;
  const err = io.tty ? io.stdout : io.stderr;
  const nl = io.tty ? '\r\n' : '\n';
  const fail = async (message: string, code = 1) => { await write(err, `${message}${nl}`); return code; };
  const f = c.files;
  switch (cmd?.replace(/^\/bin\//, '')) {
    case undefined: return 0;
    case 'sh': case 'bash': case 'ash': {
      const i = args.indexOf('-c');
      if (i >= 0) return runScript(c, state, args[i + 1] ?? '', io, args.slice(i + 2));
      return interactive(c, state, io);
    }
    case 'exit': state.exited = Number(args[0] ?? 0) & 255; return state.exited;
    case 'true': return 0;
    case 'false': return 1;
    case 'echo': {
      const noNewline = args[0] === '-n';
      await write(out, `${(noNewline ? args.slice(1) : args).join(' ')}${noNewline ? '' : nl}`);
      return 0;
    }
    case 'hostname': await write(out, `${c.hostname}${nl}`); return 0;
    case 'pwd': await write(out, `${state.cwd}${nl}`); return 0;
    case 'cd': {
      const to = resolve(state.cwd, args[0] ?? '/');
      if (!f.get(to)?.dir) return fail(`sh: cd: can't cd to ${args[0]}: No such file or directory`, 2);
      state.cwd = to;
      return 0;
    }
    case 'env': await write(out, Object.entries(environment(c)).map(([k, v]) => `${k}=${v}${nl}`).join('')); return 0;
    case 'sleep': {
      // seconds, or with a unit (5m); `sleep infinity`, or longer than a timer holds: until the command is stopped
      const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(args[0] ?? '0');
      if (!m && args[0] !== 'infinity') return fail(`sleep: invalid number '${args[0]}'`);
      const ms = m ? Number(m[1]) * 1000 * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[m[2]!]! : Infinity;
      await new Promise<void>(r => {
        if (io.signal.aborted) return r();
        const t = ms <= 2 ** 31 - 1 ? setTimeout(r, ms) : undefined;
        io.signal.addEventListener('abort', () => { clearTimeout(t); r(); }, { once: true });
      });
      return 0;
    }
    case 'cat': {
      if (!args.length) {
        for await (const chunk of io.stdin ?? []) {
          // on a terminal, ^D is the end of input (the line discipline's EOF)
          const end = io.tty ? (chunk as Buffer).indexOf(4) : -1;
          await write(out, end < 0 ? chunk as Buffer : (chunk as Buffer).subarray(0, end));
          if (end >= 0) break;
        }
        return 0;
      }
      let code = 0;
      for (const a of args) {
        const node = f.get(resolve(state.cwd, a));
        if (!node || node.dir) code = await fail(`cat: can't open '${a}': ${node ? 'Is a directory' : 'No such file or directory'}`);
        else await write(out, node.data);
      }
      return code;
    }
    case 'ls': {
      // as ls: what is missing said first, then the files named, then each directory (under its name when several)
      const named = args.filter(a => !a.startsWith('-'));
      const paths = named.length ? named : ['.'];
      let code = 0;
      const files: string[] = [];
      const dirs: string[] = [];
      for (const a of paths) {
        const node = f.get(resolve(state.cwd, a));
        if (!node) code = await fail(`ls: ${a}: No such file or directory`);
        else (node.dir ? dirs : files).push(a);
      }
      const entries = (dir: string) => [...f.keys()].filter(p => p !== dir && parentOf(p) === dir).map(p => p.slice(p.lastIndexOf('/') + 1)).sort();
      const blocks = files.length ? [files.map(a => `${a}${nl}`).join('')] : [];
      for (const d of dirs) blocks.push(`${paths.length > 1 ? `${d}:${nl}` : ''}${entries(resolve(state.cwd, d)).map(n => `${n}${nl}`).join('')}`);
      await write(out, blocks.join(nl));
      return code;
    }
    case 'mkdir': {
      const parents = args.includes('-p');
      for (const a of args.filter(x => !x.startsWith('-'))) {
        const p = resolve(state.cwd, a);
        if (f.has(p)) { if (!parents) return fail(`mkdir: can't create directory '${a}': File exists`); continue; }
        if (!parents && !f.get(parentOf(p))?.dir) return fail(`mkdir: can't create directory '${a}': No such file or directory`);
        mkdirs(f, p);
      }
      return 0;
    }
    case 'rm': {
      for (const a of args.filter(x => !x.startsWith('-'))) {
        const p = resolve(state.cwd, a);
        for (const k of [...f.keys()]) if (k === p || k.startsWith(`${p}/`)) f.delete(k);
      }
      return 0;
    }
    case 'test': case '[': {
      const t = cmd === '[' ? args.slice(0, -1) : args;
      const node = t[1] !== undefined ? f.get(resolve(state.cwd, t[1])) : undefined;
      const ok = t[0] === '-d' ? !!node?.dir : t[0] === '-f' ? !!node && !node.dir : t[0] === '-e' ? !!node : t.length === 1 && t[0] !== '';
      return ok ? 0 : 1;
    }
    case 'tar': return tar(c, state, args, io, fail);
    default:
      return c.unknownSucceeds ? 0 : fail(`sh: ${cmd}: not found`, 127);
  }
}

/** a file at an absolute path, its folders made */
export function addFile(f: FakeFiles, path: string, data: Buffer, mode: number) {
  mkdirs(f, parentOf(path));
  f.set(path, { dir: false, data, mode, mtime: new Date() });
}

function mkdirs(f: FakeFiles, p: string) {
  const parts = p.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const d = `/${parts.slice(0, i).join('/')}`;
    if (!f.has(d)) f.set(d, { dir: true, data: Buffer.alloc(0), mode: 0o755, mtime: new Date() });
  }
}

/** `tar c|x [v][m][f -] [-C dir] [paths]`: the archive on stdout or from stdin */
async function tar(c: FakeExecContext, state: { cwd: string }, args: string[], io: CommandIO, fail: (m: string, code?: number) => Promise<number>): Promise<number> {
  const f = c.files;
  let mode: 'c' | 'x' | undefined;
  let dir = state.cwd;
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-C') { dir = resolve(state.cwd, args[++i] ?? '.'); continue; }
    if (a === '-f' || a === '--file') { i++; continue; }
    if (a.startsWith('--')) continue;
    if (i === 0 || /^-[a-zA-Z]+$/.test(a)) {
      const letters = a.replace(/^-/, '');
      if (letters.includes('c')) mode = 'c';
      if (letters.includes('x')) mode = 'x';
      // `f` takes the next word as the archive (always `-`, stdin or stdout, here)
      if (letters.includes('f') && args[i + 1] === '-') i++;
      continue;
    }
    paths.push(a);
  }
  if (mode === 'c') {
    const p = pack();
    let code = 0;
    for (const src of paths) {
      const abs = resolve(dir, src);
      if (!f.has(abs)) { code = await fail(`tar: ${src}: No such file or directory`); continue; }
      for (const [path, node] of [...f.entries()].filter(([k]) => k === abs || k.startsWith(`${abs}/`)).sort(([a], [b]) => a.localeCompare(b))) {
        const name = path.replace(/^\/+/, '');
        if (node.dir) p.entry({ name: `${name}/`, type: 'directory', mode: node.mode, mtime: node.mtime });
        else p.entry({ name, type: 'file', mode: node.mode, mtime: node.mtime }, node.data);
      }
    }
    p.finalize();
    for await (const chunk of p) await write(io.stdout, chunk as Buffer);
    return code;
  }
  if (mode === 'x') {
    if (!f.get(dir)?.dir) return fail(`tar: can't change directory to '${dir}': No such file or directory`, 2);
    const x = extract();
    const done = new Promise<void>((res, rej) => { x.on('finish', res).on('error', rej); });
    x.on('entry', (h, stream, next) => {
      const target = resolve(dir, h.name);
      readAll(stream as unknown as Readable).then(data => {
        if (h.type === 'directory') mkdirs(f, target);
        else if (h.type === 'file' || h.type === 'contiguous-file') {
          mkdirs(f, parentOf(target));
          f.set(target, { dir: false, data, mode: h.mode ?? 0o644, mtime: h.mtime ?? new Date() });
        }
        next();
      }, next);
    });
    try {
      (io.stdin ?? Readable.from([])).pipe(x as unknown as Writable);
      await done;
    } catch (e) {
      return fail(`tar: ${(e as Error).message}`, 2);
    }
    return 0;
  }
  return fail('tar: need one of -c or -x', 2);
}
