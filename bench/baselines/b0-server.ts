import { createServer } from 'node:http';

// B0, "the server that does nothing": answers 303 without reading the body (Node discards it after `end`).
// A denominator: never change it together with product code.
const port = Number(process.env.PORT ?? 0);
const server = createServer((_req, res) => {
  res.writeHead(303, { location: 'http://localhost/thanks', 'content-type': 'text/plain; charset=utf-8' });
  res.end('See Other');
});
server.keepAliveTimeout = 65_000;
server.listen(port, process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
