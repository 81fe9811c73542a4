/** A real HTTP server on a free port for the client's tests: records every request and answers from a script. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Destroy the connection without answering (a network failure on the client's side). */
  hangUp?: boolean;
}

export interface TestServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/** `answer` is called for every request, with the request and how many came before it. */
export async function startServer(answer: (req: Recorded, index: number) => Answer): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = {
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://localhost'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = requests.length;
      requests.push(rec);
      const a = answer(rec, index);
      if (a.hangUp) {
        req.socket.destroy();
        return;
      }
      const body = a.body === undefined ? '' : JSON.stringify(a.body);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export const envelope = (code: string, message = code) => ({ success: false, error: { code, message } });

/** A sleep that only records how long the client asked to wait. */
export function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}
