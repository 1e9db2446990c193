// The on-disk layout of the SQLite store: kine's revision log (one row per write, the
// row id is the revision) plus a small meta table with the format version and the
// compacted revision. Opening checks what is in the file before touching it.
import Database from 'better-sqlite3';
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StorageError } from '../types.js';

/** bump when the layout changes; a file with a newer version is refused, not misread */
export const FORMAT_VERSION = 1;

const CREATE = `
CREATE TABLE kv_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE kv_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- the revision of this write
  name TEXT NOT NULL,                    -- the key
  created INTEGER NOT NULL,              -- 1: this row creates a new incarnation of the key
  deleted INTEGER NOT NULL,              -- 1: this row is a tombstone
  create_revision INTEGER NOT NULL,      -- id of the row that created this incarnation
  prev_revision INTEGER NOT NULL,        -- id of the row this one supersedes (0: none); gives watch events their prevKv
  value BLOB NOT NULL
);
CREATE INDEX kv_log_name_id ON kv_log (name, id);
INSERT INTO kv_meta (name, value) VALUES ('format_version', ${FORMAT_VERSION}), ('compact_revision', 0);
`;

const invalid = (message: string) => new StorageError('Invalid', message);

/** open the store file, creating the schema in a new or empty file; throws a clear error for anything else */
export function openDatabase(file: string): Database.Database {
  const dir = dirname(resolve(file));
  const dirStat = statSync(dir, { throwIfNoEntry: false });
  if (!dirStat) throw invalid(`cannot open store ${file}: directory ${dir} does not exist`);
  if (!dirStat.isDirectory()) throw invalid(`cannot open store ${file}: ${dir} is not a directory`);
  const fileStat = statSync(file, { throwIfNoEntry: false });
  if (fileStat?.isDirectory()) throw invalid(`cannot open store ${file}: it is a directory`);
  // SQLite says no more than 'disk I/O error' of a file it may not write (its lock fails); the log is made beside the file
  const unwritable = notWritable(dir) ?? (fileStat ? notWritable(file) : undefined);
  if (unwritable) throw invalid(`cannot open store ${file}: ${unwritable}`);

  let db: Database.Database;
  try {
    db = new Database(file);
  } catch (err) {
    throw invalid(`cannot open store ${file}: ${(err as Error).message}`);
  }
  try {
    prepare(db, file);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** why this process may not write path, or undefined when it may */
function notWritable(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EROFS' ? `${path} is on a read-only file system` : `${path} is not writable by this process (${code})`;
  }
}

function prepare(db: Database.Database, file: string) {
  // One process owns the file: that is what lets writes publish watch events without polling.
  // An exclusive lock makes a second opener fail instead of silently missing events.
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('busy_timeout = 0');
  let tables: string[];
  try {
    tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).pluck().all() as string[];
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_NOTADB') throw invalid(`cannot open store ${file}: the file is not a SQLite database`);
    if (code === 'SQLITE_BUSY') throw new StorageError('Unavailable', `cannot open store ${file}: another process has it open`);
    throw invalid(`cannot open store ${file}: ${(err as Error).message}`);
  }

  if (tables.length === 0) {
    db.pragma('auto_vacuum = INCREMENTAL'); // must precede the first table; lets compaction return space
    setJournal(db, file);
    db.transaction(() => db.exec(CREATE))();
    return;
  }
  if (!tables.includes('kv_meta') || !tables.includes('kv_log')) {
    throw invalid(`cannot open store ${file}: it is a SQLite database of another kind (tables: ${tables.sort().join(', ')})`);
  }
  const version = db.prepare(`SELECT value FROM kv_meta WHERE name = 'format_version'`).pluck().get() as number | undefined;
  if (version === undefined) throw invalid(`cannot open store ${file}: its format version is missing`);
  if (version > FORMAT_VERSION) {
    throw invalid(`cannot open store ${file}: it has format version ${version}, newer than this program's ${FORMAT_VERSION}`);
  }
  setJournal(db, file);
  // stores made before checked each row's predecessor with a unique index as well. The write's own transaction
  // already checks it (kv.ts, apply), in the one process that holds the file, and the index cost 20–35% of a
  // write's storage time; a store without it is the same format to any version
  db.exec('DROP INDEX IF EXISTS kv_log_name_prev');
}

function setJournal(db: Database.Database, file: string) {
  let mode: unknown;
  try {
    mode = db.pragma('journal_mode = WAL', { simple: true });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY') throw new StorageError('Unavailable', `cannot open store ${file}: another process has it open`);
    throw err;
  }
  if (mode !== 'wal') throw invalid(`cannot open store ${file}: WAL journal mode is unavailable (got ${String(mode)})`);
  // commits do not fsync on the event loop: the store fsyncs the WAL itself, off the main thread, and acknowledges a
  // write only once that fsync covers it (kv.ts); checkpoints still sync the WAL and the database file
  db.pragma('synchronous = NORMAL');
  db.pragma('journal_size_limit = 67108864'); // shrink the WAL back to 64 MiB after a burst
  db.pragma('cache_size = -32768'); // 32 MiB of page cache
}
