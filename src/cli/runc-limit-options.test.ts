import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { addRuncLimitOptions, runcLimits, type RuncLimitFlags } from './runc-limit-options.js';

/** The runc runtime's options from `args`, as `edgeplane site` parses them. */
function parse(args: readonly string[]): ReturnType<typeof runcLimits> {
  const command = addRuncLimitOptions(new Command('site')).exitOverride().configureOutput({ writeErr: () => undefined });
  command.parse(['node', 'site', ...args]);
  return runcLimits(command.opts<RuncLimitFlags>());
}

describe('the disk flags of runc sites', () => {
  it('give the site\'s cap, the check period and the log rotation in bytes and milliseconds; what is not given keeps the runtime\'s defaults', () => {
    assert.deepEqual(parse(['--site-ephemeral-storage', '20Gi', '--ephemeral-storage-check-seconds', '5', '--container-log-max-size', '1Mi', '--container-log-max-files', '3']), {
      podPidsLimit: 4096,
      siteEphemeralStorageBytes: 20 * 1024 ** 3,
      storageCheckMs: 5000,
      containerLogs: { maxSize: 1024 * 1024, maxFiles: 3 },
    });
    assert.deepEqual(parse(['--container-log-max-files', '2']), { podPidsLimit: 4096, containerLogs: { maxFiles: 2 } });
    assert.deepEqual(parse([]), { podPidsLimit: 4096 });
  });

  it('refuses a log size under 1Ki, fewer than 2 files, a cap of nothing and a period under a second', () => {
    for (const args of [['--container-log-max-size', '512'], ['--container-log-max-files', '1'], ['--site-ephemeral-storage', '0'], ['--ephemeral-storage-check-seconds', '0'], ['--site-ephemeral-storage', 'lots']]) {
      assert.throws(() => parse(args), /invalid/, args.join(' '));
    }
  });
});
