// A vscode-jsonrpc server over stdio answering initialize and a no-op
// engine/observe: the Node reference the Go server is compared with.
const rpc = require('vscode-jsonrpc/node');
const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(process.stdin), new rpc.StreamMessageWriter(process.stdout));
conn.onRequest('initialize', () => ({ protocolVersion: 1, manifest: { name: 'node-noop', version: '1.0.0', spiVersion: 1, platform: 'node', methods: ['engine/observe'] } }));
conn.onNotification('initialized', () => {});
conn.onRequest('engine/observe', () => ({ root: { ref: { id: 'root', revision: '' } }, viewport: { width: 1280, height: 720 } }));
conn.onRequest('shutdown', () => null);
conn.onNotification('exit', () => process.exit(0));
conn.listen();
