import { accessSync, constants, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where tests (and benchmarks) find the command-line tools they run: `.tools/env.json`, written
 * by `scripts/provision-tools.mjs` (which `npm test` runs before the build). A tool that is not
 * there makes the test fail with its name and the command that provides it; nothing is looked
 * up on PATH behind the table's back.
 */

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const TOOLS_ENV_FILE = `${REPO}.tools/env.json`;

/** A provisioned tool: run `path` with `env` added to the environment. */
export interface Tool {
  readonly name: string;
  readonly path: string;
  /** What the binary needs in its environment (LD_LIBRARY_PATH for unpacked libraries), often nothing. */
  readonly env: Readonly<Record<string, string>>;
  readonly version: string;
  /** Where it came from, e.g. "Debian etcd-server 3.4.23-4+b4, unpacked" or "/usr/bin/openssl (system)". */
  readonly origin: string;
}

interface ToolsFile {
  readonly tools?: Record<string, { path?: unknown; env?: Record<string, string>; version?: unknown; origin?: unknown }>;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `EDGEPLANE_TOOL_<NAME>` (e.g. EDGEPLANE_TOOL_KUBECTL_1_20) points a tool at another binary. */
function toolOverrideVariable(name: string): string {
  return `EDGEPLANE_TOOL_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The provisioned tool, or an error naming it and the command that provides it. */
export function tool(name: string): Tool {
  const variable = toolOverrideVariable(name);
  const override = process.env[variable];
  if (override !== undefined && override !== '') {
    if (!executable(override)) throw new Error(`${name}: ${variable}=${override} is not an executable file`);
    return { name, path: override, env: {}, version: 'unknown', origin: `$${variable}` };
  }
  const fix = `run "node scripts/provision-tools.mjs ${name}" in ${REPO} (npm test provisions the tools the tests need)`;
  let file: ToolsFile;
  try {
    file = JSON.parse(readFileSync(TOOLS_ENV_FILE, 'utf8')) as ToolsFile;
  } catch {
    throw new Error(`${name} is not provisioned: ${TOOLS_ENV_FILE} is missing or unreadable; ${fix}`);
  }
  const entry = file.tools?.[name];
  if (entry === undefined || typeof entry.path !== 'string') throw new Error(`${name} is not provisioned (${TOOLS_ENV_FILE} does not list it); ${fix}`);
  if (!executable(entry.path)) throw new Error(`${name} is not provisioned: ${entry.path}, listed in ${TOOLS_ENV_FILE}, is not an executable file; ${fix}`);
  return { name, path: entry.path, env: entry.env ?? {}, version: String(entry.version), origin: String(entry.origin) };
}

/** The path of a tool that needs nothing in its environment (most do not; see {@link tool}). */
export function toolPath(name: string): string {
  const found = tool(name);
  if (Object.keys(found.env).length > 0) throw new Error(`${name} needs ${Object.keys(found.env).join(', ')} in its environment: run it through tool('${name}'), not toolPath`);
  return found.path;
}
