// A small MCP server (stdio, newline-delimited JSON-RPC written by hand, so that it can break
// the protocol's expectations on purpose) for the failure cases of test/mcp and test/e2e/mcp:
//   MODE_DELAY_MS  wait this long before answering initialize (a slow start)
//   TOOLS          how many generated tools to list (realistic schemas), default 3
//   PAGE           tools per tools/list page (pagination), default 100
//   STUBBORN=1     ignore the end of stdin and SIGTERM (only SIGKILL stops it)
// Tools: crash (the process exits mid-call), hang (never answers), big (10 MB of text),
// echo (returns its input), bad_schema (listed with an invalid input schema), env (variable
// names it sees; readOnlyHint), grow (adds 50 tools and sends tools/list_changed), tool_<n>.
import { createInterface } from 'node:readline';

const delay = Number(process.env.MODE_DELAY_MS ?? 0);
let count = Number(process.env.TOOLS ?? 3);
const stubborn = process.env.STUBBORN === '1';
if (stubborn) process.on('SIGTERM', () => {});
const page = Number(process.env.PAGE ?? 100);

const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const obj = (props, required) => ({ type: 'object', properties: props, required });

function tools() {
  const list = [
    { name: 'echo', description: 'Returns its input as text.', inputSchema: obj({ text: { type: 'string' } }, ['text']) },
    { name: 'crash', description: 'Exits the server process in the middle of the call.', inputSchema: obj({}) },
    { name: 'hang', description: 'Never answers.', inputSchema: obj({}) },
    { name: 'big', description: 'Returns 10 MB of text.', inputSchema: obj({}) },
    { name: 'bad_schema', description: 'Its schema is not an object schema.', inputSchema: { type: 'string' } },
    { name: 'grow', description: 'Adds 50 tools and says so with tools/list_changed.', inputSchema: obj({}) },
    { name: 'env', description: 'Returns the environment variable names the server sees.', inputSchema: obj({}), annotations: { readOnlyHint: true } },
  ];
  for (let i = 0; i < count; i++) {
    list.push({
      name: `tool_${String(i).padStart(3, '0')}`,
      description: `Tool number ${i} of the generated set. It looks up records of kind ${i} in the inventory, filtered and sorted as asked, and returns them as a table with one row per record. Use it when the person asks about kind ${i}.`,
      inputSchema: obj(
        {
          query: { type: 'string', description: 'Free text matched against the record titles and bodies.' },
          limit: { type: 'integer', description: 'How many records to return at most (1 to 100).', minimum: 1, maximum: 100 },
          sort: { type: 'string', enum: ['newest', 'oldest', 'relevance'], description: 'Order of the records returned.' },
          fields: { type: 'array', items: { type: 'string' }, description: 'Which columns to include in the table.' },
        },
        ['query'],
      ),
    });
  }
  return list;
}

const rl = createInterface({ input: process.stdin });
rl.on('close', () => {
  if (stubborn) setInterval(() => {}, 1000);
  else process.exit(0);
});
rl.on('line', async (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined) return; // notifications
  const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  switch (msg.method) {
    case 'initialize':
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      return reply({
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'failing', version: '1.0.0' },
        instructions: 'Failing server: use echo to test.',
      });
    case 'tools/list': {
      const all = tools();
      const start = msg.params?.cursor ? Number(msg.params.cursor) : 0;
      const next = start + page;
      return reply({ tools: all.slice(start, next), ...(next < all.length ? { nextCursor: String(next) } : {}) });
    }
    case 'tools/call': {
      const name = msg.params.name;
      const args = msg.params.arguments ?? {};
      if (name === 'crash') {
        process.stderr.write('failing server: crashing on purpose\n');
        process.exit(3);
      }
      if (name === 'hang') return;
      if (name === 'grow') {
        count += 50;
        reply({ content: [{ type: 'text', text: `now ${count} generated tools` }] });
        return send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      }
      if (name === 'big') return reply({ content: [{ type: 'text', text: 'x'.repeat(10 * 1024 * 1024 - 200) }] });
      if (name === 'env') return reply({ content: [{ type: 'text', text: `pid ${process.pid}: ${Object.keys(process.env).sort().join(',')}` }] });
      return reply({ content: [{ type: 'text', text: `${name}: ${JSON.stringify(args)}` }] });
    }
    case 'ping':
      return reply({});
    default:
      return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `no method ${msg.method}` } });
  }
});
