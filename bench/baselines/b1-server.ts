import { createServer } from 'node:http';

// B1: reads the whole body, parses it with URLSearchParams, checks one field, answers 303 (400 without it).
// A denominator: never change it together with product code.
const port = Number(process.env.PORT ?? 0);
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const fields = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    if (!fields.get('email')) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Bad Request');
      return;
    }
    res.writeHead(303, { location: 'http://localhost/thanks', 'content-type': 'text/plain; charset=utf-8' });
    res.end('See Other');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
