/**
 * The SQLite schema of the revision log (kine's layout). `kv.id` is the revision; a row with
 * `created_rev = 0` created its key (its create revision is its own id). `meta` holds the
 * compacted revision. AUTOINCREMENT keeps revisions strictly increasing even when compaction
 * deletes the newest rows.
 */
export const SCHEMA_VERSION = 1;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  name        TEXT    NOT NULL,
  created_rev INTEGER NOT NULL,
  prev_rev    INTEGER NOT NULL,
  deleted     INTEGER NOT NULL,
  lease       INTEGER NOT NULL,
  value       TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS kv_name_id ON kv (name, id);
CREATE INDEX IF NOT EXISTS kv_lease ON kv (lease) WHERE lease <> 0;
CREATE TABLE IF NOT EXISTS meta (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS lease (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  ttl        INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
`;
