// Round trip of a no-op engine/observe from a vscode-jsonrpc client over
// stdio (issue 11), against each server given, in alternating rounds:
//   node bench.js [--rounds 5] [--calls 3000] [--pin CPU] NAME=COMMAND ...
// e.g. node bench.js go=/path/example-engine node="node server.js" raw="node echo.js"
// It prints the median round trip per server and each one's ratio to the
// first and to the one named raw. --pin CPU starts every server under
// `taskset -c CPU` (run the client itself under `taskset -c` another CPU):
// client and server pinned to separate cores, as issue 11 measured.
const { spawn } = require('child_process');
const rpc = require('vscode-jsonrpc/node');

const args = process.argv.slice(2);
let rounds = 5, calls = 3000, pin = '';
const servers = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else if (args[i] === '--calls') calls = Number(args[++i]);
  else if (args[i] === '--pin') pin = args[++i];
  else { const k = args[i].indexOf('='); servers.push({ name: args[i].slice(0, k), cmd: args[i].slice(k + 1), samples: [] }); }
}
const observeParams = { operation: { signal: { id: 1 }, timeoutMs: 30000, runId: 'r', attemptId: 'a', origin: 'test' } };

async function round(s) {
  let [bin, ...rest] = s.cmd.split(' ');
  if (pin !== '') { rest = ['-c', pin, bin, ...rest]; bin = 'taskset'; }
  const child = spawn(bin, rest, { stdio: ['pipe', 'pipe', 'ignore'], cwd: __dirname });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  conn.listen();
  await conn.sendRequest('initialize', { protocolVersion: 1, clientInfo: { name: 'bench-node' }, role: 'worker' });
  await conn.sendNotification('initialized', {});
  for (let i = 0; i < 300; i++) await conn.sendRequest('engine/observe', observeParams); // warm up
  const t = [];
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    await conn.sendRequest('engine/observe', observeParams);
    t.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  conn.dispose();
  child.kill('SIGTERM');
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)];
}

(async () => {
  for (let r = 0; r < rounds; r++) for (const s of servers) s.samples.push(await round(s));
  const med = (xs) => { const y = [...xs].sort((a, b) => a - b); return y[Math.floor(y.length / 2)]; };
  const raw = servers.find((s) => s.name === 'raw');
  const first = servers[0];
  for (const s of servers) {
    const m = med(s.samples);
    let line = `${s.name.padEnd(8)} median ${m.toFixed(1)} µs (rounds: ${s.samples.map((x) => x.toFixed(0)).join(' ')})`;
    if (s !== first) line += `  ${first.name}/${s.name} ${(med(first.samples) / m).toFixed(2)}x`;
    if (raw && s !== raw) line += `  ${s.name}/raw ${(m / med(raw.samples)).toFixed(2)}x`;
    console.log(line);
  }
})().catch((e) => { console.error(e); process.exit(1); });
