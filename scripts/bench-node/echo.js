// The floor: a process that only frames. It reads Content-Length frames
// from stdin and answers each with the same canned observe response,
// decoding no JSON (the id is copied by a byte search).
let buf = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const m = /Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
    const len = m ? Number(m[1]) : 0;
    if (buf.length < end + 4 + len) return;
    const body = buf.subarray(end + 4, end + 4 + len).toString('utf8');
    buf = buf.subarray(end + 4 + len);
    const id = /"id":(\d+)/.exec(body);
    const out = '{"jsonrpc":"2.0","id":' + (id ? id[1] : 'null') + ',"result":{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1280,"height":720}}}';
    process.stdout.write('Content-Length: ' + Buffer.byteLength(out) + '\r\n\r\n' + out);
  }
});
