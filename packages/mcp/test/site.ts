import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/**
 * A small site with a sign-in flow: /login posts to /session, which sets a cookie and redirects
 * to /account (or answers 401); /account links to /orders in a new tab.
 */
export async function startSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const signedIn = (req.headers.cookie ?? '').includes('session=ada');
    const send = (status: number, html: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html', ...headers });
      res.end(html);
    };
    if (path === '/login') {
      return send(
        200,
        page(
          'Sign in',
          `<h1>Sign in</h1><form method="post" action="/session">
            <label>Email <input name="email" type="email"></label>
            <label>Password <input name="password" type="password"></label>
            <button type="submit">Sign in</button></form>`,
        ),
      );
    }
    if (path === '/session' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (form.get('email') === 'ada@example.com' && form.get('password') === 'correct-horse') {
          res.writeHead(303, { location: '/account', 'set-cookie': 'session=ada; Path=/' });
          res.end();
        } else send(401, page('Sign in failed', '<h1>Wrong email or password</h1><a href="/login">Try again</a>'));
      });
      return;
    }
    if (path === '/account') {
      if (!signedIn) return send(303, '', { location: '/login' });
      return send(
        200,
        page(
          'Your account',
          `<h1>Welcome, Ada</h1><p id="status">Nothing in the basket.</p>
          <button onclick="document.getElementById('status').textContent = 'Basket: 1 item'">Add gift card</button>
          <a href="/orders" target="_blank">Open orders</a>`,
        ),
      );
    }
    if (path === '/orders') {
      return send(
        200,
        page(
          'Orders',
          `<h1>Orders</h1><table><thead><tr><th>Order</th><th>Item</th><th>Total</th></tr></thead><tbody>
          <tr><td>A-1001</td><td>Trail Runner</td><td>$120.00</td></tr>
          <tr><td>A-1002</td><td>Down Jacket</td><td>$249.00</td></tr></tbody></table>
          <button onclick="this.textContent = 'Reordered'">Reorder</button>`,
        ),
      );
    }
    send(404, page('Not found', '<h1>Not found</h1>'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
