// bench.js: Playwright's getByRole(...).count() and ariaSnapshot() on the
// 5,000-element page of the reference web engine's benchmarks, beside the
// engine's own in-page reads (reader.js: the sparse read of engine/locate
// and the tree read of engine/observe) evaluated in the same browser and
// the same run, interleaved, medians reported. Outside make test:
//
//   cd scripts/bench-playwright && npm install && node bench.js [runs]
//
// E2E_CHROMIUM names the browser (default /usr/bin/chromium). The engine's
// own figures (Go decoding and resolution included) are in
// `go test -bench 'Locate5k|Observe5k' ./reference-engine`, as ratios to the
// same in-page reads; the figures here connect the two.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

// generatedPage is reference-engine/engine_test.go's generatedPage (keep
// them alike).
function generatedPage(n) {
  let b = '<!doctype html><html><head><title>generated</title></head><body><main>';
  for (let i = 0; i < n;) {
    b += `<section aria-label="Section ${i}"><h2>Heading ${i}</h2>`;
    b += `<p>Paragraph ${i} with <a href="/item/${i}?q=1">a link ${i}</a>.</p>`;
    b += `<label>Field ${i} <input name="f${i}" value="v${i}"></label>`;
    b += `<button data-testid="b${i}">Button ${i}</button>`;
    b += `<ul><li>One ${i}</li><li>Two ${i}</li></ul></section>`;
    i += 11;
  }
  return b + '</main><output data-testid="count">taps: 0</output></body></html>';
}

const read = args => `(() => { const c = globalThis.__e2eConform; return c.json(c.read(${JSON.stringify(args)})).length; })()`;

(async () => {
  const runs = Number(process.argv[2]) || 21;
  const browser = await chromium.launch({ executablePath: process.env.E2E_CHROMIUM || '/usr/bin/chromium' });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.route('http://bench.test/', r => r.fulfill({ contentType: 'text/html', body: generatedPage(5000) }));
    await page.goto('http://bench.test/');
    const reader = fs.readFileSync(path.join(__dirname, '../../reference-engine/inpage/reader.js'), 'utf8');
    await page.evaluate(`(${reader.trim()})(false)`);
    const cases = {
      'evaluate 1 (round trip)': () => page.evaluate('1'),
      'playwright getByRole count': () => page.getByRole('button', { name: 'Button 0', exact: true }).count(),
      'engine locate read (sparse)': () => page.evaluate(read({ mode: 'tree', budget: 3000, nextId: 1, prune: true,
        plan: { queries: [{ kind: 'role', role: 'button', name: { value: 'Button 0', exact: true } }] } })),
      'playwright ariaSnapshot': () => page.locator('body').ariaSnapshot(),
      'engine observe read (tree)': () => page.evaluate(read({ mode: 'tree', budget: 3000, nextId: 1, prune: true })),
    };
    const ms = {};
    for (let r = 0; r < runs + 2; r++) {
      for (const [k, f] of Object.entries(cases)) {
        const t = performance.now();
        await f();
        if (r >= 2) (ms[k] = ms[k] || []).push(performance.now() - t); // two warm-up rounds
      }
    }
    const med = a => [...a].sort((x, y) => x - y)[a.length >> 1];
    const m = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, med(v)]));
    for (const [k, v] of Object.entries(m)) console.log(`${k.padEnd(30)} ${v.toFixed(1).padStart(8)} ms (median of ${runs})`);
    console.log(`locate / getByRole count    ${(m['engine locate read (sparse)'] / m['playwright getByRole count']).toFixed(2)}x`);
    console.log(`observe / ariaSnapshot      ${(m['engine observe read (tree)'] / m['playwright ariaSnapshot']).toFixed(2)}x`);
  } finally {
    await browser.close();
  }
})().catch(e => { console.error(e); process.exit(1); });
