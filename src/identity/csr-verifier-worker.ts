import { parentPort } from 'node:worker_threads';
import { verifyCsrSync } from './csr-verification.js';
import { IdentityError } from './identity-error.js';
import type { CsrJob, CsrJobResult } from './csr-verifier-pool.js';

/** A worker of the CSR verifier pool: verifies each job's requests synchronously and answers with its id. */
parentPort?.on('message', (job: CsrJob) => {
  let result: CsrJobResult;
  try {
    result = { id: job.id, keys: job.csrs.map((csr) => verifyCsrSync(csr.pem, csr.field)) };
  } catch (error) {
    result = { id: job.id, error: error instanceof IdentityError ? { code: error.code, message: error.message } : { code: 'Internal', message: error instanceof Error ? error.message : String(error) } };
  }
  parentPort?.postMessage(result);
});
