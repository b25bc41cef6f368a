import fc from 'fast-check';
import type { FuzzAnswer } from './fuzz-request.js';

/** One API's fuzz target: cases, and what is checked after each. */
export interface FuzzTarget<Case> {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<Case>;
  /**
   * Sends the case and checks what must hold after it (nothing stored from a refused request,
   * and so on): the answer, and a problem when something did not hold.
   */
  run(c: Case): Promise<{ answer: FuzzAnswer; problem?: string }>;
  /** The 5xx answers the API documents (e.g. 503 while not ready): those are not failures. */
  documented5xx(answer: FuzzAnswer): boolean;
}

export interface FuzzResult {
  readonly api: string;
  /** Cases run (before any failure; shrinking runs are counted apart). */
  readonly cases: number;
  readonly shrinks: number;
  /** Answers by HTTP status, of the cases counted. */
  readonly statuses: ReadonlyMap<number, number>;
  /** 5xx answers that were not documented ones (any makes the run fail). */
  readonly undocumented5xx: number;
  readonly documented5xx: number;
  /** The failure, shrunk, with the seed and path to replay it. */
  readonly failure?: string;
  readonly seconds: number;
}

const clip = (text: string, max = 600): string => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

/**
 * Runs `numRuns` cases of `target` with fast-check from `seed`: every case must be answered,
 * with no undocumented 5xx, and its after-checks must hold. A failing case is shrunk and
 * reported with the seed and counterexample path (`EDGEPLANE_FUZZ_SEED=<seed>` replays it).
 */
export async function runFuzzTarget<Case>(target: FuzzTarget<Case>, seed: number, numRuns: number, progress: (line: string) => void): Promise<FuzzResult> {
  const started = performance.now();
  const statuses = new Map<number, number>();
  let cases = 0;
  let shrinks = 0;
  let failing = false;
  let undocumented = 0;
  let documented = 0;
  const property = fc.asyncProperty(target.arbitrary, async (c) => {
    let outcome: { answer: FuzzAnswer; problem?: string };
    try {
      outcome = await target.run(c);
    } catch (error) {
      outcome = { answer: { status: 0, contentType: '', body: '' }, problem: `no answer: ${error instanceof Error ? error.message : String(error)}` };
    }
    const { answer } = outcome;
    const fiveHundred = answer.status >= 500;
    const allowed = fiveHundred && target.documented5xx(answer);
    if (failing) shrinks++;
    else {
      cases++;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (fiveHundred && allowed) documented++;
      if (fiveHundred && !allowed) undocumented++;
      if (cases % 500 === 0) progress(`${target.name}: ${cases}/${numRuns} cases`);
    }
    const problem = fiveHundred && !allowed ? `answered ${answer.status}: ${clip(answer.body, 300)}` : outcome.problem;
    if (problem !== undefined) {
      failing = true;
      throw new Error(problem);
    }
  });
  const details = await fc.check(property, { seed, numRuns, endOnFailure: false, maxSkipsPerRun: 0 });
  let failure: string | undefined;
  if (details.failed) {
    const message = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    failure = `${target.name}: ${clip(message, 400)} — shrunk case ${clip(JSON.stringify(details.counterexample?.[0]))} (seed ${details.seed}, path "${details.counterexamplePath ?? ''}", after ${details.numRuns} cases)`;
  }
  return {
    api: target.name,
    cases,
    shrinks,
    statuses,
    undocumented5xx: undocumented,
    documented5xx: documented,
    ...(failure === undefined ? {} : { failure }),
    seconds: (performance.now() - started) / 1000,
  };
}
