import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const p = await b.newPage();
await p.goto('file:///work/main/tests/fixtures/zz-probe.html');
for (const s of ['.score .value', '.score', 'strong', 'img', 'input[type=password]']) console.log(s, JSON.stringify(await p.locator(s).first().ariaSnapshotJSON({mode:'ai'})));
let t = Date.now(); for (let i=0;i<20;i++) await p.ariaSnapshotJSON({mode:'ai'}); console.log('full ms', (Date.now()-t)/20);
t = Date.now(); for (let i=0;i<20;i++) await p.locator('.score').ariaSnapshotJSON({mode:'ai'}); console.log('root ms', (Date.now()-t)/20);
await b.close();
