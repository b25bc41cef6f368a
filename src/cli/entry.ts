/**
 * The command's entry point without `bin/edgeplane.js`'s checkout checks: what the site agent
 * runs in a pod's sidecar container (`node …/dist/src/cli/entry.js sidecar …`).
 */
import { main } from './main.js';

process.exitCode = await main(process.argv);
