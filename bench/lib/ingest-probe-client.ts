// P10's ingest probe, run as its own process by p9-p10.ts: paced single submissions (one at a time, 20 ms apart) to
// `BENCH_PROBE_URL` until its stdin closes. Prints `PROBEREADY` after its first answer, and at the end one line
// `PROBEJSON [...]` with each later answer's latency in ms (null for an answer that was not 2xx). Its own process, so that the export the bench reads at full speed does
// not delay the probe's event loop: the probe times the server, as another client would see it.

const url = process.env.BENCH_PROBE_URL ?? '';
const body = JSON.stringify({ email: 'probe@example.com', message: 'P10 probe' });
let running = true;
process.stdin.on('data', () => {});
process.stdin.on('end', () => {
  running = false;
});

const latencies: (number | null)[] = [];
let first = true;
while (running) {
  const started = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body,
  }).catch(() => null);
  await res?.arrayBuffer();
  if (first) process.stdout.write('PROBEREADY\n');
  else latencies.push(res?.ok ? performance.now() - started : null);
  first = false;
  await new Promise((r) => setTimeout(r, 20));
}
process.stdout.write(`PROBEJSON ${JSON.stringify(latencies)}\n`);
