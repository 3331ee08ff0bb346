import { createSocket, type Socket } from 'node:dgram';

/**
 * A loopback DNS server over UDP that speaks RFC 1035's wire format, encoded by hand: it
 * answers A, AAAA and TXT questions from a table and NXDOMAIN for every other name. Enough
 * for a real `dig` to query it; disposable (`await using dns = await startFakeDns({...})`).
 */

export interface FakeRecord {
  readonly type: 'A' | 'AAAA' | 'TXT';
  readonly data: string;
  readonly ttl?: number;
}

export interface FakeDns extends AsyncDisposable {
  readonly port: number;
  /** The questions asked, as `name type` (`host.example.test A`). */
  readonly questions: string[];
  close(): Promise<void>;
}

const TYPE_CODES = { A: 1, TXT: 16, AAAA: 28 } as const;
const CLASS_IN = 1;

export async function startFakeDns(
  zone: Readonly<Record<string, readonly FakeRecord[]>>,
): Promise<FakeDns> {
  const socket: Socket = createSocket('udp4');
  const questions: string[] = [];
  socket.on('message', (msg, from) => {
    const reply = answer(msg, zone, questions);
    if (reply !== undefined) socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => socket.close(() => resolve()));
  return {
    port: socket.address().port,
    questions,
    close,
    [Symbol.asyncDispose]: close,
  };
}

function answer(
  query: Buffer,
  zone: Readonly<Record<string, readonly FakeRecord[]>>,
  questions: string[],
): Buffer | undefined {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
  const { name, end } = readName(query, 12);
  const qtype = query.readUInt16BE(end);
  const question = query.subarray(12, end + 4);
  const typeName =
    Object.entries(TYPE_CODES).find(([, code]) => code === qtype)?.[0] ?? String(qtype);
  questions.push(`${name} ${typeName}`);
  const records = zone[name.toLowerCase()];
  const matching = (records ?? []).filter((r) => TYPE_CODES[r.type] === qtype);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // the query's id
  const rd = query.readUInt16BE(2) & 0x0100;
  // QR, AA, the query's RD; RCODE 3 (NXDOMAIN) for a name the zone does not have
  header.writeUInt16BE(0x8000 | 0x0400 | rd | (records === undefined ? 3 : 0), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(matching.length, 6);
  const answers = matching.map((r) => {
    const data = rdata(r);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // a pointer to the question's name
    rr.writeUInt16BE(TYPE_CODES[r.type], 2);
    rr.writeUInt16BE(CLASS_IN, 4);
    rr.writeUInt32BE(r.ttl ?? 300, 6);
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  });
  return Buffer.concat([header, question, ...answers]);
}

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  for (let len = msg[at] ?? 0; len !== 0; len = msg[at] ?? 0) {
    labels.push(msg.toString('latin1', at + 1, at + 1 + len));
    at += 1 + len;
  }
  return { name: labels.join('.'), end: at + 1 };
}

function rdata(r: FakeRecord): Buffer {
  if (r.type === 'A') return Buffer.from(r.data.split('.').map(Number));
  if (r.type === 'AAAA') {
    const [head = '', tail = ''] = r.data.split('::');
    const h = head === '' ? [] : head.split(':');
    const t = tail === '' ? [] : tail.split(':');
    const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
    const out = Buffer.alloc(16);
    groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
    return out;
  }
  const text = Buffer.from(r.data, 'utf8');
  return Buffer.concat([Buffer.from([text.length]), text]);
}
