// Quick start: drive a page through a running `bap serve` (ws://127.0.0.1:9222 by default).
import { createServer } from 'node:http';
import { BAPClient, role } from '@browseragentprotocol/client';

// A page to drive, served locally (BAP refuses data: and file: navigations by default).
const page = '<h1>Hello</h1><label>Name <input></label><button onclick="this.textContent=`Done`">Save</button>';
const site = createServer((_req, res) => res.end(page)).listen(0, '127.0.0.1');
await new Promise((resolve) => site.once('listening', resolve));

const client = new BAPClient(process.env.BAP_URL ?? 'ws://127.0.0.1:9222');
await client.connect();

await client.navigate(`http://127.0.0.1:${site.address().port}/`);
const { snapshot } = await client.ariaSnapshot();
console.log(snapshot); // - button "Save" [ref=@e5] …

await client.fill({ type: 'label', value: 'Name' }, 'Ada');
const saveRef = /button "Save" \[ref=(@e\d+)\]/.exec(snapshot)[1];
await client.click({ type: 'ref', ref: saveRef });
await client.click(role('button', 'Done')); // fails with ElementNotFound if the click did not land

await client.close();
site.close();
