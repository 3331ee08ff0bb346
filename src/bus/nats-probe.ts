import { connect } from 'node:net';

/**
 * Whether the nats-server at `host:port` answers: it greets every new connection with its
 * `INFO {…}` line at once, from the loop that serves clients, before any auth. A server that
 * is stopped, wedged or gone does not, within `timeoutMs`. Nothing else is sent, so the probe
 * needs no identity and the server logs nothing for it.
 */
export function natsAnswers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = '';
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      seen += chunk;
      if (seen.length >= 5) done(seen.startsWith('INFO '));
    });
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
  });
}
