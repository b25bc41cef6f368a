import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type VerifiedCsrKey, verifyCsr } from './csr-verification.js';
import { IdentityError, type IdentityErrorCode } from './identity-error.js';

/** Verifies CSRs (parse, import the key, check the signature) — in this thread or in workers. */
export interface CsrVerifier {
  /** Each request's verified key, in order; the first failure rejects (IdentityError). */
  verify(csrs: ReadonlyArray<{ readonly pem: string; readonly field: string }>): Promise<VerifiedCsrKey[]>;
  close(): Promise<void>;
}

/** What a worker is asked and answers. */
export interface CsrJob {
  readonly id: number;
  readonly csrs: ReadonlyArray<{ readonly pem: string; readonly field: string }>;
}
export type CsrJobResult = { readonly id: number; readonly keys: VerifiedCsrKey[] } | { readonly id: number; readonly error: { readonly code: IdentityErrorCode; readonly message: string } };

/** Verification on this thread (the signature check on libuv's pool): tests and `workers: 0`. */
export function inProcessCsrVerifier(): CsrVerifier {
  return { verify: (csrs) => Promise.all(csrs.map((csr) => verifyCsr(csr.pem, csr.field))), close: () => Promise.resolve() };
}

/** Workers of a pool by default: every core but the event loop's, at least one. */
export function defaultCsrWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

interface PoolWorker {
  readonly worker: Worker;
  readonly pending: Map<number, { resolve(keys: VerifiedCsrKey[]): void; reject(error: Error): void }>;
}

/**
 * CSR verification in `size` worker threads, started on first use. Importing a CSR's key
 * costs OpenSSL 3 about 90 µs and checking its signature as much again; off the event loop,
 * the loop serves requests while the workers verify. Jobs go to the worker with the fewest
 * pending; a worker that dies fails its pending jobs (Internal) and is replaced on next use.
 */
export function csrVerifierPool(size: number): CsrVerifier {
  if (!Number.isInteger(size) || size < 1) throw new Error(`a CSR verifier pool needs at least one worker, not ${size}`);
  const workers: Array<PoolWorker | undefined> = new Array<PoolWorker | undefined>(size).fill(undefined);
  let nextId = 0;
  let closed = false;

  const start = (slot: number): PoolWorker => {
    const worker = new Worker(new URL('./csr-verifier-worker.js', import.meta.url));
    worker.unref();
    const entry: PoolWorker = { worker, pending: new Map() };
    const fail = (error: Error): void => {
      if (workers[slot] === entry) workers[slot] = undefined;
      for (const job of entry.pending.values()) job.reject(error);
      entry.pending.clear();
    };
    worker.on('message', (result: CsrJobResult) => {
      const job = entry.pending.get(result.id);
      if (job === undefined) return;
      entry.pending.delete(result.id);
      if ('error' in result) job.reject(new IdentityError(result.error.code, result.error.message));
      else job.resolve(result.keys.map((key) => ({ subjectPublicKeyInfo: Buffer.from(key.subjectPublicKeyInfo), keyType: key.keyType })));
    });
    worker.on('error', (error) => fail(error));
    worker.on('exit', (code) => fail(new Error(`a CSR verifier worker exited (code ${code})`)));
    workers[slot] = entry;
    return entry;
  };

  const leastBusy = (): PoolWorker => {
    let best: PoolWorker | undefined;
    for (let slot = 0; slot < size; slot++) {
      const entry = workers[slot] ?? start(slot);
      if (best === undefined || entry.pending.size < best.pending.size) best = entry;
    }
    return best as PoolWorker;
  };

  return {
    verify: (csrs) => {
      if (closed) return Promise.reject(new IdentityError('Unavailable', 'the identity service is stopping'));
      const entry = leastBusy();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        entry.pending.set(id, { resolve, reject });
        entry.worker.postMessage({ id, csrs } satisfies CsrJob);
      });
    },
    close: async () => {
      closed = true;
      await Promise.all(workers.flatMap((entry) => (entry === undefined ? [] : [entry.worker.terminate()])));
    },
  };
}
