import { execFile } from 'node:child_process';

/**
 * One DNS query (an A record of a name under cluster.local, which dnsmasq answers itself, if
 * only with NXDOMAIN), sent from inside the site's network namespace by a node of the agent's
 * own: the server answers (a reply with our id) within `timeoutMs`.
 */
const QUERY = `const d=require('dgram').createSocket('udp4');
const labels=['edgeplane-health','cluster','local'].map((l)=>Buffer.concat([Buffer.from([l.length]),Buffer.from(l)]));
const q=Buffer.concat([Buffer.from([0x45,0x50,1,0,0,1,0,0,0,0,0,0]),...labels,Buffer.from([0,0,1,0,1])]);
d.on('message',(m)=>process.exit(m.readUInt16BE(0)===0x4550?0:1));
d.send(q,53,process.argv[1]);setTimeout(()=>process.exit(2),Number(process.argv[2]));`;

/** Whether the name server on `address` in `netns` answers a query. */
export function dnsAnswers(ip: string, netns: string, address: string, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(ip, ['netns', 'exec', netns, process.execPath, '-e', QUERY, address, String(timeoutMs)], { timeout: timeoutMs + 5000 }, (error) => resolve(error === null));
  });
}
