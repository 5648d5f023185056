// Drives a real VS Code (code-server in headless Chromium, through puppeteer-core) through the
// warp-ct scenario a user would follow, saving a screenshot of each step. Started by
// tests/editors/test_vscode.py, which installs the .vsix, starts code-server and checks the result.
//
//   node drive.cjs SPEC.json
//
// SPEC: { puppeteer: dir of puppeteer-core, chromium, url, file (name typed into Ctrl+P),
//         scenario: "trusted" | "untrusted", screenshots: dir, result: path, timeoutMs }
// RESULT (JSON): { steps: [{name, ok, detail, screenshot}], ...facts read off the page }
'use strict';

const fs = require('fs');
const path = require('path');

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const puppeteer = require(spec.puppeteer);
const TIMEOUT = spec.timeoutMs || 60000;
const result = { steps: [], facts: {} };
let page;
let shot = 0;

function save() {
  fs.writeFileSync(spec.result, JSON.stringify(result, null, 2));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function screenshot(name) {
  shot += 1;
  const file = path.join(spec.screenshots, `${spec.scenario}-${String(shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Runs one step: fn returns facts (an object) or throws; a screenshot is taken either way. */
async function step(name, fn) {
  const entry = { name, ok: false };
  result.steps.push(entry);
  const started = Date.now();
  try {
    const facts = await fn();
    entry.ok = true;
    if (facts) Object.assign(result.facts, facts);
  } catch (err) {
    entry.detail = String((err && err.stack) || err);
  }
  entry.ms = Date.now() - started;
  try {
    entry.screenshot = await screenshot(name);
  } catch (err) {
    entry.screenshotError = String(err);
  }
  save();
  if (!entry.ok) throw new Error(`step ${name} failed: ${entry.detail}`);
}

/** Polls fn (run in the page) until it returns a truthy value. */
async function until(what, fn, arg, timeout = TIMEOUT) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await page.evaluate(fn, arg);
      if (last) return last;
    } catch (err) {
      last = String(err);
    }
    await sleep(200);
  }
  throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}

const texts = (selector) => page.$$eval(selector, (els) => els.map((e) => e.textContent.trim()));

/** The editor's visible lines (the file is small enough that all of it is rendered). */
async function editorLines() {
  return page.$$eval('.editor-instance .view-lines .view-line', (els) =>
    els
      .map((e) => ({ top: parseFloat(e.style.top) || 0, text: e.textContent.replace(/\u00a0/g, ' ') }))
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text),
  );
}

async function runCommand(title) {
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget input', { visible: true, timeout: TIMEOUT });
  await page.keyboard.type(title, { delay: 10 });
  // The first row is the best match; wait until the wanted command is listed before accepting.
  await until(`"${title}" in the command palette`, (t) => {
    const rows = [...document.querySelectorAll('.quick-input-list .monaco-list-row')];
    return rows.some((r) => r.textContent.includes(t));
  }, title.replace(/^Warp: /, ''));
  await sleep(200);
  await page.keyboard.press('Enter');
}

async function notifications() {
  return texts('.notifications-toasts .notification-list-item, .notifications-center .notification-list-item');
}

async function openFile() {
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyP');
  await page.keyboard.up('Control');
  await page.waitForSelector('.quick-input-widget input', { visible: true, timeout: TIMEOUT });
  await page.keyboard.type(spec.file, { delay: 20 });
  await until(`${spec.file} in quick open`, (f) =>
    [...document.querySelectorAll('.quick-input-list .monaco-list-row')].some((r) => r.textContent.includes(f)), spec.file);
  await page.keyboard.press('Enter');
  await until('the editor with the file', (f) => {
    const tab = document.querySelector('.tabs-container .tab.active');
    return tab && tab.textContent.includes(f) && document.querySelector('.editor-instance .view-lines .view-line');
  }, spec.file);
}

async function trusted() {
  await step('open-project', async () => {
    await page.goto(spec.url, { waitUntil: 'domcontentloaded', timeout: TIMEOUT });
    await page.waitForSelector('.monaco-workbench', { timeout: TIMEOUT });
    await until('the explorer to list the project', (f) =>
      [...document.querySelectorAll('.explorer-folders-view .monaco-list-row')].some((r) => r.textContent.includes(f)), spec.file);
    await openFile();
    return { linesBefore: await editorLines() };
  });

  await step('squiggles', async () => {
    await until('a squiggle', () => document.querySelectorAll('.editor-instance [class*="squiggly-"]').length > 0);
    await sleep(500);
    const squiggles = await page.$$eval('.editor-instance [class*="squiggly-"]', (els) =>
      els.map((e) => ({ cls: e.className, top: parseFloat(e.parentElement.style.top || e.style.top) || 0 })));
    return { squiggles };
  });

  await step('problems', async () => {
    await page.keyboard.down('Control');
    await page.keyboard.down('Shift');
    await page.keyboard.press('KeyM');
    await page.keyboard.up('Shift');
    await page.keyboard.up('Control');
    await until('warp-ct rows in the Problems panel', () =>
      [...document.querySelectorAll('.markers-panel .monaco-list-row')].some((r) => /WCT\d{3}/.test(r.textContent)));
    await sleep(500);
    const rows = await page.$$eval('.markers-panel .monaco-list-row', (els) =>
      els.map((e) => ({
        text: e.textContent.trim(),
        links: [...e.querySelectorAll('a')].map((a) => ({ text: a.textContent.trim(), href: a.getAttribute('href') || a.title || '' })),
      })));
    return { problems: rows };
  });

  await step('hover', async () => {
    // Move the mouse over the WCT005 squiggle (on the decorator's arguments) and wait for the hover.
    const box = await page.evaluate(() => {
      const els = [...document.querySelectorAll('.editor-instance [class*="squiggly-error"]')];
      const el = els[0] || document.querySelector('.editor-instance [class*="squiggly-"]');
      const r = el.getBoundingClientRect();
      return { x: r.left + Math.min(r.width / 2, 40), y: r.top + r.height / 2 };
    });
    await page.mouse.move(box.x - 30, box.y - 40);
    await page.mouse.move(box.x, box.y, { steps: 5 });
    const hover = await until('the hover with the rule docs', () => {
      const el = [...document.querySelectorAll('.monaco-hover')].find((h) => h.offsetParent !== null && /WCT005/.test(h.textContent));
      return el && el.textContent.length > 80 ? el.textContent : false;
    });
    await sleep(500);
    return { hover };
  });

  await step('light-bulb', async () => {
    await page.mouse.move(5, 5);
    await page.keyboard.press('Escape');
    // Click into the squiggle: the cursor on a fixable diagnostic shows the light bulb.
    const box = await page.evaluate(() => {
      const el = document.querySelector('.editor-instance [class*="squiggly-error"]') || document.querySelector('.editor-instance [class*="squiggly-"]');
      const r = el.getBoundingClientRect();
      return { x: r.left + Math.min(r.width / 2, 40), y: r.top + r.height / 2 };
    });
    await page.mouse.click(box.x, box.y);
    await until('the light bulb', () => {
      const b = document.querySelector('.lightBulbWidget');
      return b && b.offsetParent !== null && getComputedStyle(b).visibility !== 'hidden';
    });
    await page.click('.lightBulbWidget');
    const actions = await until('the quick fix menu', () => {
      const rows = [...document.querySelectorAll('.action-widget .monaco-list-row')];
      return rows.length ? rows.map((r) => r.textContent.trim()) : false;
    });
    await sleep(300);
    return { actions };
  });

  await step('quick-fix-applied', async () => {
    const index = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('.action-widget .monaco-list-row')];
      return rows.findIndex((r) => /module="unique"|unique/.test(r.textContent));
    });
    if (index < 0) throw new Error('no quick fix that adds module="unique"');
    const rows = await page.$$('.action-widget .monaco-list-row');
    await rows[index].click();
    await until('the decorator to change', () =>
      [...document.querySelectorAll('.editor-instance .view-line')].some((l) => l.textContent.includes('module="unique"')));
    // The WCT005 squiggle (an error) goes away once the server re-lints the new text.
    await until('the WCT005 squiggle to go away', () => document.querySelectorAll('.editor-instance [class*="squiggly-error"]').length === 0);
    await until('WCT005 to leave the Problems panel', () =>
      ![...document.querySelectorAll('.markers-panel .monaco-list-row')].some((r) => r.textContent.includes('WCT005')));
    // Save, so that the measured program runs the fixed code.
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyS');
    await page.keyboard.up('Control');
    await until('the save', () => !document.querySelector('.tabs-container .tab.active.dirty'));
    await sleep(300);
    const problemsAfter = await texts('.markers-panel .monaco-list-row');
    return { linesAfter: await editorLines(), problemsAfter };
  });

  await step('measure-progress', async () => {
    await runCommand('Warp: Measure compile time');
    // No warpCt.probeCommand: the extension asks, pre-filled with "<python> kernels.py".
    const prefilled = await until('the measure command input box', () => {
      const box = document.querySelector('.quick-input-widget input');
      return box && box.offsetParent !== null && /kernels\.py/.test(box.value) ? box.value : false;
    });
    await page.keyboard.press('Enter');
    const progress = await until('the measuring notification with progress', () => {
      const items = [...document.querySelectorAll('.notifications-toasts .notification-list-item')];
      const item = items.find((i) => /measuring compile time/.test(i.textContent));
      return item && /run|sample|cold|warm/i.test(item.textContent) ? item.textContent.trim() : false;
    });
    const statusWhileMeasuring = await texts('.statusbar-item');
    return { prefilled, progress, statusWhileMeasuring: statusWhileMeasuring.filter((t) => /Warp/.test(t)) };
  });

  await step('measured-lenses-status', async () => {
    const status = await until('the measurement in the status bar', () => {
      const item = [...document.querySelectorAll('.statusbar-item')].find((s) => /Warp: cold/.test(s.textContent));
      return item ? item.textContent.trim() : false;
    }, undefined, 240000);
    // Back to the code editor (the timeline opened beside it).
    const lenses = await until('code lenses above the kernels', () => {
      const ls = [...document.querySelectorAll('.codelens-decoration')].map((l) => l.textContent.trim()).filter((t) => /built/.test(t));
      return ls.length ? ls : false;
    });
    const messages = await notifications();
    return { status, lenses, messagesAfterMeasure: messages };
  });

  await step('measured-problems', async () => {
    // The measurement joined with the static findings: once the static rows carry the measured
    // figures ("confirmed: measured at ..."), read every row (one problem, one row: a measured
    // twin is not a row of its own) and the squiggles per line of the editor.
    await until('a Problems row with the measured figures', () =>
      [...document.querySelectorAll('.markers-panel .monaco-list-row')].some((r) => /confirmed: measured at/.test(r.textContent)),
    undefined, 120000);
    await sleep(1500); // a second publication (the re-lint of the open file) would show here too
    const rows = await texts('.markers-panel .monaco-list-row');
    const squigglesAfterMeasure = await page.$$eval('.editor-instance [class*="squiggly-"]', (els) =>
      els.map((e) => ({ cls: e.className, top: parseFloat(e.parentElement.style.top || e.style.top) || 0 })));
    return { problemsAfterMeasure: rows, squigglesAfterMeasure };
  });

  await step('timeline-webview', async () => {
    const tabs = await until('the timeline tab', () => {
      const t = [...document.querySelectorAll('.tabs-container .tab')].map((e) => e.textContent.trim());
      return t.some((x) => /timeline/i.test(x)) ? t : false;
    });
    const groups = await page.$$eval('.editor-group-container', (els) => els.length);
    // The webview's page is in a nested iframe; find the frame that shows the probe's report.
    const deadline = Date.now() + TIMEOUT;
    let webviewText = '';
    while (Date.now() < deadline && !webviewText) {
      for (const frame of page.frames()) {
        try {
          const t = await frame.evaluate(() => (document.body ? document.body.innerText : ''));
          if (/warp-ct|timeline|module/i.test(t) && t.length > 100 && !/Explorer/.test(t)) webviewText = t;
        } catch {
          // detached or cross-origin frames
        }
      }
      if (!webviewText) await sleep(300);
    }
    if (!webviewText) throw new Error('no frame shows the report');
    await sleep(800);
    return { tabs, editorGroups: groups, webviewText: webviewText.slice(0, 2000) };
  });
}

async function untrusted() {
  await step('open-untrusted', async () => {
    await page.goto(spec.url, { waitUntil: 'domcontentloaded', timeout: TIMEOUT });
    await page.waitForSelector('.monaco-workbench', { timeout: TIMEOUT });
    await until('the explorer to list the project', (f) =>
      [...document.querySelectorAll('.explorer-folders-view .monaco-list-row')].some((r) => r.textContent.includes(f)), spec.file);
    await openFile();
    await until('a squiggle (linting works untrusted)', () => document.querySelectorAll('.editor-instance [class*="squiggly-"]').length > 0);
    const restricted = await page.evaluate(() => {
      const item = [...document.querySelectorAll('.statusbar-item')].find((s) => /Restricted/i.test(s.textContent));
      return item ? item.textContent.trim() : '';
    });
    return { restricted };
  });

  await step('measure-refused', async () => {
    await runCommand('Warp: Measure compile time');
    const refused = await until('the refusal', () => {
      const item = [...document.querySelectorAll('.notifications-toasts .notification-list-item')].find((i) => /trust/i.test(i.textContent));
      return item ? item.textContent.trim() : false;
    });
    const inputShown = await page.evaluate(() => {
      const box = document.querySelector('.quick-input-widget input');
      return !!box && box.offsetParent !== null;
    });
    await sleep(300);
    return { refused, inputShown };
  });
}

(async () => {
  const browser = await puppeteer.launch({
    executablePath: spec.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1400,900'],
    defaultViewport: { width: 1400, height: 900 },
  });
  let code = 0;
  try {
    page = await browser.newPage();
    page.setDefaultTimeout(TIMEOUT);
    if (spec.scenario === 'untrusted') await untrusted();
    else await trusted();
  } catch (err) {
    result.error = String((err && err.stack) || err);
    code = 1;
  } finally {
    save();
    await browser.close().catch(() => undefined);
  }
  process.exit(code);
})();
