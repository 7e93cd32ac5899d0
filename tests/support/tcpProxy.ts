import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback TCP proxy to `targetPort` whose connections a test can cut, as a network failure would. */
export class TcpProxy {
  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly sockets: Set<Socket>,
    private readonly upstream: Map<Socket, Socket>,
    private readonly downstream: Buffer[],
  ) {}

  /** Every byte the server sent through the proxy so far (WebSocket frames, unmasked), as text. */
  received(): string {
    return Buffer.concat(this.downstream).toString('latin1');
  }

  static async start(targetPort: number): Promise<TcpProxy> {
    const sockets = new Set<Socket>();
    const upstream = new Map<Socket, Socket>();
    const downstream: Buffer[] = [];
    const server = createServer((inbound) => {
      const outbound = createConnection({ host: '127.0.0.1', port: targetPort });
      upstream.set(outbound, inbound);
      outbound.on('close', () => upstream.delete(outbound));
      for (const s of [inbound, outbound]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      outbound.on('data', (chunk: Buffer) => downstream.push(chunk));
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new TcpProxy(server, (server.address() as AddressInfo).port, sockets, upstream, downstream);
  }

  /** Destroys every proxied connection, both sides, without a WebSocket close handshake. */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** Stops reading what the server sends (its socket buffers fill, as with a stalled client) until `resume()`. */
  stall(): void {
    for (const [outbound, inbound] of this.upstream) {
      outbound.unpipe(inbound);
      outbound.pause();
    }
  }

  resume(): void {
    for (const [outbound, inbound] of this.upstream) outbound.pipe(inbound);
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
