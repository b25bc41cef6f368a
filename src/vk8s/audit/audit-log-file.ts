import { appendFileSync, chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../observability/logger.js';
import type { AuditEvent } from './audit-event.js';
import type { SessionAudit } from './session-audit.js';

/**
 * The session audit as kube-apiserver's `--audit-log-path` writes it: one JSON event a line,
 * appended to `path`. The folder is made 0700 when missing (a folder that exists open to
 * others is said so in the log), the file 0600 (an existing one is made 0600). Each record is
 * written before the call returns — so a session's start is on disk before its first byte
 * flows — by opening the file for each one, so a rotated-away file is followed by a new one.
 * A record that cannot be written is logged as an error and the session goes on.
 */
export function auditLogFile(path: string, logger?: Logger): SessionAudit {
  const folder = dirname(path);
  if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 });
  else if ((statSync(folder).mode & 0o077) !== 0) logger?.warn({ folder }, 'the audit log folder is open to other users than its owner');
  if (existsSync(path) && (statSync(path).mode & 0o077) !== 0) {
    chmodSync(path, 0o600);
    logger?.warn({ path }, 'made private: group and others had access');
  }
  return {
    record(event: AuditEvent): void {
      try {
        appendFileSync(path, `${JSON.stringify(event)}\n`, { mode: 0o600 });
      } catch (error) {
        logger?.error({ err: error, path, auditID: event.auditID, stage: event.stage }, 'could not write a session audit record');
      }
    },
  };
}
