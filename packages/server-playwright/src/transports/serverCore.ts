import { BrowserHost } from '../engine/browserHost.js';
import type { ResolvedServerOptions } from '../options.js';
import { SessionRegistry } from '../rpc/sessions.js';
import { ServerSecurity } from '../security/serverSecurity.js';

/** What every way into a server shares: the guards, the browsers and the sessions. */
export class ServerCore {
  readonly security: ServerSecurity;
  readonly host: BrowserHost;
  readonly sessions: SessionRegistry;

  constructor(readonly options: ResolvedServerOptions) {
    this.security = new ServerSecurity(options);
    this.host = new BrowserHost({ headless: options.headless, chromiumPath: options.chromiumPath });
    this.sessions = new SessionRegistry(this.host, options);
  }

  async stats() {
    return { resumableSessions: this.sessions.size, ...(await this.host.stats()) };
  }

  /** After the connections are closed: ends kept sessions, then the browsers. */
  async close(): Promise<void> {
    await this.sessions.closeAll();
    await this.host.close();
    this.security.close();
  }
}
