import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const p = await b.newPage();
for (const f of process.argv.slice(2)) {
  await p.goto('file:///work/main/tests/fixtures/' + f);
  console.log('=== ' + f);
  console.log(await p.ariaSnapshot({ mode: 'ai' })); if (process.env.J) console.log(JSON.stringify(await p.ariaSnapshotJSON({ mode: 'ai' })));
}
await b.close();
