/**
 * Programs run inside pods (on the host image: the host's node and python3) that probe or
 * attack the site network: a forged ARP sender (needs CAP_NET_RAW), UDP senders bound to a
 * given source address, and TCP and DNS probes that tell an answer from a refusal from
 * silence.
 */

/**
 * Python 3: `python3 -c ARP_FORGER <iface> <claimed ip> <target ip> <count> <seconds>` sends
 * `count` ARP replies over `seconds` saying `<claimed ip>` is at this interface's MAC, to the
 * target (every other one broadcast, the others to the target's MAC from the neighbour table),
 * through a raw packet socket: what `arping -U` does, without needing the address.
 */
export const ARP_FORGER = `import socket,struct,sys,time
iface,claim,target,count,seconds=sys.argv[1],sys.argv[2],sys.argv[3],int(sys.argv[4]),float(sys.argv[5])
s=socket.socket(socket.AF_PACKET,socket.SOCK_RAW,socket.htons(0x0806))
s.bind((iface,0))
mac=s.getsockname()[4]
tmac=b'\\xff'*6
for line in open('/proc/net/arp').read().splitlines()[1:]:
  f=line.split()
  if f[0]==target and f[3]!='00:00:00:00:00:00': tmac=bytes.fromhex(f[3].replace(':',''))
a=socket.inet_aton
for i in range(count):
  dst=b'\\xff'*6 if i%2==0 else tmac
  s.send(dst+mac+struct.pack('!H',0x0806)+struct.pack('!HHBBH',1,0x0800,6,4,2)+mac+a(claim)+tmac+a(target))
  time.sleep(seconds/count)
print('sent',count)
`;

/** Node: sends `count` UDP datagrams `text` from `source` (an address of the pod, or '' for the default) to `host:port`. */
export function udpSender(source: string, host: string, port: number, text: string, count = 10): string {
  return `const s=require('dgram').createSocket('udp4');s.on('error',(e)=>{console.log('ERR '+e.code);process.exit(0)});
s.bind({address:${JSON.stringify(source === '' ? undefined : source)}},()=>{let n=0;const t=setInterval(()=>{s.send(${JSON.stringify(text)},${port},${JSON.stringify(host)});if(++n===${count}){clearInterval(t);setTimeout(()=>{console.log('sent');process.exit(0)},100)}},20)})`;
}

/** Node: connects to `host:port`; prints CONNECTED, ERR <code> (refused, reset) or TIMEOUT (no answer at all within `ms`). */
export function tcpProbe(host: string, port: number, ms = 2000): string {
  return `const c=require('net').connect({host:${JSON.stringify(host)},port:${port}});const t=setTimeout(()=>{console.log('TIMEOUT');process.exit(0)},${ms});
c.on('connect',()=>{console.log('CONNECTED');process.exit(0)});c.on('error',(e)=>{console.log('ERR '+e.code);process.exit(0)})`;
}

/** Node: asks name server `server` for `name`'s A records (one try); prints the addresses or the error code (ETIMEOUT: no answer). */
export function dnsProbe(server: string, name: string, ms = 1500): string {
  return `const r=new (require('dns').Resolver)({timeout:${ms},tries:1});r.setServers([${JSON.stringify(server)}]);r.resolve4(${JSON.stringify(name)},(e,a)=>console.log(e?e.code:a.join()))`;
}

/** Node: HTTP GET of `url` (one request, no keep-alive); prints the body or ERR <code> / TIMEOUT. */
export function httpProbe(url: string, ms = 2000): string {
  return `const q=require('http').get(${JSON.stringify(url)},{agent:false},(s)=>{let b='';s.on('data',(d)=>b+=d);s.on('end',()=>{console.log(b);process.exit(0)})});
q.on('error',(e)=>{console.log('ERR '+e.code);process.exit(0)});setTimeout(()=>{console.log('TIMEOUT');process.exit(0)},${ms})`;
}

/** Node, a pod's server: HTTP on 8080 says the pod and the client address; UDP on 9999 records each datagram's source and text, listed at GET /udp. */
export const RECORDING_SERVER = `const os=require('os');const seen=[];
require('dgram').createSocket('udp4').on('message',(m,r)=>seen.push(r.address+' '+m)).bind(9999);
require('http').createServer((q,s)=>{if(q.url==='/udp')return s.end(JSON.stringify(seen));s.end(os.hostname()+' '+q.socket.remoteAddress)}).listen(8080)`;
