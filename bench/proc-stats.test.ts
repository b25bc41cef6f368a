import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuTicks, isKernelThread, machineBusySeconds, machineBusyTicks, processCpuSeconds, processRssBytes, vmRssBytes } from './proc-stats.js';

describe('process figures from /proc', () => {
  it('reads VmRSS in bytes, and nothing from a status without it', () => {
    assert.equal(vmRssBytes('Name:\tnode\nVmPeak:\t  900 kB\nVmRSS:\t   51234 kB\nRssAnon:\t 40000 kB\n'), 51234 * 1024);
    assert.equal(vmRssBytes('Name:\tkworker/0:1\nState:\tI (idle)\n'), undefined);
  });

  it('adds utime and stime, whatever the command name holds', () => {
    const stat = '4242 (node -e a) b) S 1 4242 4242 0 -1 4194560 1000 0 0 0 731 59 0 0 20 0 11 0 12345 1000000 12000 18446744073709551615';
    assert.equal(cpuTicks(stat), 731 + 59);
    assert.throws(() => cpuTicks('garbage'), /not a \/proc\/<pid>\/stat line/);
  });

  it('adds the busy columns of the machine\'s cpu line, not idle and iowait', () => {
    const stat = 'cpu  3092302 7 221491 1500257 12982 3 18413 2669 11 0\ncpu0 1491586 0 106109 813684 2747 0 8240 1305 0 0\nintr 1\n';
    assert.deepEqual(machineBusyTicks(stat), { busy: 3092302 + 7 + 221491 + 3 + 18413 + 2669, interrupts: 3 + 18413 });
    assert.throws(() => machineBusyTicks('intr 1\n'), /not a \/proc\/stat text/);
  });

  it('tells kernel threads by their PF_KTHREAD flag', () => {
    assert.equal(isKernelThread('77 (kworker/1:1H-kblockd) I 2 0 0 0 -1 69238880 0 0 0 0 0 1000 0 0'), true);
    assert.equal(isKernelThread('4242 (node) S 1 4242 4242 0 -1 4194560 1000 0 0 0 731 59 0 0'), false);
  });

  it('reads this process and the machine', () => {
    const machine = machineBusySeconds();
    assert.ok(machine.busy > 0 && machine.kernel >= 0 && machine.kernel < machine.busy, JSON.stringify(machine));
    assert.ok(processCpuSeconds(process.pid) > 0);
    const rss = processRssBytes(process.pid) ?? 0;
    assert.ok(Math.abs(rss - process.memoryUsage().rss) < 64 * 1024 * 1024, `${rss} vs ${process.memoryUsage().rss}`);
    assert.equal(processRssBytes(2 ** 22 + 1), undefined);
  });
});
