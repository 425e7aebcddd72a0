// Eight session.create calls at once, eight rounds (each followed by closing the eight and a
// 1.5 s pause), against any service with this API: ours, or the Playwright peer.
//   node benches/burst.mjs http://127.0.0.1:3337/rpc API_KEY
// Prints the median and every round's time in ms (the first round meets a pool not yet grown).
const [url = 'http://127.0.0.1:3337/rpc', key = process.env.API_KEY ?? ''] = process.argv.slice(2);
let id = 0;
async function call(method, params) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}
const rounds = [];
for (let i = 0; i < 8; i++) {
  const t0 = performance.now();
  const made = await Promise.all([...Array(8)].map(() => call('session.create', {})));
  rounds.push(performance.now() - t0);
  await Promise.all(made.map((s) => call('session.close', { session_id: s.session_id })));
  await new Promise((done) => setTimeout(done, 1500));
}
const sorted = [...rounds].sort((a, b) => a - b);
console.log(`8 creates at once: median ${sorted[4].toFixed(1)} ms; rounds ${rounds.map((t) => t.toFixed(0)).join(' ')}`);
